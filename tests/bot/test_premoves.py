"""Moves queued ahead through the real application on the fake Telegram, in English and in
Russian: a whole game where everyone queues their card and each trick completes on the
leader's one tap; a queued card made illegal by the lead; queueing shows nothing to anyone
else; ``/premove``; the Brigadier's ⚡ "assign for me"."""

from __future__ import annotations

from typing import Any

import pytest

from engine import Phase
from kolkhoz_tg import present
from kolkhoz_tg.bot.context import DEPS_KEY
from kolkhoz_tg.i18n import translator
from kolkhoz_tg.service import GameService
from tests.bot.conftest import make_app
from tests.bot.driver import LeakScanner, open_game, players, start_with_bots
from tests.faketg import FakeTelegram, FakeUser, StoredMessage
from tests.helpers import until

#: A deal whose first lead leaves the next player a card to follow with and one not to.
SEED = 3


def queue_buttons(msg: StoredMessage | None) -> dict[str, str]:
    """The ⏭ buttons on a message: their action text → callback data."""
    if msg is None:
        return {}
    return {b.data.split(":", 3)[3]: b.data for row in msg.buttons for b in row
            if b.data and b.data.startswith("q:") and not b.data.endswith((":auto:1",
                                                                            ":auto:0"))}


def game_message(user: FakeUser) -> StoredMessage:
    """The user's newest private message from the bot that carries buttons."""
    msg = next((m for m in reversed(user.private_messages()) if m.buttons and not m.deleted),
               None)
    assert msg is not None, f"{user.first_name} has no game message"
    return msg


def group_calls(fake: FakeTelegram, chat_id: int) -> int:
    return sum(1 for c in fake.sent_log
               if str(c.params.get("chat_id")) == str(chat_id) and c.method != "getChatMember")


def _user_at(service: GameService, game_id: int, users: list[FakeUser], seat: int) -> FakeUser:
    info = service.game_info(game_id)
    return next(u for u in users if info.seat_of(u.id) == seat)


def _choose(hand: list[str], lead: str) -> str:
    """A card that will be legal after ``lead``: of the led suit when the hand has one."""
    same = [c for c in hand if c[-1] == lead[-1]]
    return (same or hand)[0]


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_a_whole_game_where_everyone_queues_ahead(
    fake: FakeTelegram, service: GameService, lang: str
) -> None:
    users = players(fake, lang)
    group = fake.create_group("Dacha", users)
    async with fake.running(make_app(fake, service)):
        game_id = await open_game(fake, users, group)
        scanner = LeakScanner(fake, service, group, users)
        board_id = service.game_info(game_id).meta["board"]
        tricks = move_taps_in_tricks = queue_taps = 0
        for _ in range(400):
            board = service.board(game_id)
            if board.game.status != "active":
                break
            view = board.view
            assert view is not None
            seat = view.to_act[0]
            user = _user_at(service, game_id, users, seat)
            msg = game_message(user)
            if view.phase is Phase.ASSIGN:
                # The Brigadier's first trick: ⚡ places this one and every later one.
                await user.tap(msg, next(b.data for row in msg.buttons for b in row
                                         if b.data and b.data.endswith(":auto:1")))
                assert service.board(game_id).view.phase is not Phase.ASSIGN  # type: ignore[union-attr]
                continue
            if view.phase is not Phase.PLAY or view.trick:
                # The trump, a swap: one tap, as without queues.
                await user.tap(msg, next(b.data for row in msg.buttons for b in row
                                         if b.data and b.data.startswith("a:")))
                continue
            # A trick begins: the three others queue their card, then the leader taps.
            lead = service.seat_view(game_id, user.id).legal[0]
            lead_card = lead.split(":")[1]
            before_queue = group_calls(fake, group.id)
            version = service.game_info(game_id).version
            queued = {}
            for other in users:
                if other is user:
                    continue
                sv = service.seat_view(game_id, other.id)
                hand = [str(c) for c in sv.view.players[sv.seat].hand]
                card = _choose(hand, lead_card)
                buttons = queue_buttons(game_message(other))
                assert f"play:{card}" in buttons, (other.first_name, buttons)
                await other.tap(game_message(other), buttons[f"play:{card}"])
                queue_taps += 1
                assert "✅" in str(game_message(other).buttons)
                queued[sv.seat] = card
            # Queueing told the group nothing and moved no version (no button went stale).
            assert group_calls(fake, group.id) == before_queue
            assert service.game_info(game_id).version == version
            plays_before = sum(1 for m in service.action_log(game_id)
                               if m["action"].startswith("play:"))
            await user.tap(msg, next(b.data for row in msg.buttons for b in row
                                     if b.data == _data_for(msg, lead)))
            move_taps_in_tricks += 1
            tricks += 1
            # The leader's one tap completed the trick: four cards, one transaction.
            log = service.action_log(game_id)
            plays = [m for m in log if m["action"].startswith("play:")]
            # (Forced cards may follow: a year's last trick, each with one card left.)
            assert len(plays) >= plays_before + 4
            trick = plays[plays_before : plays_before + 4]
            assert {m["seat"]: m["action"] for m in trick[1:]} == {
                s: f"play:{c}" for s, c in queued.items()}
            assert all(m["actor"] == "player" for m in trick)
            assert service.game_info(game_id).version == version + 1
            # Each queuer's own message says the card went (and shows the hand without it).
            done = "Made as you queued it" if lang == "en" else "Сделано, как вы выбрали заранее"
            over = service.game_info(game_id).status != "active"  # (the final word instead)
            for seat, card in ({} if over else queued).items():
                queuer = _user_at(service, game_id, users, seat)
                texts = [m.text or "" for m in queuer.private_messages()[-3:]]
                shown = f"{done}: {present.card(translator(lang), card)}."
                assert any(shown in t for t in texts), (queuer.first_name, texts[-1])
            scanner.scan(game_id)
        assert service.game_info(game_id).status == "finished"
        assert tricks > 10
        # One human tap per trick; the others' cards were queued while they waited.
        assert move_taps_in_tricks == tricks and queue_taps == 3 * tricks
        await until(lambda: fake.message(group, board_id).edits > 10, "the board's edits")
        assert scanner.scanned > 50
        assert not scanner.leaks, scanner.leaks[:5]


def _data_for(msg: StoredMessage, action: str) -> str:
    return next(b.data for row in msg.buttons for b in row
                if b.data and b.data.startswith("a:") and b.data.endswith(":" + action))


async def _first_trick(
    fake: FakeTelegram, service: GameService, lang: str, app: Any, seed: int = SEED
) -> tuple[int, list[FakeUser], FakeUser]:
    """A game of four at its first lead: the game, the users, the leader."""
    users = players(fake, lang)
    group = fake.create_group("Dacha", users)
    game_id = await start_with_bots(app, service, users, group, bots=0, seed=seed)
    for _ in range(10):
        view = service.board(game_id).view
        assert view is not None
        user = _user_at(service, game_id, users, view.to_act[0])
        if view.phase is Phase.PLAY:
            return game_id, users, user
        msg = game_message(user)
        await user.tap(msg, next(b.data for row in msg.buttons for b in row
                                 if b.data and b.data.startswith("a:")))
    raise AssertionError("no first trick")


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_a_queued_card_made_illegal_by_the_lead_is_dropped(
    fake: FakeTelegram, service: GameService, lang: str
) -> None:
    async with fake.running(make_app(fake, service)) as app:
        game_id, users, leader = await _first_trick(fake, service, lang, app)
        lead_sv = service.seat_view(game_id, leader.id)
        nxt_seat = (lead_sv.seat + 1) % 4
        nxt = _user_at(service, game_id, users, nxt_seat)
        hand = [str(c) for c in service.seat_view(game_id, nxt.id).view.players[nxt_seat].hand]
        # A lead whose suit the next player holds (twice if possible: then the drop leaves
        # them a choice; once, their only card of it is played for them), and a queued card
        # of another suit.
        leads = sorted((a for a in lead_sv.legal if any(c[-1] == a[-1] for c in hand)
                        and any(c[-1] != a[-1] for c in hand)),
                       key=lambda a: -sum(c[-1] == a[-1] for c in hand))
        lead = leads[0]
        choice = sum(c[-1] == lead[-1] for c in hand) > 1
        wrong = next(c for c in hand if c[-1] != lead[-1])
        msg = game_message(nxt)
        await nxt.tap(msg, queue_buttons(msg)[f"play:{wrong}"])
        queued_text = game_message(nxt).text or ""
        assert ("Queued for your turn" if lang == "en" else "Выбрано заранее") in queued_text
        await leader.tap(game_message(leader), _data_for(game_message(leader), lead))
        # Not played: the player is asked as usual, with one line saying why.
        assert service.seat_view(game_id, nxt.id).to_act == choice
        asked = game_message(nxt)
        text = asked.text or ""
        suit = {"H": "♥", "D": "♦", "C": "♣", "S": "♠"}[lead[-1]]
        if lang == "en":
            assert "was not made: You must follow the led suit " + suit in text
        else:
            assert "не сделан: Нужно отвечать в масть хода: " + suit in text
        assert any(b.data and b.data.startswith("a:") for row in asked.buttons
                   for b in row) == choice


async def test_premove_typed_and_cancelled(fake: FakeTelegram, service: GameService) -> None:
    async with fake.running(make_app(fake, service)) as app:
        game_id, users, leader = await _first_trick(fake, service, "en", app)
        other = next(u for u in users if u is not leader)
        seat = service.game_info(game_id).seat_of(other.id)
        assert seat is not None
        card = str(service.seat_view(game_id, other.id).view.players[seat].hand[0])
        group = fake.chat(service.game_info(game_id).chat_id)
        await other.send(group, f"/premove {card}")
        assert "in private" in (fake.last_message(group).text or "")  # type: ignore[union-attr]
        assert service.seat_view(game_id, other.id).premove.queued is None
        await other.send(other, f"/premove {card}")
        assert service.seat_view(game_id, other.id).premove.queued == f"play:{card}"
        assert "Queued for your turn" in (other.last_message().text or "")  # type: ignore[union-attr]
        await other.send(other, "/premove off")
        assert service.seat_view(game_id, other.id).premove.queued is None
        assert "cancelled in 1 game" in (other.last_message().text or "")  # type: ignore[union-attr]
        await other.send(other, "/premove ZZ")
        assert "/premove off" in (other.last_message().text or "")  # type: ignore[union-attr]




@pytest.mark.parametrize(("lang", "words"), [
    ("en", ("/premove 9H, /premove off", "let the bot place your tricks")),
    ("ru", ("/premove 9ч, /premove off", "поручить боту раскладывать ваши взятки")),
])
async def test_help_explains_queued_moves(
    fake: FakeTelegram, service: GameService, lang: str, words: tuple[str, str]
) -> None:
    user = fake.user(500, "Anna", language_code=lang)
    async with fake.running(make_app(fake, service)):
        await user.start_bot()
        await user.send(user, "/help")
        text = user.last_message().text or ""  # type: ignore[union-attr]
        assert all(w in text for w in words), text


async def test_swaps_queued_while_the_planner_chooses(
    fake: FakeTelegram, service: GameService
) -> None:
    """Year 2 of "kolkhoz" (swaps): while the Planner chooses the trump, the others tap
    "⏭ Keep my cards" or a swap; the Planner's trump tap makes their swaps at once."""
    users = players(fake, "en")
    group = fake.create_group("Dacha", users)
    async with fake.running(make_app(fake, service)) as app:
        for u in users:
            await u.start_bot()
        info = service.create_game(group.id, users[0].id, creator_name="Anna", seed=SEED,
                                   preset="kolkhoz")
        for u in users[1:]:
            service.join(info.id, u.id, u.first_name)
        service.start(info.id, users[0].id)
        for u in users:
            service.set_auto_assign(info.id, u.id, True)
        for _ in range(200):  # the first year, through the service alone
            view = service.board(info.id).view
            assert view is not None
            if view.year == 2:
                break
            who = _user_at(service, info.id, users, view.to_act[0])
            sv = service.seat_view(info.id, who.id)
            assert service.act(info.id, who.id, sv.legal[0], sv.game.version).ok
        view = service.board(info.id).view
        assert view is not None and view.phase is Phase.TRUMP
        d = app.bot_data[DEPS_KEY]
        for u in users:
            await d.deliverer.refresh_private(info.id, u.id, new=True)
        planner = _user_at(service, info.id, users, view.to_act[0])
        chosen = {}
        for u in users:
            if u is planner:
                assert not queue_buttons(game_message(u))  # deciding the trump now
                continue
            buttons = queue_buttons(game_message(u))
            swaps = sorted(a for a in buttons if a != "swap:pass")
            action = swaps[0] if swaps and u is users[0] else "swap:pass"
            await u.tap(game_message(u), buttons[action])
            chosen[service.game_info(info.id).seat_of(u.id)] = action
            assert "✅" in str(game_message(u).buttons)
        msg = game_message(planner)
        await planner.tap(msg, next(b.data for row in msg.buttons for b in row
                                    if b.data and b.data.startswith("a:") and ":trump:" in b.data))
        made = {m["seat"]: m["action"] for m in service.action_log(info.id)
                if m["action"].startswith("swap")}
        assert {s: made[s] for s in chosen} == chosen
        # Only the Planner still has the swap to decide.
        after = service.board(info.id).view
        assert after is not None and after.phase is Phase.SWAP
        assert after.to_act == (service.game_info(info.id).seat_of(planner.id),)
