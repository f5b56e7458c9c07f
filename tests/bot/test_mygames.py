"""``/mygames`` through the real application on the fake Telegram: Anna's games in three
chats (a supergroup, a basic group, a forum's topic), those where it is her move first, the
longest wait first; each place named (the topic too), the time waited in words, the
deadline on her clock; links to the board messages; the button that sends her hand anew
(and refuses once the game is over); typed in a group, answered privately, with a note in
the group only for someone the bot cannot write to; a lobby and a paused game; the empty
list; in English and Russian. Never a card."""

from __future__ import annotations

from datetime import timedelta

from kolkhoz_tg.service import GameService
from kolkhoz_tg.timeutil import FakeClock
from tests.bot.conftest import make_app
from tests.bot.driver import action_buttons, open_game
from tests.bot.test_topics import open_game_in
from tests.faketg import FakeChat, FakeTelegram, FakeUser, StoredMessage

SUITS = "♥♦♣♠"


def turn_to(service: GameService, game_id: int, users: list[FakeUser], anna: bool) -> None:
    """Moves through the service (as another front end would) until it is Anna's move
    (``anna``) or until it is someone else's and not hers."""
    for _ in range(40):
        views = {u.id: service.seat_view(game_id, u.id) for u in users}
        if views[users[0].id].to_act == anna and any(v.to_act for v in views.values()):
            return
        who = next(u for u in (users[1:] if anna else users) if views[u.id].to_act)
        sv = views[who.id]
        assert service.act(game_id, who.id, sv.legal[0], sv.game.version).ok
    raise AssertionError("the turn never came")


def listed(user: FakeUser) -> StoredMessage:
    msg = user.last_message()
    assert msg is not None and msg.text is not None
    return msg


def bot_said(fake: FakeTelegram, chat: FakeChat) -> list[int]:
    return [m.message_id for m in fake.messages(chat) if m.from_id == fake.bot_id]


def urls(msg: StoredMessage) -> list[str]:
    return [b.url for row in msg.buttons for b in row if b.url]


def hand_buttons(msg: StoredMessage) -> list[str]:
    return [b.data for row in msg.buttons for b in row if b.data and b.data.endswith(":resend")]


async def test_my_games_across_three_chats_and_a_topic(
    fake: FakeTelegram, service: GameService, clock: FakeClock
) -> None:
    users = [fake.user(4100 + i, n, language_code="en")
             for i, n in enumerate(["Anna", "Boris", "Vera"])]
    anna, boris = users[0], users[1]
    dmitri = fake.user(4199, "Dmitri", language_code="en")  # never opened the private chat
    dacha = fake.create_group("Dacha", [*users, dmitri], supergroup=True)
    office = fake.create_group("Office", users)
    forum = fake.create_group("Forum", users, forum=True)
    async with fake.running(make_app(fake, service)):
        await anna.start_bot()
        await anna.send(None, "/settings tz Europe/Moscow")
        topic = fake.create_topic(forum, "Cards", by=boris)
        start = clock.now()
        game_a = await open_game(fake, users, dacha, "/newgame 3")
        turn_to(service, game_a, users, anna=True)
        clock.advance(timedelta(hours=2))
        game_c = await open_game_in(fake, users, forum, topic, "/newgame 3")
        turn_to(service, game_c, users, anna=True)
        clock.advance(timedelta(hours=1))
        game_b = await open_game(fake, users, office, "/newgame 3")
        turn_to(service, game_b, users, anna=False)
        clock.set(start + timedelta(hours=5))

        await anna.send(None, "/help")
        assert "/mygames — every game you play in, those where it is your move first" in (
            listed(anna).text or "")
        await anna.send(None, "/mygames")
        msg = listed(anna)
        text = msg.text or ""
        assert not set(SUITS) & set(text), text  # nobody's cards, not even her own
        mine, _, others = text.partition("⏳ 1 more game:")
        assert "Your move in 2 games:" in mine
        # The longest wait first: Dacha (5 hours), then the forum's topic (3 hours).
        assert mine.index('Kolkhoz in "Dacha"') < mine.index(
            f'Kolkhoz #{game_c} in "Forum", topic "Cards"')
        assert "it came to you 5 hours ago" in mine and "it came to you 3 hours ago" in mine
        # Her deadline on her clock: 24 hours from 09:00 UTC, 12:00 in Moscow.
        assert "Time runs out tomorrow at 12:00 (in 19 hours)." in mine
        assert 'Kolkhoz in "Office"' in others and "the turn began 2 hours ago" in others
        assert "play a card" in mine or "declare trump" in mine or "swap" in mine
        # The board links: a supergroup's message, a topic's message (with its thread); a
        # basic group has no such links.
        info_a, info_c = service.game_info(game_a), service.game_info(game_c)
        digits = str(dacha.id)[4:], str(forum.id)[4:]
        assert urls(msg) == [f"https://t.me/c/{digits[0]}/{info_a.meta['board']}",
                             f"https://t.me/c/{digits[1]}/{topic}/{info_c.meta['board']}"]
        assert len(hand_buttons(msg)) == 3

        # The hand button sends the private message of that game anew, with its moves.
        answer = await anna.tap(msg, hand_buttons(msg)[0])
        assert answer is not None and not answer.show_alert
        hand = listed(anna)
        assert hand.message_id > msg.message_id
        assert 'Kolkhoz in "Dacha"' in (hand.text or "") and action_buttons(hand)

        # A lobby and a paused game are listed among the others; typed in a group, the
        # list comes in private and the group hears nothing.
        await boris.send(forum, "/newgame 3")
        await anna.send(office, "/pause")
        assert service.game_info(game_b).status == "paused"
        said_before = bot_said(fake, dacha)
        await anna.send(dacha, "/mygames")
        assert bot_said(fake, dacha) == said_before
        text = listed(anna).text or ""
        assert "The game is paused; the clock has stopped." in text
        assert "Your move in 2 games:" in text and "⏳ 1 more game:" in text
        # The lobby is not Anna's (only Boris sits there): not listed.
        assert "Not started yet" not in text
        await boris.start_bot()
        await boris.send(None, "/mygames")
        text = listed(boris).text or ""
        assert "Not started yet: 1 of 3 seats taken." in text
        assert text.startswith("👉 No game waits for your move.\n\n⏳ Your 4 games:\n")
        assert text.index('Kolkhoz in "Office"') < text.index("Not started yet")

        # A stale hand button: the game is over since the list was drawn.
        service.abort(game_a, anna.id)
        answer = await anna.tap(msg, hand_buttons(msg)[0])
        assert answer is not None and answer.show_alert
        assert answer.text == "That game is over. /mygames shows your games as they are now."

        # Someone the bot cannot write to: a short note in the group, whose button opens
        # the private chat on the list (empty: he plays nowhere).
        await dmitri.send(dacha, "/mygames")
        note = fake.last_message(dacha)
        assert note is not None and "private chat" in (note.text or "")
        [link] = urls(note)
        await dmitri.open_link(link)
        assert (listed(dmitri).text or "").startswith("You have no open games.")


async def test_my_games_in_russian_and_the_welcome_button(
    fake: FakeTelegram, service: GameService, clock: FakeClock
) -> None:
    users = [fake.user(4300 + i, n, language_code="ru")
             for i, n in enumerate(["Аня", "Борис", "Вера"])]
    anna = users[0]
    dacha = fake.create_group("Дача", users, supergroup=True)
    forum = fake.create_group("Форум", users, forum=True)
    newcomer = fake.user(4399, "Глеб", language_code="ru")
    async with fake.running(make_app(fake, service)):
        # The welcome (no game yet) has the button; the list is empty then.
        await newcomer.start_bot()
        welcome = listed(newcomer)
        data = [b.data for row in welcome.buttons for b in row if b.text == "📋 Мои игры"]
        assert data == ["v:0:0:mine"]
        await newcomer.tap(welcome, data[0])
        assert (listed(newcomer).text or "").startswith("У вас нет открытых игр.")

        topic = fake.create_topic(forum, "Карты", by=users[1])
        start = clock.now()
        game_a = await open_game(fake, users, dacha, "/newgame 3")
        turn_to(service, game_a, users, anna=True)
        clock.advance(timedelta(hours=19))
        game_b = await open_game_in(fake, users, forum, topic, "/newgame 3")
        turn_to(service, game_b, users, anna=False)
        clock.set(start + timedelta(hours=21))
        await anna.send(None, "/help")
        assert "/mygames — все ваши игры: сначала те, где ваш ход" in (listed(anna).text or "")
        await anna.send(None, "/mygames")
        text = listed(anna).text or ""
        assert not set(SUITS) & set(text), text
        assert "👉 Ваш ход в 1 игре:" in text and "⏳ Ещё 1 игра:" in text
        assert "он перешёл к вам 21 час назад" in text
        assert "ход начался 2 часа назад" in text
        assert f"«Колхоз» № {game_b} в чате «Форум», в теме «Карты»" in text
        # No time zone set: the time left only, in words.
        assert "Время на ход истекает через 3 часа." in text
