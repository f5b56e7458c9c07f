"""How spans of time read (:meth:`Translator.relative`, :meth:`Translator.duration`): seconds
under a minute instead of "now", 90 seconds never rounded up to "2 minutes", Russian plurals;
the group's time zone (:meth:`Scene.group_zone`); which catalog a Telegram language gets
(:func:`reader_locale`)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from engine import preset
from kolkhoz_tg.i18n import Translator, reader_locale
from kolkhoz_tg.service.records import BoardView, GameInfo, Scene
from kolkhoz_tg.storage.models import GameStatus

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def _in(locale: str, seconds: float) -> str:
    return Translator(locale).relative(NOW + timedelta(seconds=seconds), NOW)


@pytest.mark.parametrize(("seconds", "ru", "en"), [
    (45, "через 45 секунд", "in 45 seconds"),  # the 50 % reminder of a 90-second turn
    (59, "через 59 секунд", "in 59 seconds"),
    (21, "через 21 секунду", "in 21 seconds"),
    (22, "через 22 секунды", "in 22 seconds"),
    (1, "через 1 секунду", "in 1 second"),
    (90, "через 90 секунд", "in 90 seconds"),  # not "через 2 минуты"
    (120, "через 2 минуты", "in 2 minutes"),
    (90 * 60, "через 90 минут", "in 90 minutes"),  # not "через 2 часа"
    (24 * 3600, "через 24 часа", "in 24 hours"),
    (36 * 3600, "через 36 часов", "in 36 hours"),  # not "через 2 дня"
    (3 * 86400, "через 3 дня", "in 3 days"),
    (-45, "45 секунд назад", "45 seconds ago"),
    (0.4, "сейчас", "now"),
])
def test_relative_times_say_seconds_and_never_round_up_by_half(
    seconds: float, ru: str, en: str
) -> None:
    assert _in("ru", seconds) == ru
    assert _in("en", seconds) == en


@pytest.mark.parametrize(("seconds", "ru", "en"), [
    (90, "90 секунд", "90 seconds"),  # the lobby said "2 минуты"
    (60, "60 секунд", "60 seconds"),
    (150, "150 секунд", "150 seconds"),  # a time limit is told exactly
    (45 * 60, "45 минут", "45 minutes"),
    (3600, "60 минут", "60 minutes"),
    (90 * 60, "90 минут", "90 minutes"),
    (2 * 3600, "2 часа", "2 hours"),
    (24 * 3600, "24 часа", "24 hours"),
    (36 * 3600, "36 часов", "36 hours"),
    (2 * 86400, "2 дня", "2 days"),
    (5 * 86400, "5 дней", "5 days"),
    (14 * 86400, "2 недели", "2 weeks"),
])
def test_durations_are_exact(seconds: int, ru: str, en: str) -> None:
    assert Translator("ru").duration(seconds) == ru
    assert Translator("en").duration(seconds) == en


def test_a_duration_and_a_relative_time_agree_where_both_are_exact() -> None:
    for seconds in (90, 45, 90 * 60, 24 * 3600, 36 * 3600, 3 * 86400):
        for locale, prefix in (("ru", "через "), ("en", "in ")):
            assert _in(locale, seconds) == prefix + Translator(locale).duration(seconds)


@pytest.mark.parametrize(("code", "locale"), [
    ("ru", "ru"), ("en", "en"), ("en-US", "en"), ("ru_RU", "ru"),
    ("de", "en"), ("fr", "en"), ("pt-br", "en"), ("zh-hans", "en"), ("lv", "en"),
    ("uk", "ru"), ("be", "ru"), ("kk", "ru"), ("uz", "ru"), ("tt", "ru"),
    (None, None), ("", None),
])
def test_a_telegram_language_without_a_catalog_reads_english_or_russian(
    code: str | None, locale: str | None
) -> None:
    assert reader_locale(code) == locale


def test_a_translator_for_a_language_without_a_catalog() -> None:
    assert Translator("de").locale == "en"
    assert Translator("uk").locale == "ru"
    assert Translator("de").gettext("now") == "now"


def _scene(zones: dict[int, str], seated: tuple[int, ...] = (1, 2),
           deadline: datetime | None = NOW + timedelta(hours=24)) -> Scene:
    info = GameInfo(
        id=1, chat_id=-1, creator_id=1, status=GameStatus.ACTIVE, preset="classic",
        rules=preset("classic"), players=3, seed="1", version=1, turn_timeout=86400,
        reminders=[], standin_after=3,
        seats=[], deadline=deadline, paused_remaining=None, created_at=NOW,
        started_at=NOW, finished_at=None, meta={}, result=None, topic_id=None,
    )
    return Scene(game=info, board=BoardView(info, None, deadline), seats={},
                 locales=dict.fromkeys(seated, "en"), can_pm=dict.fromkeys(seated, True),
                 chat_locale="en", chat_title=None, zones=zones)


def test_the_group_reads_a_clock_only_when_every_seated_player_shares_it() -> None:
    # One player set Vladivostok, the other nothing: no clock for the group.
    assert _scene({1: "Asia/Vladivostok"}).group_zone() is None
    assert _scene({1: "Asia/Vladivostok", 2: "Europe/Moscow"}).group_zone() is None
    assert _scene({1: "Asia/Vladivostok", 2: "Asia/Vladivostok"}).group_zone() == (
        "Asia/Vladivostok")
    # One clock by two names (Moscow is UTC+3 all year).
    assert _scene({1: "Europe/Moscow", 2: "Etc/GMT-3"}).group_zone() in (
        "Europe/Moscow", "Etc/GMT-3")
    assert _scene({1: "Europe/Moscow", 2: "Etc/GMT-3"}, deadline=None).group_zone() is None
    assert _scene({}, seated=()).group_zone() is None
    # A zone of someone no longer seated does not count; an unset seated one does.
    assert _scene({1: "Asia/Tokyo", 3: "Europe/Moscow"}, seated=(1,)).group_zone() == (
        "Asia/Tokyo")
