"""Helpers for end-to-end bot tests: play by buttons, and scan everything the bot sent for
cards its readers may not see."""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine import Game
from engine.cards import CARD_TEXT
from kolkhoz_tg import present
from kolkhoz_tg.bot.context import DEPS_KEY
from kolkhoz_tg.i18n import translator
from kolkhoz_tg.present import full_rules
from kolkhoz_tg.service import GameService
from tests.faketg import FakeChat, FakeTelegram, FakeUser, StoredMessage

TEXT_METHODS = ("sendMessage", "editMessageText", "editEphemeralMessageText", "sendRichMessage")
RULES_TEXTS = frozenset(part for lang in ("ru", "en") for part in full_rules(lang) or [])


def call_text(params: dict[str, Any]) -> str:
    """What a text call shows: its ``text``, and the html of a ``rich_message`` (Bot API
    10.1: ``sendRichMessage``, ``editMessageText``) as its reader reads it."""
    text = str(params.get("text", ""))
    rich = params.get("rich_message")
    if rich is not None:
        value = json.loads(rich) if isinstance(rich, str) else rich
        text += "\n" + html.unescape(str(value.get("html", "")))
    return text


def action_buttons(msg: StoredMessage | None) -> list[str]:
    """Callback data of the action buttons on a message (``a:…``)."""
    if msg is None:
        return []
    return [b.data for row in msg.buttons for b in row if b.data and b.data.startswith("a:")]


def data_of(msg: StoredMessage, suffix: str) -> str:
    """The callback data of the message's first button whose data ends with ``suffix``."""
    return next(b.data for row in msg.buttons for b in row if b.data and b.data.endswith(suffix))


def said(user: FakeUser) -> str:
    """The text of the newest message the user got ("" if none)."""
    msg = user.last_message()
    return "" if msg is None else msg.text or ""


def move_message(user: FakeUser) -> StoredMessage | None:
    """The newest bot message in the private chat that offers a move."""
    return next((m for m in reversed(user.private_messages()) if action_buttons(m)), None)


def shown(cards: set[int]) -> set[str]:
    """How cards look in messages: ``10♥``, ``Q♠`` in English and ``Д♠`` in Russian."""
    return {present.card(translator(locale), CARD_TEXT[c])
            for c in cards for locale in ("en", "ru")}


def secret_for(game: Game, seat: int | None) -> set[int]:
    """Cards the reader (a seat, or None for the group) may not see now. Once the game is
    over, scoring shows every plot."""
    if game.is_over:
        return set()
    hidden: set[int] = set(game.deck)
    for pile in game.reward_piles:
        hidden.update(pile)
    for s in range(game.n):
        if s == seat:
            continue
        hidden.update(game.hands[s])
        hidden.update(c for c in game.plots[s] if c not in game.face_up)
    if seat is not None:
        # pass_cards: the card a seat passed this year is its to know, wherever it is now.
        sent = game.pass_sent(seat)
        if sent is not None:
            hidden.discard(sent)
    return hidden


def _secrets_since(service: GameService, game_id: int, moves: int,
                   readers: list[int | None]) -> tuple[dict[int | None, set[int]], int]:
    """For each reader, the cards hidden from them in every state of the game from the one
    after ``moves`` moves to now (what no message sent meanwhile may show), and the number
    of moves now. Bots that think after the commit (search levels) move the game on between
    two scans, and a card on the board a move ago (a trick, say) may be face-down by now:
    a message is judged against every state it can have been made for."""
    info = service.game_info(game_id)
    log = service.action_log(game_id)
    seed: int | str = int(info.seed) if info.seed.isdigit() else info.seed
    game = Game.new(info.rules, info.players, seed)
    hidden: dict[int | None, set[int]] = {}
    for k in range(len(log) + 1):
        if k >= moves:
            for reader in readers:
                now = secret_for(game, reader)
                hidden[reader] = now if reader not in hidden else hidden[reader] & now
        if k < len(log):
            game.apply(log[k]["seat"], log[k]["action"])
    return hidden, len(log)


@dataclass
class LeakScanner:
    """Checks every Bot API call made since the last scan against each state of the game
    since then (see :func:`_secrets_since`)."""

    fake: FakeTelegram
    service: GameService
    group: FakeChat
    users: list[FakeUser]
    seen: int = 0
    scanned: int = 0
    leaks: list[str] = field(default_factory=list)
    inline_seen: set[str] = field(default_factory=set)
    moves: int = 0

    def scan(self, game_id: int) -> None:
        calls = self.fake.sent_log[self.seen :]
        self.seen = len(self.fake.sent_log)
        if self.service.snapshot(game_id) is None:
            return
        info = self.service.game_info(game_id)
        seat_of = {u.id: info.seat_of(u.id) for u in self.users}
        hidden, self.moves = _secrets_since(self.service, game_id, self.moves,
                                            [None, *range(info.players)])
        for call in calls:
            if call.method not in TEXT_METHODS or not call.ok:
                continue
            text = call_text(call.params)
            if text in RULES_TEXTS:
                continue  # the players' rules: their worked examples name cards
            chat = call.params.get("chat_id")
            inline_id = call.params.get("inline_message_id")
            posted = self.fake.inline_messages.get(str(inline_id)) if inline_id else None
            if posted is not None and posted.history and posted.history[0][0]:
                # An edit of a move chosen inline (a ✅): what the player's choice posted
                # was public when Telegram posted it, before the move could end the year.
                text = text.removeprefix(posted.history[0][0])
            receiver = call.params.get("receiver_user_id")
            if receiver is not None:  # an ephemeral message: its receiver alone reads it
                reader: int | None = seat_of.get(int(receiver))
            elif inline_id or str(chat) == str(self.group.id):
                reader = None
            else:
                reader = seat_of.get(int(chat)) if chat is not None else None
            self.scanned += 1
            for card in shown(hidden[reader]):
                if card in text:
                    self.leaks.append(f"{call.method} to {chat}: {card} in {text!r}")
        for record in self.fake.inline_queries.values():
            if record.id in self.inline_seen:
                continue
            self.inline_seen.add(record.id)
            for result in record.results or []:
                user_seat = seat_of.get(record.user_id)
                title = str(result.get("title", ""))
                for card in shown(hidden[user_seat]):
                    if card in title:
                        self.leaks.append(f"inline result for {record.user_id}: {title}")


async def tap_any_action(users: list[FakeUser]) -> bool:
    """The first user with an action button taps its first one; False if nobody can."""
    for user in users:
        msg = user.last_message()
        buttons = action_buttons(msg)
        if buttons and msg is not None:
            await user.tap(msg, buttons[0])
            return True
    return False


def group_texts(fake: FakeTelegram, group: FakeChat) -> list[str]:
    return [m.text or "" for m in fake.messages(group)]


NAMES = ["Anna", "Boris", "Vera", "Gleb"]


async def open_lobby(
    fake: FakeTelegram, service: GameService, user: FakeUser, group: FakeChat
) -> tuple[StoredMessage, int]:
    """``user`` sends /newgame in ``group``: the lobby message and the game's id."""
    await user.send(group, "/newgame")
    lobby = fake.last_message(group)
    assert lobby is not None
    return lobby, service.games_in_chat(group.id)[0].id


async def open_game(
    fake: FakeTelegram, users: list[FakeUser], group: FakeChat, command: str = "/newgame",
    before_start: Callable[[], object] | None = None,
) -> int:
    """Everyone opens the private chat, the first user opens a game, the rest join by
    button, (``before_start()``, e.g. to inject faults) the creator starts it. Returns the
    game id."""
    for u in users:
        await u.start_bot()
    await users[0].send(group, command)
    lobby = fake.last_message(group)
    assert lobby is not None
    join = lobby.buttons[0][0].text
    for u in users[1:]:
        await u.tap(fake.message(group, lobby.message_id), join)
    lobby = fake.message(group, lobby.message_id)
    for u in users:
        assert u.first_name in (lobby.text or "")
    start = [b for row in lobby.buttons for b in row if b.data and b.data.endswith(":start")]
    if before_start is not None:
        before_start()
    await users[0].tap(lobby, start[0].text)
    data = start[0].data
    assert data is not None
    return int(data.split(":")[1], 36)


async def start_with_bots(
    app: Any, service: GameService, humans: list[FakeUser], group: FakeChat,
    bots: int = 2, level: str = "normal", seed: int | None = None,
    options: dict[str, Any] | None = None,
) -> int:
    """A game of ``humans`` and ``bots`` bots of ``level`` in ``group`` (rule ``options``
    changed: house rules), set up through the service and shown by the running ``app``
    (board pinned, everyone's first message). Returns the game id."""
    d = app.bot_data[DEPS_KEY]
    for u in humans:
        await u.start_bot()
    info = service.create_game(group.id, humans[0].id, creator_name=humans[0].first_name,
                               seed=seed, options=options)
    for u in humans[1:]:
        service.join(info.id, u.id, u.first_name)
    for _ in range(bots):
        service.add_ai_player(info.id, humans[0].id, level=level)
    result = service.start(info.id, humans[0].id)
    await d.deliverer.refresh_board(info.id, resend=True, pin=True)
    await d.deliverer.deliver(result.notifications, scene=result.scene)
    return info.id


def move_without_the_bot(service: GameService, game_id: int, users: list[FakeUser],
                         moves: int = 1) -> None:
    """Make ``moves`` moves through the service alone, as another front end would while the
    bot is down: the outbox owes their messages."""
    for _ in range(moves):
        who = next(u for u in users if service.seat_view(game_id, u.id).to_act)
        sv = service.seat_view(game_id, who.id)
        assert service.act(game_id, who.id, sv.legal[0], sv.game.version).ok


def players(fake: FakeTelegram, lang: str = "en", base: int = 1000) -> list[FakeUser]:
    """Anna, Boris, Vera and Gleb, with user ids from ``base``."""
    return [fake.user(base + i, n, language_code=lang) for i, n in enumerate(NAMES)]
