"""Translators for the front ends (terminal now, Telegram next): one per locale.

Translation happens at the edge: the service returns codes and records, and a renderer asks
for a :class:`Translator` for the reader's locale. Messages use named ``{placeholders}``
filled after translation (never f-strings inside ``_()``); Russian plurals come from
``ngettext`` with the catalog's three forms.
"""

from __future__ import annotations

import gettext as _gettext
from datetime import datetime, timedelta
from functools import cache
from typing import Any
from zoneinfo import ZoneInfo

from babel.dates import format_skeleton, format_time, format_timedelta

from kolkhoz_tg.config import LOCALES
from kolkhoz_tg.i18n_compile import LOCALES_DIR, compile_catalogs

DOMAIN = "messages"


class Translator:
    """``tr.gettext("Year {year}", year=2)``; ``tr.ngettext("{n} card", "{n} cards", n)``."""

    def __init__(self, locale: str) -> None:
        self.locale = locale if locale in LOCALES else "en"
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
        """``через 3 часа`` / ``in 3 hours`` (``3 часа назад`` / ``3 hours ago``)."""
        delta = when - now
        if abs(delta) < timedelta(minutes=1):
            return self.gettext("now")
        return format_timedelta(delta, add_direction=True, threshold=1.1, locale=self.locale)

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
        """``24 часа`` / ``24 hours``."""
        return format_timedelta(
            timedelta(seconds=seconds), threshold=1.1, locale=self.locale, format="long"
        )


@cache
def _load(locale: str) -> _gettext.NullTranslations:
    compile_catalogs()
    return _gettext.translation(DOMAIN, localedir=str(LOCALES_DIR), languages=[locale],
                                fallback=True)


@cache
def translator(locale: str) -> Translator:
    return Translator(locale)
