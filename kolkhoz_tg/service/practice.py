"""Practice games: one player against bots, in their private chat with the bot.

A practice game is an ordinary game (the same moves, notifications and messages as in a
group) with three differences, all keyed on ``games.meta["practice"]``
(:data:`~kolkhoz_tg.service.records.PRACTICE_KEY`), so no column is needed:

- **no clock**: no deadline, no reminders, no timeouts, hence no stand-ins
  (:meth:`~kolkhoz_tg.service.gametx.GameTx.set_clock`); the game waits for its player as long
  as they like, across restarts (it is stored like any other);
- **not rated**: :mod:`~kolkhoz_tg.service.ratings` leaves it out, and so does ``/stats``;
- **hints**: :meth:`PracticeService.hint_turn` hands a front end what a bot needs to say what
  it would play for the player (their own view only, never another seat's cards); in a
  group game it is refused, since that would be playing with help.

Its chat is the player's private chat: in Telegram a private chat's id is the user's id.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, select

from engine import Game, Rules, preset_name
from engine.ai import LEVELS
from kolkhoz_tg.aiplay import check_level, decision_seed
from kolkhoz_tg.service.common import (
    ACTIVE,
    OPEN,
    ai_seat,
    make_rules,
    parse_seed,
)
from kolkhoz_tg.service.errors import BadRequest, NotAllowed, WrongState
from kolkhoz_tg.service.gametx import GameTx
from kolkhoz_tg.service.kernel import Kernel
from kolkhoz_tg.service.payloads import GameStarted
from kolkhoz_tg.service.records import PRACTICE_KEY, ActResult, ActStatus, GameInfo
from kolkhoz_tg.storage.models import GameRow, SeatRow, UserRow

#: The levels a practice game's bots may play at (``engine.ai.LEVELS``), weakest first.
PRACTICE_LEVELS: tuple[str, ...] = tuple(LEVELS)
#: The level a hint thinks at when the bots play at random (a random move explains nothing).
HINT_FLOOR = "normal"


@dataclass(frozen=True, slots=True)
class HintTurn:
    """What a bot needs to advise the player of a practice game: their own seat's view
    (nothing else), the level to think at, a seed (the same advice for the same state) and
    the version it is about."""

    game_id: int
    version: int
    seat: int
    level: str
    view: dict[str, Any]
    seed: str
    #: The game, for the other seats' names (what the hint inferred names its player).
    game: GameInfo


class PracticeService:
    """Practice games: start one, find the open one, hints (see the module docstring)."""

    def __init__(self, kernel: Kernel) -> None:
        self.kernel = kernel

    def practice_game(self, user_id: int) -> GameInfo | None:
        """The user's open practice game (active or paused), or None."""
        with self.kernel.db.read() as s:
            row = open_practice(s, user_id)
            return None if row is None else self.kernel.game_info(s, row)

    def start_practice(
        self,
        user_id: int,
        name: str | None = None,
        *,
        preset: str | None = None,
        players: int = 4,
        level: str = "strong",
        locale: str | None = None,
        seed: int | str | None = None,
    ) -> ActResult:
        """Deal a practice game in the user's private chat: the user in seat 0, bots of
        ``level`` in the others, already started (bots and forced moves play at once; search
        bots, under a deferring policy, right after the commit). ``locale``: the language of
        the chat's messages (the board), by default the user's. Raises :class:`BadRequest`
        (``bad_preset``, ``bad_players``, ``bad_level``) or :class:`NotAllowed`
        (``practice_open``: finish or abandon the open one first)."""
        if not isinstance(players, int) or not 3 <= players <= 5:
            raise BadRequest(f"3 to 5 players, not {players!r}", "bad_players")
        try:
            check_level(level)
        except ValueError as e:
            raise BadRequest(str(e), "bad_level") from None
        rules = make_rules(preset or "classic", None)
        with self.kernel.write() as s:
            # In the write transaction, behind the user's row locked (PostgreSQL; SQLite
            # writes one at a time): two quick taps on a level start one game, not two.
            user = self.kernel.ensure_user_row(s, user_id, name)
            if self.kernel.db.is_postgres:
                users = UserRow.__table__  # type: ignore[attr-defined]
                s.execute(sa.select(users.c.id).where(users.c.id == user_id).with_for_update())
            if open_practice(s, user_id) is not None:
                raise NotAllowed("a practice game is open already", "practice_open")
            chat = self.kernel.ensure_chat_row(s, user_id)
            chat.locale = locale or user.locale or chat.locale
            now = self.kernel.clock.now()
            row = GameRow(
                chat_id=user_id,
                creator_id=user_id,
                status=ACTIVE,
                preset=preset_name(rules),
                rules=rules.to_dict(),
                players=players,
                seed=str(seed) if seed is not None else str(secrets.randbelow(10**12)),
                turn_timeout=self.kernel.default_turn_timeout,
                reminders=[],
                standin_after=self.kernel.default_standin_after,
                created_at=now,
                started_at=now,
                meta={PRACTICE_KEY: True},
            )
            s.add(row)
            s.flush()
            assert row.id is not None
            seats = {0: SeatRow(game_id=row.id, seat=0, user_id=user_id, name=user.name,
                                joined_at=now)}
            for i in range(1, players):
                bot = ai_seat(row.id, i, seats, now)
                bot.level = level
                seats[i] = bot
            s.add_all(list(seats.values()))
            s.flush()
            game = Game.new(Rules.from_dict(row.rules), players, parse_seed(row.seed))
            row.state = game.to_json()
            tx = GameTx(s, row, seats, game, now, row.version, bots=self.kernel.ai_policy)
            tx.notify(GameStarted(tx.game_header(), tx.views.typed(None)))
            tx.run_automatic()
            self.kernel.finish_tx(tx, moved=True, announce=True)
            result = self.kernel.act_result(tx, ActStatus.APPLIED, 0)
        self.kernel.after_commit(tx)
        return result

    def hint_turn(self, game_id: int, user_id: int) -> HintTurn:
        """What to advise the user on in their practice game now. Raises :class:`NotFound`,
        :class:`NotAllowed` (``not_practice``: hints are for practice games only;
        ``not_seated``) or :class:`WrongState` (``not_your_turn``, ``not_active``)."""
        with self.kernel.db.read() as s:
            row, game = self.kernel.read_game(s, game_id)
            if not row.meta.get(PRACTICE_KEY):
                raise NotAllowed("hints are for practice games only", "not_practice")
            seat_row = self.kernel.seat_row(s, game_id, user_id)
            if seat_row is None:
                raise NotAllowed("not seated", "not_seated")
            if row.status != ACTIVE or game is None or game.is_over:
                raise WrongState("the game is not running", "not_active")
            if seat_row.seat not in game.to_act:
                raise WrongState("not this player's turn", "not_your_turn")
            levels = [r.level for r in self.kernel.seats_of(s, game_id).values()
                      if r.is_bot and r.level]
            level = max(levels, key=PRACTICE_LEVELS.index) if levels else HINT_FLOOR
            if PRACTICE_LEVELS.index(level) < PRACTICE_LEVELS.index(HINT_FLOOR):
                level = HINT_FLOOR
            assert row.id is not None
            return HintTurn(row.id, row.version, seat_row.seat, level,
                            game.view(seat_row.seat),
                            "hint:" + decision_seed(row.id, len(game.log), seat_row.seat),
                            self.kernel.game_info(s, row))


def open_practice(s: Session, user_id: int) -> GameRow | None:
    """The user's open practice game (in their private chat), or None."""
    rows = s.exec(
        select(GameRow)
        .where(GameRow.chat_id == user_id,
               GameRow.status.in_(OPEN))  # type: ignore[attr-defined]
        .order_by(GameRow.id.desc())  # type: ignore[union-attr]
    ).all()
    return next((r for r in rows if is_practice(r) and r.creator_id == user_id), None)


def is_practice(row: GameRow) -> bool:
    """Whether a game is a practice game (see the module docstring)."""
    return bool(row.meta.get(PRACTICE_KEY))


__all__ = [
    "HINT_FLOOR", "PRACTICE_LEVELS", "HintTurn", "PracticeService", "is_practice",
    "open_practice",
]
