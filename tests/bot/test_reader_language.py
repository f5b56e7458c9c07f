"""Which language a person is addressed in when the bot has no catalog for their Telegram
language, through the real application on the fake Telegram, with Russian as the chats'
default (``KOLKHOZ_LOCALE=ru``): English, or Russian for the languages of the former Soviet
Union (:func:`kolkhoz_tg.i18n.reader_locale`); a group that chose nothing keeps the
default."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kolkhoz_tg.service import GameService
from kolkhoz_tg.storage.database import Database
from kolkhoz_tg.timeutil import FakeClock
from tests.bot.conftest import make_app
from tests.bot.driver import said
from tests.conftest import make_settings
from tests.faketg import FakeTelegram

HELLO = {"en": "Hello! I run slow games of Kolkhoz", "ru": "Здравствуйте! Я веду неспешные"}
HELP = {"en": "Kolkhoz: a slow trick-taking game", "ru": "«Колхоз» — неспешная карточная"}


@pytest.fixture
def russian_service(sqlite_url: str, clock: FakeClock) -> Iterator[GameService]:
    """A service whose chats' default language is Russian (``KOLKHOZ_LOCALE=ru``)."""
    db = Database(sqlite_url, run_migrations=False)
    yield GameService(db, clock=clock, settings=make_settings(locale="ru"))
    db.dispose()


@pytest.mark.parametrize(("code", "expected"), [
    ("de", "en"), ("fr", "en"), ("pt-br", "en"),
    ("en", "en"), ("ru", "ru"),
    ("uk", "ru"), ("kk", "ru"),
    (None, "ru"),  # no language at all: the default
])
async def test_a_language_without_a_catalog_is_greeted_in_english(
    fake: FakeTelegram, russian_service: GameService, code: str | None, expected: str
) -> None:
    person = fake.user(9500, "Hans", language_code=code)
    async with fake.running(make_app(fake, russian_service)):
        await person.start_bot()
        assert HELLO[expected] in said(person), said(person)
        await person.send(None, "/help")
        assert HELP[expected] in said(person), said(person)
    # What the bot writes them later (their cards, reminders) follows the same language.
    info = russian_service.user(person.id)
    assert info is not None and info.locale == (None if code is None else expected)


async def test_a_group_that_chose_nothing_keeps_the_default(
    fake: FakeTelegram, russian_service: GameService
) -> None:
    hans = fake.user(9600, "Hans", language_code="de")
    group = fake.create_group("Stammtisch", [hans])
    async with fake.running(make_app(fake, russian_service)):
        await hans.send(group, "/help")
        last = fake.last_message(group)
        assert last is not None and HELP["ru"] in (last.text or ""), last.text
        # Hans himself is answered in English in private.
        await hans.send(None, "/help")
        assert HELP["en"] in said(hans)
