"""Deliver the service's notifications to Telegram: edit the board, write to players.

The service writes every notification to its outbox in the same transaction as the change;
this module renders them for their readers and marks them delivered. A notification whose
message cannot be delivered for a lasting reason (the user blocked the bot) falls back to a
mention in the group and is marked delivered; a passing failure (network, flood control
beyond the rate limiter's retries) leaves it in the outbox for the next flush.

What goes where (UX.md): the board is one group message edited in place; a player's private
message for a game is edited while they keep deciding and sent anew when a new turn comes
(so Telegram notifies them), the old one deleted; new group messages only for the year's
summary, the final table, and a "your turn" mention for a player the bot cannot reach.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import logging
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup
from telegram.constants import ParseMode
from telegram.error import BadRequest, ChatMigrated, Forbidden, TelegramError

from kolkhoz_tg import texts
from kolkhoz_tg.bot import render
from kolkhoz_tg.i18n import Translator, translator
from kolkhoz_tg.service import GameService, Kind, NotFound, Notification, ServiceError

log = logging.getLogger(__name__)
T = TypeVar("T")

BOARD_KEY = "board"
#: Set on a game paused because the bot was removed from its group; the game goes on by
#: itself when the bot is added back (a pause or resume by hand clears it).
ABSENT_KEY = "paused:bot_removed"
RECENT_LINES = 3
GROUP_KINDS = {
    Kind.LOBBY, Kind.GAME_STARTED, Kind.BOARD, Kind.PLAYER_BACK, Kind.STAND_IN, Kind.PAUSED,
    Kind.RESUMED, Kind.ABORTED, Kind.GAME_OVER, Kind.YEAR_SUMMARY,
}


def pm_key(user_id: int) -> str:
    return f"pm:{user_id}"


def markup(keyboard: render.Keyboard) -> InlineKeyboardMarkup | None:
    """Telegram markup for render's plain buttons (None for no buttons)."""
    if not keyboard:
        return None
    rows = []
    for row in keyboard:
        buttons = []
        for b in row:
            if b.url is not None:
                buttons.append(InlineKeyboardButton(b.text, url=b.url))
            elif b.inline_query is not None:
                buttons.append(
                    InlineKeyboardButton(b.text, switch_inline_query_current_chat=b.inline_query)
                )
            else:
                buttons.append(InlineKeyboardButton(b.text, callback_data=b.data))
        rows.append(buttons)
    return InlineKeyboardMarkup(rows)


def _board_events(notes: list[Notification]) -> set[str]:
    """The kinds of event the group notifications report (GAME_STARTED counts as a new
    year: everyone has a fresh hand)."""
    kinds: set[str] = set()
    for note in notes:
        if note.user_id is not None:
            continue
        if note.kind is Kind.GAME_STARTED:
            kinds.add("YearStarted")
        elif note.kind is Kind.BOARD:
            kinds.update(e["type"] for m in note.data.get("moves", []) for e in m["events"])
    return kinds


def is_not_modified(error: BadRequest) -> bool:
    return "not modified" in error.message.lower()


@dataclass
class Acting:
    """The private message a player just tapped: their next decision edits it in place."""

    user_id: int
    chat_id: int
    message_id: int


class Deliverer:
    """Renders notifications for their readers and sends them; see the module docstring."""

    def __init__(
        self,
        bot: Bot,
        service: GameService,
        bot_username: Callable[[], str],
    ) -> None:
        self.bot = bot
        self.service = service
        self._username = bot_username
        self._locks: dict[int, asyncio.Lock] = defaultdict(asyncio.Lock)

    # ------------------------------------------------------------------ plumbing

    async def call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        return await asyncio.to_thread(fn, *args, **kwargs)

    def now(self) -> datetime:
        return self.service.clock.now()

    def tr_chat(self, chat_id: int) -> Translator:
        return translator(self.service.locale_for(chat_id=chat_id))

    def tr_user(self, user_id: int, chat_id: int | None = None) -> Translator:
        return translator(self.service.locale_for(user_id=user_id, chat_id=chat_id))

    # ------------------------------------------------------------------ entry points

    async def flush(self, limit: int = 200) -> int:
        """Deliver what the outbox still owes (after a restart, or after a failure)."""
        pending = await self.call(self.service.pending_notifications, limit)
        await self.deliver(pending)
        return len(pending)

    async def deliver(
        self, notes: Iterable[Notification], acting: Acting | None = None
    ) -> None:
        by_game: dict[int | None, list[Notification]] = defaultdict(list)
        for note in notes:
            by_game[note.game_id].append(note)
        for game_id, group in by_game.items():
            if game_id is None:
                continue
            async with self._locks[game_id]:
                done = await self._deliver_game(game_id, group, acting)
            if done:
                await self.call(self.service.mark_delivered, done)

    # ------------------------------------------------------------------ one game

    async def _deliver_game(
        self, game_id: int, notes: list[Notification], acting: Acting | None
    ) -> list[int]:
        try:
            info = await self.call(self.service.game_info, game_id)
        except NotFound:
            return [n.id for n in notes]
        delivered: list[int] = []
        try:
            if any(n.user_id is None and n.kind in GROUP_KINDS for n in notes):
                await self.refresh_board(game_id, recent=await self._recent(info.chat_id, notes))
            for note in notes:
                if note.user_id is None:
                    await self._group_note(info.chat_id, note)
                delivered.append(note.id)
            turn_users: list[int] = []
            humans = [s.user_id for s in info.seats if s.user_id is not None]
            happened = _board_events(notes)
            if "YearStarted" in happened:
                # A new year (or the start): everyone gets their fresh hand, not only the
                # player who must act first.
                turn_users = list(humans)
            for note in notes:
                if note.user_id is None:
                    continue
                if note.kind is Kind.YOUR_TURN:
                    if note.user_id not in turn_users:
                        turn_users.append(note.user_id)
                elif note.kind in (Kind.TIMED_OUT, Kind.STAND_IN, Kind.REMINDER):
                    await self._user_note(info.chat_id, note)
            for user_id in turn_users:
                edit = acting is not None and acting.user_id == user_id
                await self.refresh_private(game_id, user_id, new=not edit, acting=acting)
            # Whoever just tapped sees the result in the same message even when their turn
            # is over (their hand changed); once trump is declared, everyone's message
            # shows it (edited, no notification).
            edit_users = [u for u in humans if u not in turn_users] if (
                "TrumpDeclared" in happened) else []
            if acting is not None and acting.user_id not in turn_users + edit_users:
                edit_users.append(acting.user_id)
            for user_id in edit_users:
                await self.refresh_private(game_id, user_id, new=False, acting=acting)
        except TelegramError as e:
            # Passing trouble (network, flood beyond the retries): the rest waits in the
            # outbox for the next flush.
            log.warning("delivery for game %s interrupted: %s", game_id, e)
            return delivered
        return [n.id for n in notes]

    async def _send_group(
        self, chat_id: int, text: str, keyboard: render.Keyboard | None = None,
        parse_mode: str | None = None,
    ) -> int | None:
        try:
            msg = await self.bot.send_message(
                chat_id, text, reply_markup=markup(keyboard or []), parse_mode=parse_mode
            )
        except ChatMigrated as e:
            await self.call(self.service.migrate_chat, chat_id, e.new_chat_id)
            msg = await self.bot.send_message(
                e.new_chat_id, text, reply_markup=markup(keyboard or []), parse_mode=parse_mode
            )
        except Forbidden:
            log.info("the bot is no longer in chat %s", chat_id)
            return None
        return msg.message_id

    async def say_in_group(self, chat_id: int, text: str) -> int | None:
        """A plain message to the group; None if the bot is not there."""
        return await self._send_group(chat_id, text)

    async def tell_players(
        self, game_id: int, say: Callable[[Translator, str], str]
    ) -> list[int]:
        """Write privately to the game's seated players the bot can reach, each in their
        language: ``say(tr, chat_title)`` makes the text. Returns who got it (no group
        mention for the others: this is for when the group is out of reach)."""
        info = await self.call(self.service.game_info, game_id)
        chat = await self.call(self.service.chat, info.chat_id)
        title = chat.title if chat and chat.title else str(info.chat_id)
        told = []
        for seat in info.seats:
            if seat.user_id is None or seat.is_bot:
                continue
            user = await self.call(self.service.user, seat.user_id)
            if user is None or not user.can_pm:
                continue
            tr = await self.call(self.tr_user, seat.user_id, info.chat_id)
            try:
                sent = await self._send_private(seat.user_id, say(tr, title))
            except TelegramError as e:
                log.info("could not tell user %s about game %s: %s", seat.user_id, game_id, e)
                continue
            if sent is not None:
                told.append(seat.user_id)
        return told

    async def _group_note(self, chat_id: int, note: Notification) -> None:
        tr = await self.call(self.tr_chat, chat_id)
        if note.kind is Kind.YEAR_SUMMARY:
            await self._send_group(chat_id, texts.year_summary(tr, note))
        elif note.kind is Kind.GAME_OVER:
            await self._send_group(chat_id, texts.final_table(tr, note.data))
        elif note.kind is Kind.GAME_STARTED:
            info = await self.call(self.service.game_info, note.game_id)
            board_id = info.meta.get(BOARD_KEY)
            if board_id:
                with contextlib.suppress(TelegramError):
                    await self.bot.pin_chat_message(chat_id, board_id, disable_notification=True)

    async def _user_note(self, chat_id: int, note: Notification) -> None:
        assert note.user_id is not None and note.game_id is not None
        tr = await self.call(self.tr_user, note.user_id, chat_id)
        text = texts.notification_text(tr, note, self.now())
        if note.kind is Kind.TIMED_OUT:
            text += "\n" + tr.gettext("Take your seat back with /back or any button.")
        chat = await self.call(self.service.chat, chat_id)
        title = chat.title if chat and chat.title else str(chat_id)
        text = "🌾 " + tr.gettext("Kolkhoz in «{chat}»", chat=title) + "\n" + text
        sent = await self._send_private(note.user_id, text)
        if not sent and note.kind is Kind.REMINDER and note.data.get("last"):
            await self.mention_in_group(note.game_id, note.user_id)

    async def _send_private(
        self, user_id: int, text: str, keyboard: render.Keyboard | None = None
    ) -> int | None:
        """Send privately; None (and remembered) if the user has not opened or has blocked
        the private chat."""
        try:
            msg = await self.bot.send_message(user_id, text, reply_markup=markup(keyboard or []))
        except Forbidden:
            await self.call(self.service.set_can_pm, user_id, False)
            return None
        except BadRequest as e:
            if "chat not found" in e.message.lower():
                await self.call(self.service.set_can_pm, user_id, False)
                return None
            raise
        return msg.message_id

    # ------------------------------------------------------------------ the board

    async def _recent(self, chat_id: int, notes: list[Notification]) -> list[str]:
        """The last few moves of these notifications, in words, for the board (moves a bot
        made for a silent player are marked as such)."""
        boards = [n for n in notes if n.kind is Kind.BOARD and n.user_id is None]
        if not boards:
            return []
        tr = await self.call(self.tr_chat, chat_id)
        data = boards[-1].data
        # Only this year's moves: a card played last year may since have been dealt again,
        # and a group message must not name a card that now sits in someone's hand.
        moves: list[dict[str, Any]] = []
        for move in data["moves"]:
            events = move["events"]
            starts = [i for i, e in enumerate(events) if e["type"] == "YearStarted"]
            if starts:
                moves = []
                events = events[starts[-1] :]
            moves.append({**move, "events": events})
        lines = texts.event_lines(tr, data["game"], moves, data["view"]["rules"]["theme"])
        return lines[-RECENT_LINES:]

    async def refresh_board(
        self, game_id: int, resend: bool = False, recent: list[str] | None = None
    ) -> int | None:
        """Edit the game's board message (or send it when there is none, or ``resend``);
        ``recent``: lines about the moves that led here."""
        bv = await self.call(self.service.board, game_id)
        chat_id = bv.game.chat_id
        tr = await self.call(self.tr_chat, chat_id)
        msg = render.board(tr, bv, self.now(), self._username(), recent or [])
        board_id = bv.game.meta.get(BOARD_KEY)
        if board_id and not resend:
            try:
                await self.bot.edit_message_text(
                    msg.text, chat_id=chat_id, message_id=board_id,
                    reply_markup=markup(msg.keyboard),
                )
                return int(board_id)
            except BadRequest as e:
                if is_not_modified(e):
                    return int(board_id)
                if "not found" not in e.message.lower():
                    raise
            except Forbidden:
                # Not in the group any more: the board waits for the bot's return (the
                # my_chat_member update pauses the game meanwhile).
                log.info("the bot is no longer in chat %s", chat_id)
                return None
        new_id = await self._send_group(chat_id, msg.text, msg.keyboard)
        if new_id is not None:
            await self.call(self.service.set_meta, game_id, BOARD_KEY, new_id)
            if board_id and resend:
                with contextlib.suppress(TelegramError):
                    await self.bot.delete_message(chat_id, board_id)
        return new_id

    # ------------------------------------------------------------------ private messages

    async def refresh_private(
        self, game_id: int, user_id: int, new: bool, acting: Acting | None = None
    ) -> bool:
        """Show the player their game: a new message (``new``) or an edit of the one they
        last got. Falls back to a group mention with a deep link when the bot cannot write
        to them. Returns whether the private message went out."""
        try:
            sv = await self.call(self.service.seat_view, game_id, user_id)
        except ServiceError:
            return False
        chat = await self.call(self.service.chat, sv.game.chat_id)
        tr = await self.call(self.tr_user, user_id, sv.game.chat_id)
        msg = render.private(tr, sv, chat.title if chat else None, self.now())
        old = sv.game.meta.get(pm_key(user_id))
        target = acting.message_id if acting is not None and acting.user_id == user_id else old
        if target and not new:
            try:
                await self.bot.edit_message_text(
                    msg.text, chat_id=user_id, message_id=target,
                    reply_markup=markup(msg.keyboard),
                )
                if target != old:
                    await self.call(self.service.set_meta, game_id, pm_key(user_id), target)
                return True
            except BadRequest as e:
                if is_not_modified(e):
                    return True
                if "not found" not in e.message.lower():
                    raise
            except Forbidden:
                await self.call(self.service.set_can_pm, user_id, False)
        new_id = await self._send_private(user_id, msg.text, msg.keyboard)
        if new_id is None:
            if sv.to_act:
                await self.mention_in_group(game_id, user_id)
            return False
        await self.call(self.service.set_meta, game_id, pm_key(user_id), new_id)
        if old and old != new_id:
            # The previous message's buttons would only lead to "the game has moved on".
            with contextlib.suppress(TelegramError):
                await self.bot.delete_message(user_id, old)
        return True

    async def mention_in_group(self, game_id: int, user_id: int) -> None:
        """"Your turn" in the group for a player the bot cannot write to, once per turn."""
        info = await self.call(self.service.game_info, game_id)
        key = f"mention:{user_id}"
        if info.meta.get(key) == info.version:
            return
        seat = info.seat_of(user_id)
        if seat is None:
            return
        tr = await self.call(self.tr_chat, info.chat_id)
        name = html.escape(texts.seat_name(tr, info, seat), quote=False)
        link = f'<a href="tg://user?id={user_id}">{name}</a>'
        text = tr.gettext(
            "{name}, it is your move. Open a private chat with me to see your cards.", name=link
        )
        keyboard = [[render.Button("✉️ " + tr.gettext("Open my cards"),
                                   url=render.deep_link(self._username(), game_id))]]
        await self._send_group(info.chat_id, text, keyboard, parse_mode=ParseMode.HTML)
        await self.call(self.service.set_meta, game_id, key, info.version)
