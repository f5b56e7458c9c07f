"""Bots of a level: the chat's level for stand-ins, and the moves of search bots that a
worker thought about off the transaction.

A bot seat has its own level (``seats.level``); a stand-in plays at its chat's level
(``chats.settings["bot_level"]``, else the policy's default). ``random`` and ``normal`` play
inside the transaction that made them due. With :attr:`AIPolicy.defer` (a front end with a
worker pool), a ``strong`` or ``hard`` bot whose move is not forced does not: the game
records since when it waits (``games.bot_due``), the front end is told after the commit
(:meth:`~kolkhoz_tg.service.kernel.Kernel.add_ai_listener`), reads what to think about
(:meth:`ai_turn`: the seat's view and a seed, nothing else), thinks in a worker, and plays
the move with :meth:`ai_act` at the version it thought about; if the game moved on
meanwhile the move is refused as stale and the worker thinks again.
:meth:`games_waiting_for_ai` finds the games a restart or a lost wake-up left waiting.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any

from sqlmodel import select

from engine import Action, Game, InvalidAction
from kolkhoz_tg.aiplay import LEGACY_LEVEL, SEARCH_LEVELS, check_level, decision_seed
from kolkhoz_tg.service.common import (
    ACTIVE,
    ChatInfo,
    Conflict,
    chat_info,
    possible_id,
)
from kolkhoz_tg.service.errors import BadRequest, NotFound
from kolkhoz_tg.service.gametx import GameTx
from kolkhoz_tg.service.kernel import Kernel
from kolkhoz_tg.service.records import ActResult, ActStatus
from kolkhoz_tg.storage.models import ChatRow, GameRow

log = logging.getLogger(__name__)



@dataclass(frozen=True, slots=True)
class AITurn:
    """What a worker needs to make one bot decision: the seat's own view (a copy), the
    seed, the level, and the version the move is to be played at. ``searchers``: how many
    seats of the game play at a search level (to share a thinking budget between them)."""

    game_id: int
    version: int
    seat: int
    level: str
    view: dict[str, Any]
    seed: str
    searchers: int


class ComputerPlayers:
    """The computer players' seats: the chat's level for stand-ins, and the moves that
    a worker thought about off the transaction (see the module docstring)."""

    def __init__(self, kernel: Kernel) -> None:
        self.kernel = kernel

    # ------------------------------------------------------------------ levels

    def set_chat_ai_level(self, chat_id: int, level: str) -> ChatInfo:
        """The level stand-ins (and the bots filling empty seats at the start) play at in
        this chat's games, from their next move. The bot listeners hear of the chat's games
        that wait for a search bot: a stand-in waiting for a worker may now play at a level
        that does not wait (:meth:`settle_ai`). Raises :class:`BadRequest`
        (``bad_level``)."""
        try:
            check_level(level)
        except ValueError as e:
            raise BadRequest(str(e), "bad_level") from None
        with self.kernel.write() as s:
            chat = self.kernel.ensure_chat_row(s, chat_id)
            chat.settings = {**chat.settings, "bot_level": level}
            info = chat_info(chat)
            waiting = s.exec(
                select(GameRow.id).where(
                    GameRow.chat_id == chat_id, GameRow.status == ACTIVE,
                    GameRow.bot_due.is_not(None))  # type: ignore[union-attr]
            ).all()
        self.kernel.fire_ai_listeners(i for i in waiting if i is not None)
        return info

    def chat_ai_level(self, chat_id: int) -> str:
        """The chat's level for stand-ins (the policy's default when it chose none)."""
        with self.kernel.db.read() as s:
            chat = s.get(ChatRow, chat_id)
            chosen = chat.settings.get("bot_level") if chat is not None else None
        return chosen if isinstance(chosen, str) else self.kernel.ai_policy.default_level

    # ------------------------------------------------------------------ thinking

    def games_waiting_for_ai(
        self, limit: int = 200, idle_for: timedelta | None = None
    ) -> list[int]:
        """Running games that wait for a search bot, the longest waiting first; with
        ``idle_for``, only those where no move was made for that long (nobody is thinking
        for them: a worker that died, a process that stopped)."""
        with self.kernel.db.read() as s:
            stmt = (
                select(GameRow.id)
                .where(GameRow.status == ACTIVE,
                       GameRow.bot_due.is_not(None))  # type: ignore[union-attr]
                .order_by(GameRow.bot_due)  # type: ignore[arg-type]
                .limit(limit)
            )
            if idle_for is not None:
                stmt = stmt.where(GameRow.bot_due <= self.kernel.clock.now() - idle_for)  # type: ignore[operator]
            return [i for i in s.exec(stmt).all() if i is not None]

    def ai_turn(self, game_id: int) -> AITurn | None:
        """The next decision a worker is to think about in this game (the first waiting
        seat), or None when the game waits for no search bot."""
        if not possible_id(game_id):
            return None
        with self.kernel.db.read() as s:
            row, seats = self.kernel.load_with_seats(s, game_id, lock=False)
            if row is None or row.status != ACTIVE or row.state is None:
                return None
            # Not from the cache: another thread may be changing that object now.
            game = Game.from_json(row.state)
            tx = GameTx(s, row, seats, game, self.kernel.clock.now(), row.version,
                        bots=self.kernel.ai_policy)
            waiting = tx.thinking_seats()
            if not waiting:
                return None
            seat = waiting[0]
            searchers = sum(1 for i in seats if (tx.level_of(i) or LEGACY_LEVEL)
                            in SEARCH_LEVELS)
            return AITurn(game_id, row.version, seat, tx.level_of(seat) or LEGACY_LEVEL,
                           game.view(seat), decision_seed(game_id, len(game.log), seat),
                           max(1, searchers))

    def settle_ai(self, game_id: int) -> ActResult | None:
        """For a game that waits for a search bot (``bot_due``) although no seat waits for
        one any more (its stand-in's level changed to one that plays at once): let bots,
        stand-ins and forced moves play now, as after a move, and return what followed
        (APPLIED, with the notifications to deliver); or only clear the wait. None when
        there was nothing to settle."""
        if not possible_id(game_id):
            return None
        with self.kernel.db.read() as s:
            row = s.get(GameRow, game_id)
            if row is None or row.status != ACTIVE or row.bot_due is None:
                return None
        try:
            with self.kernel.write() as s:
                row, seats = self.kernel.load_with_seats(s, game_id)
                if row is None or row.status != ACTIVE or row.bot_due is None:
                    return None
                tx = self.kernel.open_tx(s, row, seats)
                if tx.thinking_seats():
                    return None  # a worker has thinking to do: not stuck
                tx.run_automatic()
                if not tx.moves:
                    tx.update_ai_due()
                    return None
                self.kernel.finish_tx(tx, moved=True)
                result = self.kernel.act_result(tx, ActStatus.APPLIED, None)
                result = replace(result, scene=self.kernel.scene(s, row, tx.views, tx.seats))
        except Conflict:
            return None  # someone moved meanwhile, and that move settled it
        self.kernel.after_commit(tx)
        return result

    def ai_act(self, game_id: int, seat: int, action_text: str, version: int) -> ActResult:
        """Play the move a worker chose for a waiting search bot, based on ``version``,
        then the automatic moves that follow, as :meth:`act` does. STALE when the game
        moved on (or the seat no longer waits for a bot: its player came back), so the
        worker thinks again on the new state; NOT_ACTIVE when it stopped; ILLEGAL for a
        move that is not legal (a bug: logged)."""
        try:
            action = Action.parse(action_text)
        except InvalidAction as e:
            return ActResult(ActStatus.INVALID, game_id, version, seat, reason="invalid",
                             message=str(e))
        try:
            with self.kernel.write() as s:
                row, seats = self.kernel.load_with_seats(s, game_id)
                if row is None:
                    raise NotFound(f"no game {game_id}", "game_not_found")
                if row.version != version:
                    return ActResult(ActStatus.STALE, game_id, row.version, seat)
                if row.status != ACTIVE:
                    return ActResult(ActStatus.NOT_ACTIVE, game_id, row.version, seat,
                                     reason=row.status)
                tx = self.kernel.open_tx(s, row, seats)
                if seat not in tx.thinking_seats():
                    self.kernel.remember(game_id, row.version, tx.game)
                    return ActResult(ActStatus.STALE, game_id, row.version, seat,
                                     reason="not_waiting")
                illegal = tx.game.why_illegal(seat, action)
                if illegal is not None:
                    log.warning("game %s: a bot chose %s, which is illegal: %s", game_id,
                                action.text, illegal)
                    self.kernel.remember(game_id, row.version, tx.game)
                    return ActResult(ActStatus.ILLEGAL, game_id, row.version, seat,
                                     reason=illegal.reason, message=str(illegal))
                tx.play_for_ai(seat, action)
                tx.run_automatic()
                self.kernel.finish_tx(tx, moved=True)
                result = self.kernel.act_result(tx, ActStatus.APPLIED, seat)
                result = replace(result, scene=self.kernel.scene(s, row, tx.views, tx.seats))
        except Conflict:
            return ActResult(ActStatus.STALE, game_id, self.kernel.current_version(game_id), seat,
                             reason="conflict")
        self.kernel.after_commit(tx)
        return result
