"""Queueing moves ahead: ``premove()`` and ``set_auto_assign()`` (the rules of what may be
queued and of what happens when the turn comes: :mod:`kolkhoz_tg.service.premoves`).

Queueing changes no version and writes no notification: the game's other readers, whose
buttons carry the version, cannot tell that anything happened. Only a queued answer to the
decision the player faces now is a move, made at once like ``act()``.
"""

from __future__ import annotations

from sqlmodel import Session

from engine import Action, InvalidAction
from engine.phase import Phase
from kolkhoz_tg.service.common import ACTIVE, Conflict
from kolkhoz_tg.service.errors import NotFound
from kolkhoz_tg.service.gametx import GameTx
from kolkhoz_tg.service.kernel import Kernel
from kolkhoz_tg.service.own_moves import note_own_move
from kolkhoz_tg.service.premoves import decides_now, queue_refusal
from kolkhoz_tg.service.records import ActResult, ActStatus
from kolkhoz_tg.storage.models import Actor, ChatRow, GameRow, SeatRow, UserRow


class PremoveService:
    """Moves queued ahead of the player's turn, and the Brigadier's "assign for me"."""

    def __init__(self, kernel: Kernel) -> None:
        self.kernel = kernel

    def premove(
        self, game_id: int, user_id: int, action_text: str | None, *, toggle: bool = False
    ) -> ActResult:
        """Queue ``action_text`` (e.g. ``play:9H``) as the user's answer to their next
        decision, or cancel what is queued (None; ``toggle``: when that very action is
        queued already, as a second tap on its button). An answer to the decision they face
        now is played at once, as by :meth:`act` (any version: it is what they asked to
        play when their turn came). The answer's :attr:`ActResult.scene` shows their queue;
        APPLIED, DUPLICATE (nothing to cancel), NOT_SEATED, NOT_ACTIVE, INVALID or ILLEGAL
        with a reason (``cannot_queue``: nothing of that kind may be queued now,
        ``not_in_hand``, ``not_in_plot`` …); only a move made now changes the version."""
        try:
            action: Action | None = None if action_text is None else Action.parse(action_text)
        except InvalidAction:
            return ActResult(ActStatus.INVALID, game_id, 0, reason="invalid")
        try:
            with self.kernel.write() as s:
                found = self._seated(s, game_id, user_id)
                if isinstance(found, ActResult):
                    return found
                row, seats, seat, locale = found
                tx = self.kernel.open_tx(s, row, seats)
                if action is not None and decides_now(tx.game, seat.seat, action):
                    result = self._play_now(tx, seat, action)
                else:
                    result = self._queue(tx, seat, action, toggle)
                scene = self.kernel.scene(s, row, tx.views, tx.seats)
        except Conflict:
            return ActResult(ActStatus.STALE, game_id, self.kernel.current_version(game_id),
                             reason="conflict")
        if tx.moves:
            self.kernel.after_commit(tx)
        return ActResult(result.status, game_id, result.version, seat.seat,
                         reason=result.reason, events=result.events,
                         notifications=result.notifications, scene=scene, locale=locale)

    def _seated(
        self, s: Session, game_id: int, user_id: int
    ) -> tuple[GameRow, dict[int, SeatRow], SeatRow, str | None] | ActResult:
        """The game locked for a change by the user, their seat and language; or the
        refusal when they have no seat in it or it is not running."""
        row, seats, people, chat = self.kernel.load_for_move(s, game_id)
        if row is None:
            raise NotFound(f"no game {game_id}", "game_not_found")
        seat = next((r for r in seats.values() if r.user_id == user_id), None)
        locale = self._locale(people.get(user_id), chat)
        if seat is None:
            return ActResult(ActStatus.NOT_SEATED, game_id, row.version, locale=locale)
        if row.status != ACTIVE:
            return ActResult(ActStatus.NOT_ACTIVE, game_id, row.version, seat.seat,
                             reason=row.status, locale=locale)
        return row, seats, seat, locale

    def _queue(
        self, tx: GameTx, seat: SeatRow, action: Action | None, toggle: bool
    ) -> ActResult:
        row = tx.row
        assert row.id is not None
        self.kernel.remember(row.id, row.version, tx.game)
        if action is None or (toggle and seat.premove == action.text):
            status = ActStatus.APPLIED if seat.premove is not None else ActStatus.DUPLICATE
            seat.premove = None
            return ActResult(status, row.id, row.version, seat.seat)
        refusal = queue_refusal(tx.game, seat.seat, action)
        if refusal is not None:
            return ActResult(ActStatus.ILLEGAL, row.id, row.version, seat.seat, reason=refusal)
        seat.premove = action.text
        return ActResult(ActStatus.APPLIED, row.id, row.version, seat.seat)

    def _play_now(self, tx: GameTx, seat: SeatRow, action: Action) -> ActResult:
        """The queued answer is to the decision the player faces now: a move, as act()."""
        illegal = tx.game.why_illegal(seat.seat, action)
        row = tx.row
        assert row.id is not None
        if illegal is not None:
            self.kernel.remember(row.id, row.version, tx.game)
            return ActResult(ActStatus.ILLEGAL, row.id, row.version, seat.seat,
                             reason=illegal.reason)
        seat.premove = None
        tx.apply(seat.seat, action, Actor.PLAYER, seat.user_id)
        note_own_move(row, tx.game, seat.seat, action, len(tx.game.log))
        seat.timeouts = 0
        tx.run_automatic()
        self.kernel.finish_tx(tx, moved=True)
        return self.kernel.act_result(tx, ActStatus.APPLIED, seat.seat)

    def set_auto_assign(self, game_id: int, user_id: int, on: bool) -> ActResult:
        """Switch the heuristic's placing of the user's tricks as Brigadier on or off for
        this game. Switched on while they are placing a trick, it places the rest of it at
        once (a move: the version changes, the notifications follow). DUPLICATE when it was
        so already."""
        with self.kernel.write() as s:
            found = self._seated(s, game_id, user_id)
            if isinstance(found, ActResult):
                return found
            row, seats, seat, locale = found
            status = ActStatus.DUPLICATE if seat.auto_assign == on else ActStatus.APPLIED
            seat.auto_assign = on
            tx = self.kernel.open_tx(s, row, seats)
            if on and self._assigning(tx, row, seat):
                tx.run_automatic()
                self.kernel.finish_tx(tx, moved=True)
                result = self.kernel.act_result(tx, ActStatus.APPLIED, seat.seat)
            else:
                self.kernel.remember(game_id, row.version, tx.game)
                result = ActResult(status, game_id, row.version, seat.seat)
            scene = self.kernel.scene(s, row, tx.views, tx.seats)
        if tx.moves:
            self.kernel.after_commit(tx)
        return ActResult(result.status, game_id, result.version, seat.seat,
                         events=result.events, notifications=result.notifications,
                         scene=scene, locale=locale)

    def _locale(self, user: UserRow | None, chat: ChatRow | None) -> str:
        """The language to answer the user in: theirs, else the chat's."""
        return ((user.locale if user is not None else None)
                or (chat.locale if chat is not None else None) or self.kernel.settings.locale)

    @staticmethod
    def _assigning(tx: GameTx, row: GameRow, seat: SeatRow) -> bool:
        return (tx.game.phase is Phase.ASSIGN and seat.seat in tx.game.to_act
                and not seat.standin)
