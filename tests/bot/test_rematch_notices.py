"""One-tap rematch and new-game notices through the real application on the fake Bot API
(issue #31), in English and Russian."""

from __future__ import annotations

from datetime import timedelta

from kolkhoz_tg.bot.context import DEPS_KEY
from kolkhoz_tg.service import GameService
from kolkhoz_tg.timeutil import FakeClock
from tests.bot.conftest import make_app
from tests.bot.driver import action_buttons, players, start_with_bots, tap_any_action
from tests.faketg import FakeChat, FakeTelegram, FakeUser, StoredMessage


async def play_to_the_end(service: GameService, game_id: int, humans: list[FakeUser]) -> None:
    while service.game_info(game_id).status == "active":
        assert await tap_any_action(humans)


def board(fake: FakeTelegram, service: GameService, group: FakeChat, game_id: int
          ) -> StoredMessage:
    return fake.message(group, int(service.game_info(game_id).meta["board"]))


def games_here(service: GameService, group: FakeChat) -> list[int]:
    return [g.id for g in service.games_in_chat(group.id, open_only=False)]


async def test_a_rematch_from_the_final_board_to_the_first_trick(
    fake: FakeTelegram, service: GameService
) -> None:
    anna, boris, vera = players(fake, base=6100)[:3]
    group = fake.create_group("Again", [anna, boris, vera])
    app = make_app(fake, service)
    async with fake.running(app):
        old = await start_with_bots(app, service, [anna, boris, vera], group, bots=1,
                                    level="strong", seed=11, options={"years": 1})
        # (A strong bot thinks in a worker; the driver waits for it between taps.)
        await play_to_the_end(service, old, [anna, boris, vera])
        final = board(fake, service, group, old)
        assert "🔁 Play again" in final.button_texts
        taps_before = len(fake.callback_queries)
        # Boris taps once: the lobby of the same table, him seated, the others asked.
        assert (await boris.tap(final, "🔁 Play again")) is not None
        lobby = fake.last_message(group)
        assert lobby is not None and "A rematch! Waiting for" in (lobby.text or "")
        new = service.games_in_chat(group.id)[0]
        assert new.id != old and new.status == "lobby" and new.creator_id == boris.id
        assert {i.user_id for i in new.invitations} == {anna.id, vera.id}
        before = service.game_info(old)
        assert new.rules == before.rules and new.turn_timeout == before.turn_timeout
        bot = next(s for s in before.seats if s.is_ai)
        assert next(s for s in new.seats if s.seat == bot.seat).level == "strong"
        # A second tap, by anyone, on the final board opens nothing more.
        again = await anna.tap(board(fake, service, group, old), "🔁 Play again")
        assert again is not None and again.show_alert
        assert "opened already" in (again.text or "")
        assert len(games_here(service, group)) == 2
        # The creator cannot start before the others answered.
        lobby = fake.message(group, lobby.message_id)
        refused = await boris.tap(lobby, "Start ▶")
        assert refused is not None and "not answered" in (refused.text or "")
        # One tap each: Anna and Vera confirm; the creator starts.
        await anna.tap(fake.message(group, lobby.message_id), "Join")
        await vera.tap(fake.message(group, lobby.message_id), "Join")
        lobby = fake.message(group, lobby.message_id)
        assert "Waiting for" not in (lobby.text or "")
        await boris.tap(lobby, "Start ▶")
        info = service.game_info(new.id)
        assert info.status == "active"
        # Taps that made the rematch (the refused ones above aside): Boris's Play again and
        # Start, one Join each for Anna and Vera.
        made = [q for q in list(fake.callback_queries.values())[taps_before:]
                if q.answer is None or not q.answer.get("show_alert")]
        assert sorted(q.user_id for q in made) == sorted([boris.id, boris.id, anna.id, vera.id])
        assert {s.user_id: s.seat for s in info.seats if s.user_id} == {
            s.user_id: s.seat for s in before.seats if s.user_id}
        # The first trick of the new game: someone has their cards to play.
        assert "Trick 1 of" in (board(fake, service, group, new.id).text or "") or any(
            action_buttons(u.last_message()) for u in (anna, boris, vera))


async def test_in_russian_a_player_declines_another_is_silent(
    fake: FakeTelegram, service: GameService, clock: FakeClock
) -> None:
    anna, boris, vera = players(fake, "ru", base=6200)[:3]
    group = fake.create_group("Ещё раз", [anna, boris, vera])
    app = make_app(fake, service)
    async with fake.running(app):
        service.set_chat_locale(group.id, "ru")
        old = await start_with_bots(app, service, [anna, boris, vera], group, bots=1,
                                    seed=12, options={"years": 1})
        await play_to_the_end(service, old, [anna, boris, vera])
        await anna.tap(board(fake, service, group, old), "🔁 Сыграть ещё")
        lobby = fake.last_message(group)
        assert lobby is not None and "Реванш" in (lobby.text or "")
        # Boris declines (Leave): his seat is free; Vera says nothing.
        await boris.tap(lobby, "Выйти")
        game = service.games_in_chat(group.id)[0]
        assert [i.user_id for i in game.invitations] == [vera.id]
        refused = await anna.tap(fake.message(group, lobby.message_id), "Начать ▶")
        assert refused is not None and refused.show_alert
        assert service.game_info(game.id).status == "lobby"
        # The time per move runs out: Anna starts, bots take the free seats.
        clock.advance(timedelta(days=1, seconds=1))
        await anna.tap(fake.message(group, lobby.message_id), "Начать ▶")
        info = service.game_info(game.id)
        assert info.status == "active"
        assert [s.user_id for s in info.seats if s.user_id] == [anna.id]
        # /help says how, in two lines.
        await anna.send(group, "/help")
        text = fake.last_message(group).text or ""  # type: ignore[union-attr]
        assert "🔁 Сыграть ещё (на итоговой доске)" in text
        assert "/notify on|off — сообщать в личный чат" in text


async def test_new_game_notices_respect_quiet_hours_and_go_out_once(
    fake: FakeTelegram, service: GameService, clock: FakeClock
) -> None:
    anna, boris, vera, gleb = players(fake, base=6300)
    dasha = fake.user(6310, "Dasha", language_code="ru")
    egor = fake.user(6311, "Egor", language_code="en")
    group = fake.create_group("Notices", [anna, boris, vera, gleb, dasha, egor])
    app = make_app(fake, service)
    relay = app.bot_data[DEPS_KEY].relay
    async with fake.running(app):
        for u in (anna, boris, vera, gleb, dasha):
            await u.start_bot()
        # Subscribed by command (Anna, Vera, Dasha) and by the lobby's button (Gleb, Egor).
        for u in (anna, vera, dasha):
            await u.send(group, "/notify on")
        # (Each in their own language: Dasha's in Russian.)
        assert "я напишу вам в личный чат" in (fake.last_message(group).text or "")  # type: ignore[union-attr]
        # Vera sleeps now (it is 09:00 UTC): 08:00-12:00 in London.
        service.set_quiet_hours(vera.id, "Europe/London", "08:00", "12:00")
        await boris.send(group, "/newgame")
        lobby = fake.last_message(group)
        assert lobby is not None
        answer = await gleb.tap(lobby, "🔔 Tell me about new games here")
        assert answer is not None and "new game opens here" in (answer.text or "")
        # Egor never opened a private chat: the tap takes him there, quietly.
        answer = await egor.tap(lobby, "🔔 Tell me about new games here")
        assert answer is not None and answer.url and "start=" in answer.url
        # By command too: the answer carries the way to the private chat.
        await egor.send(group, "/notify on")
        reply = fake.last_message(group)
        assert reply is not None and "Open a private chat with me first" in (reply.text or "")
        assert "✉️ Private chat" in reply.button_texts
        await boris.send(group, "/abort")
        await boris.tap(fake.last_message(group), "Yes, call it off")  # type: ignore[arg-type]
        seen = {u.id: len(u.private_messages()) for u in (anna, vera, gleb, dasha, egor)}
        # Anna opens the next lobby: Dasha (in Russian) and Gleb hear of it, not Anna.
        await anna.send(group, "/newgame")
        await relay.drain()
        told = [m for m in dasha.private_messages() if "Открыта новая партия" in (m.text or "")]
        assert len(told) == 1 and "Notices" in (told[0].text or "")
        assert any("A new game is open" in (m.text or "") for m in gleb.private_messages())
        assert len(anna.private_messages()) == seen[anna.id]
        assert len(vera.private_messages()) == seen[vera.id]  # asleep
        assert not egor.private_messages()
        # Gleb joins from his notice: one tap, the group's lobby shows him.
        notice = next(m for m in gleb.private_messages() if "A new game is open" in (m.text or ""))
        data = next(b.data for row in notice.buttons for b in row if b.data)
        assert data is not None
        answer = await gleb.tap(notice, "Join")
        assert answer is not None and "You have a seat" in (answer.text or "")
        game = service.games_in_chat(group.id)[0]
        assert game.seat_of(gleb.id) is not None
        assert not gleb.fake.message(gleb.id, notice.message_id).buttons  # done its work
        assert "Gleb" in (fake.last_message(group).text or "")  # type: ignore[union-attr]
        # Join from afar is for those told of the game: a forged one by Boris is refused.
        home = boris.last_message()
        assert home is not None
        forged = await boris.tap(home, data, force=True)
        assert forged is not None and forged.show_alert
        assert service.game_info(game.id).seat_of(boris.id) is None
        # Nobody is told twice, whatever happens to the lobby.
        await vera.send(group, "/join")
        await vera.send(group, "/leave")
        await relay.drain()
        assert len([m for m in dasha.private_messages()
                    if "Открыта новая партия" in (m.text or "")]) == 1
        # Vera's night ends: her notice comes then, the lobby being still open.
        clock.advance(timedelta(hours=3, minutes=1))
        await relay.drain()
        assert any("A new game is open" in (m.text or "") for m in vera.private_messages())
        # /notify off stops them.
        await dasha.send(group, "/notify off")
        assert "Готово" in (fake.last_message(group).text or "")  # type: ignore[union-attr]
        await anna.send(group, "/help")
        text = fake.last_message(group).text or ""  # type: ignore[union-attr]
        assert "/notify on|off — a private message when a new game opens here" in text
        assert "🔁 Play again (on the final board)" in text


async def test_a_rematch_reopens_the_topic_the_last_game_had_of_its_own(
    fake: FakeTelegram, service: GameService
) -> None:
    users = players(fake, base=6400)
    group = fake.create_group("Forum", users, forum=True, bot_admin=True)
    async with fake.running(make_app(fake, service)):
        for u in users:
            await u.start_bot()
        await users[0].send(group, "/newgame years=1")
        [created] = fake.calls("createForumTopic", ok=True)
        topic = int(created.result["message_thread_id"])
        game = service.games_in_chat(group.id, topic)[0]
        lobby = fake.message(group, int(game.meta["board"]))
        for u in users[1:]:
            await u.tap(fake.message(group, lobby.message_id), "Join")
        await users[0].tap(fake.message(group, lobby.message_id), "Start ▶")
        await play_to_the_end(service, game.id, users)
        assert fake.topic(group, topic).closed
        await users[2].tap(board(fake, service, group, game.id), "🔁 Play again")
        assert not fake.topic(group, topic).closed
        new = service.games_in_chat(group.id, topic)[0]
        assert new.id != game.id and new.meta.get("topic:own") is True
        lobby = fake.topic_messages(group, topic)[-1]
        assert "A rematch! Waiting for" in (lobby.text or "")
