"""Translators for the front ends (terminal now, Telegram next): one per locale.

Translation happens at the edge: the service returns codes and records, and a renderer asks
for a :class:`Translator` for the reader's locale. Messages use named ``{placeholders}``
filled after translation (never f-strings inside ``_()``); Russian plurals come from
``ngettext`` with the catalog's three forms.
"""

from __future__ import annotations

import gettext as _gettext
import math
from datetime import datetime, timedelta
from functools import cache
from typing import Any, Literal
from zoneinfo import ZoneInfo

from babel.dates import format_skeleton, format_time, format_timedelta

from kolkhoz_tg.config import LOCALES
from kolkhoz_tg.i18n_compile import LOCALES_DIR, compile_catalogs

DOMAIN = "messages"

#: Languages (ISO 639 codes) whose speakers the bot addresses in Russian when it has no
#: catalog of their own: those of the former Soviet republics where Russian is still the
#: common second language (Ukrainian, Belarusian, Kazakh, Kyrgyz, Uzbek, Tajik, Turkmen,
#: Azerbaijani, Armenian, Georgian, Moldovan) and of the peoples of Russia (Tatar, Bashkir,
#: Chuvash, Chechen, Ossetian, Yakut, Avar, Komi, Udmurt, Abkhaz, Buryat, Kalmyk). The
#: Baltic languages are not among them: there English is the more likely shared language.
#: Every other language gets English.
RUSSIAN_READERS = frozenset({
    "uk", "be", "kk", "ky", "uz", "tg", "tk", "az", "hy", "ka", "mo",
    "tt", "ba", "cv", "ce", "os", "sah", "av", "kv", "udm", "ab", "bua", "xal",
})


def reader_locale(language_code: str | None) -> str | None:
    """The catalog to address a person in, from their Telegram app's language
    (``language_code``, an IETF tag such as ``de`` or ``pt-br``): Russian and English as
    they are; the languages of :data:`RUSSIAN_READERS` Russian; any other English (a German
    reads English sooner than Russian). None without a language: then the chat's language,
    else the configured default (``KOLKHOZ_LOCALE``), applies.

    Only for a person: a group that chose no language keeps the configured default rather
    than the guess made for whoever spoke first in it."""
    if not language_code or not language_code.strip():
        return None
    code = language_code.strip().lower().replace("_", "-").split("-")[0]
    if code in LOCALES:
        return code
    return "ru" if code in RUSSIAN_READERS else "en"


#: How many of a unit a span must make to be told in that unit: 90 seconds read "90
#: seconds", never "2 minutes"; 36 hours "36 hours", never "2 days".
_AT_LEAST = 2
_Unit = Literal["week", "day", "hour", "minute", "second"]
#: The units a duration is told in exactly (larger first; Babel's names).
_EXACT_UNITS: tuple[tuple[_Unit, int], ...] = (
    ("week", 7 * 86400), ("day", 86400), ("hour", 3600), ("minute", 60), ("second", 1),
)


class Translator:
    """``tr.gettext("Year {year}", year=2)``; ``tr.ngettext("{n} card", "{n} cards", n)``."""

    def __init__(self, locale: str) -> None:
        self.locale = reader_locale(locale) or "en"
        self._t = _load(self.locale)
        self._ranks: dict[str, str] | None = None

    def gettext(self, message: str, **params: Any) -> str:
        text = self._t.gettext(message)
        return text.format(**params) if params else text

    def ngettext(self, singular: str, plural: str, n: int, **params: Any) -> str:
        return self._t.ngettext(singular, plural, n).format(n=n, **params)

    def pgettext(self, context: str, message: str) -> str:
        return self._t.pgettext(context, message)

    def rank(self, rank: str) -> str:
        """A card's rank as the reader writes it: ``Q`` → ``Д`` in Russian."""
        letters = self._ranks
        if letters is None:
            # The letters of the card ranks Jack, Queen, King, Ace.
            letters = self._ranks = {
                "J": self.pgettext("card rank", "J"), "Q": self.pgettext("card rank", "Q"),
                "K": self.pgettext("card rank", "K"), "A": self.pgettext("card rank", "A"),
            }
        return letters.get(rank, rank)

    def relative(self, when: datetime, now: datetime) -> str:
        """``через 3 часа`` / ``in 3 hours`` (``3 часа назад`` / ``3 hours ago``), rounded
        to the largest unit there are at least two of: ``через 45 секунд`` / ``in 45
        seconds``, ``через 90 секунд`` (never ``через 2 минуты`` for 90 seconds), ``через
        90 минут``, ``через 24 часа``. ``now`` / ``сейчас`` only within a second."""
        delta = when - now
        if abs(delta) < timedelta(seconds=1):
            return self.gettext("now")
        return format_timedelta(delta, add_direction=True, threshold=_AT_LEAST,
                                locale=self.locale)

    def clock(self, when: datetime, now: datetime, zone: str) -> str:
        """When ``when`` falls on the reader's clock in ``zone``, as a phrase that follows a
        verb: ``at 21:30`` / ``в 21:30`` today, ``tomorrow at 21:30`` / ``завтра в 21:30``,
        else ``on Nov 28 at 21:30`` / ``28 нояб. в 21:30``."""
        tz = ZoneInfo(zone)
        local, today = when.astimezone(tz), now.astimezone(tz).date()
        time = format_time(local, "HH:mm", locale=self.locale)
        days = (local.date() - today).days
        if days == 0:
            return self.gettext("at {time}", time=time)
        if days == 1:
            return self.gettext("tomorrow at {time}", time=time)
        return self.gettext("on {date} at {time}", time=time,
                            date=format_skeleton("MMMd", local, locale=self.locale))

    def duration(self, seconds: int) -> str:
        """A time limit exactly, in the largest unit it makes a whole number (two or more)
        of: ``24 часа`` / ``24 hours``, ``90 секунд`` / ``90 seconds`` (never "2 minutes"),
        ``90 минут``, ``2 дня``. The same words as :meth:`relative` for the same span."""
        whole = int(seconds)
        units = [name for name, size in _EXACT_UNITS
                 if whole % size == 0 and whole // size >= _AT_LEAST]
        unit: _Unit = units[0] if units else "second"
        # An infinite threshold: Babel takes no unit but the one asked for (granularity).
        return format_timedelta(timedelta(seconds=whole), granularity=unit,
                                threshold=math.inf, locale=self.locale, format="long")


@cache
def _load(locale: str) -> _gettext.NullTranslations:
    compile_catalogs()
    return _gettext.translation(DOMAIN, localedir=str(LOCALES_DIR), languages=[locale],
                                fallback=True)


@cache
def translator(locale: str) -> Translator:
    return Translator(locale)
