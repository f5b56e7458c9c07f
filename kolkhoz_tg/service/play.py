"""Playing: ``act()`` (one transaction with the automatic moves that follow), coming back
from a stand-in, a stand-in on request, pause and resume."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import Any

from sqlmodel import Session, select

from engine import Action, ActionKind, InvalidAction
from kolkhoz_tg.service.common import (
    ACTIVE,
    OPEN,
    PAUSED,
    Conflict,
    possible_id,
)
from kolkhoz_tg.service.errors import BadRequest, NotAllowed, NotFound, WrongState
from kolkhoz_tg.service.gametx import GameTx
from kolkhoz_tg.service.kernel import Kernel
from kolkhoz_tg.service.own_moves import note_own_move
from kolkhoz_tg.service.payloads import Paused, PlayerBack, Resumed, StandIn
from kolkhoz_tg.service.records import (
    ActResult,
    ActStatus,
    GameInfo,
    Scene,
)
from kolkhoz_tg.storage.models import (
    ActionRow,
    Actor,
    ChatRow,
    GameRow,
    SeatRow,
    UserRow,
)


class PlayService:
    """Playing: ``act()``, a player back, stand-ins, away, pause and resume, moving a
    game."""

    def __init__(self, kernel: Kernel) -> None:
        self.kernel = kernel

    def act(
        self, game_id: int, user_id: int, action_text: str, expected_version: int, *,
        name: str | None = None, locale: str | None = None,
    ) -> ActResult:
        """Play ``action_text`` (e.g. ``play:10H``) for the user's seat, based on
        ``expected_version`` (what the user saw).

        In one transaction: record the user (``name`` and Telegram ``locale``, when given),
        check the seat and the version, apply, log, let bots, stand-ins and forced moves
        follow, set the new deadline, write the notifications, and read back the
        :class:`Scene` their readers will see (:attr:`ActResult.scene`). A stale version, a
        lost race, an illegal or malformed action change nothing and say so in
        :attr:`ActResult.status`; repeating an applied request returns ``DUPLICATE``. A
        swap is not stale while the moves since its version are other seats' swaps (swaps
        are decided independently). A player whose seat a stand-in was playing is back by
        acting. Raises
        :class:`NotFound` for an unknown game."""
        try:
            action: Action | None = Action.parse(action_text)
        except InvalidAction as e:
            action, invalid = None, str(e)
        try:
            with self.kernel.write() as s:
                if name is not None:
                    self.kernel.ensure_user_row(s, user_id, name, locale)
                # (``people`` and ``chat`` are held to the end: see _load_for_move.)
                row, seats, people, chat = self.kernel.load_for_move(s, game_id)
                if row is None:
                    raise NotFound(f"no game {game_id}", "game_not_found")
                seat = next((r for r in seats.values() if r.user_id == user_id), None)
                answer = self._answer_locale(people.get(user_id), chat)
                if action is None:
                    return ActResult(ActStatus.INVALID, game_id, row.version, reason="invalid",
                                     message=invalid, locale=answer)
                if seat is None:
                    return ActResult(ActStatus.NOT_SEATED, game_id, row.version,
                                     locale=answer)
                if expected_version != row.version and not self._no_move_since(
                        s, row, expected_version) and not self._decision_stands(
                        s, row, seat.seat, action, expected_version, len(seats)):
                    stale = self._stale(s, row, seat, action, expected_version)
                    scene = (self._unchanged_scene(s, row, seats)
                             if stale.status is ActStatus.STALE else None)
                    return replace(stale, locale=answer, scene=scene)
                if row.status != ACTIVE:
                    return ActResult(ActStatus.NOT_ACTIVE, game_id, row.version, seat.seat,
                                     reason=row.status, locale=answer,
                                     scene=self._unchanged_scene(s, row, seats))
                tx = self.kernel.open_tx(s, row, seats)
                back = self._take_back(tx, seat)
                illegal = tx.game.why_illegal(seat.seat, action)
                if illegal is not None:
                    if not back:
                        self.kernel.remember(game_id, row.version, tx.game)
                        return ActResult(ActStatus.ILLEGAL, game_id, row.version, seat.seat,
                                         reason=illegal.reason, message=str(illegal),
                                         locale=answer)
                    self.kernel.finish_tx(tx, moved=False)
                    result = self.kernel.act_result(tx, ActStatus.ILLEGAL, seat.seat,
                                                    reason=illegal.reason, message=str(illegal))
                else:
                    tx.apply(seat.seat, action, Actor.PLAYER, user_id)
                    note_own_move(row, tx.game, seat.seat, action, len(tx.game.log))
                    seat.timeouts = 0
                    tx.run_automatic()
                    self.kernel.finish_tx(tx, moved=True)
                    result = self.kernel.act_result(tx, ActStatus.APPLIED, seat.seat)
                result = replace(result, locale=answer,
                                 scene=self.kernel.scene(s, row, tx.views, tx.seats))
        except Conflict:
            return ActResult(ActStatus.STALE, game_id, self.kernel.current_version(game_id),
                             reason="conflict")
        self.kernel.after_commit(tx)
        return result

    def _no_move_since(self, s: Session, row: GameRow, version: int) -> bool:
        """Whether the game changed since ``version`` only in ways that leave every seat's
        choices as they were (a player back, a pause and resume, a setting, a stand-in that
        has not moved yet): then a button made at ``version`` still acts. Any move since
        (recorded with the version it was made on) makes it stale."""
        if not (possible_id(version) and 0 < version < row.version):
            return False
        moved = s.exec(
            select(ActionRow.seq).where(
                ActionRow.game_id == row.id, ActionRow.version >= version
            ).limit(1)
        ).first()
        return moved is None

    def _decisions_since(
        self, s: Session, row: GameRow, version: int, seats: int, kind: ActionKind
    ) -> list[tuple[int, str]] | None:
        """The moves since ``version`` (seat, action) if they are all swaps (or all passes
        of a card, ``kind`` PASS), none of them made before the phase that ``version`` saw;
        else None. (Such a phase has at most one decision a seat, and the moves between two
        of them are of other kinds.)"""
        if not (possible_id(version) and 0 < version < row.version):
            return None
        moves = s.exec(
            select(ActionRow.seat, ActionRow.action).where(
                ActionRow.game_id == row.id, ActionRow.version >= version
            ).limit(seats + 1)
        ).all()
        if not 0 < len(moves) <= seats or not all(_kind(a) is kind for _, a in moves):
            return None
        return [(seat, a) for seat, a in moves]

    def _decision_stands(
        self, s: Session, row: GameRow, seat: int, action: Action, version: int, seats: int
    ) -> bool:
        """Whether a swap (or a card to pass) chosen at ``version`` is still good although
        the game moved on: these are decided independently, so other seats' swaps (passes)
        since leave this seat's hand and plot as they were. Not if any other move came since
        (the next year's play, say) or this seat has decided since (then it is stale, or a
        duplicate)."""
        if action.kind not in _SIMULTANEOUS:
            return False
        swaps = self._decisions_since(s, row, version, seats, action.kind)
        return swaps is not None and all(other != seat for other, _ in swaps)

    def _unchanged_scene(self, s: Session, row: GameRow, seats: dict[int, SeatRow]) -> Scene:
        """The scene of a game this request did not change (so that the front end can show
        a player who acted on an old message what the game looks like now)."""
        assert row.id is not None
        game = None if row.state is None else self.kernel.engine_state(row)
        scene = self.kernel.scene(s, row, game, seats)
        if game is not None and row.status in (ACTIVE, PAUSED):
            self.kernel.remember(row.id, row.version, game)
        return scene

    def _answer_locale(self, user: UserRow | None, chat: ChatRow | None) -> str:
        """The language to answer a user acting in this game in: theirs, else the chat's."""
        if user is not None and user.locale:
            return user.locale
        return (chat.locale if chat is not None else None) or self.kernel.settings.locale

    def _stale(
        self, s: Session, row: GameRow, seat: SeatRow, action: Action, expected: int
    ) -> ActResult:
        assert row.id is not None
        if not possible_id(expected):
            return ActResult(ActStatus.STALE, row.id, row.version, seat.seat)
        # A swap (a card to pass) stands while others decide (see _decision_stands), so
        # its record may come after the version it was chosen at.
        swaps = (self._decisions_since(s, row, expected, row.players, action.kind)
                 if action.kind in _SIMULTANEOUS else None)
        dup = s.exec(
            select(ActionRow.seq).where(
                ActionRow.game_id == row.id,
                ActionRow.version >= expected if swaps is not None
                else ActionRow.version == expected,
                ActionRow.seat == seat.seat,
                ActionRow.action == action.text,
                ActionRow.actor == Actor.PLAYER.value,
            )
        ).first()
        status = ActStatus.DUPLICATE if dup is not None else ActStatus.STALE
        return ActResult(status, row.id, row.version, seat.seat)

    def _take_back(self, tx: GameTx, seat: SeatRow) -> bool:
        if not seat.standin:
            return False
        seat.standin = False
        seat.timeouts = 0
        tx.notify(PlayerBack(seat.name), seat=seat.seat)
        return True

    def back(self, game_id: int, user_id: int) -> ActResult:
        """The player says they are back: the stand-in leaves their seat and the missed-turn
        count restarts. Harmless if no stand-in was playing (status DUPLICATE)."""
        with self.kernel.write() as s:
            row = self.kernel.get_game(s, game_id)
            seat = self.kernel.seat_row(s, game_id, user_id)
            if seat is None:
                return ActResult(ActStatus.NOT_SEATED, game_id, row.version)
            if row.status not in (ACTIVE, PAUSED):
                return ActResult(ActStatus.NOT_ACTIVE, game_id, row.version, seat.seat)
            if not seat.standin:
                seat.timeouts = 0
                return ActResult(ActStatus.DUPLICATE, game_id, row.version, seat.seat)
            tx = self.kernel.open_tx(s, row)
            self._take_back(tx, tx.seats[seat.seat])
            self.kernel.finish_tx(tx, moved=False)
            result = self.kernel.act_result(tx, ActStatus.APPLIED, seat.seat)
        self.kernel.after_commit(tx)
        return result

    def stand_in(self, game_id: int, seat: int) -> ActResult:
        """A bot plays ``seat`` from now on, as after repeated timeouts, until its player
        acts or says they are back (the seat stays theirs). For the front end's kick by the
        creator or an admin, who checks that right. DUPLICATE if a bot already plays it."""
        with self.kernel.write() as s:
            row = self.kernel.get_game(s, game_id)
            if row.status not in (ACTIVE, PAUSED):
                raise WrongState("the game is not running", "not_active")
            tx = self.kernel.open_tx(s, row)
            seat_row = tx.seats.get(seat)
            if seat_row is None:
                raise BadRequest(f"seat {seat} is empty", "bad_seat")
            if seat_row.is_bot or seat_row.standin:
                return ActResult(ActStatus.DUPLICATE, game_id, row.version, seat)
            result = self._hand_over(tx, seat_row)
        self.kernel.after_commit(tx)
        return result

    def _hand_over(self, tx: GameTx, seat_row: SeatRow, *, away: bool = False) -> ActResult:
        """A bot takes ``seat_row`` (told to its player and to the group) and plays at once
        if the game is running and waits for it."""
        seat_row.standin = True
        payload = StandIn(seat_row.timeouts, seat_row.name, away)
        tx.notify(payload, user_id=seat_row.user_id, seat=seat_row.seat)
        tx.notify(payload, seat=seat_row.seat)
        if tx.row.status == ACTIVE:
            tx.run_automatic()
        self.kernel.finish_tx(tx, moved=bool(tx.moves))
        return self.kernel.act_result(tx, ActStatus.APPLIED, seat_row.seat)

    def away(
        self, game_id: int, user_id: int, *, meta: dict[str, Any] | None = None
    ) -> ActResult:
        """The player goes away: a bot plays their seat from now on (at once if it is their
        move), as :meth:`stand_in` does, and its moves are not missed turns. It lasts until
        they act or say they are back. ``meta`` as for :meth:`pause` (e.g. when the front
        end is to end the absence), stored only if the seat is handed over. NOT_SEATED,
        NOT_ACTIVE (not started, or over) and DUPLICATE (a bot already plays the seat)
        change nothing."""
        with self.kernel.write() as s:
            row = self.kernel.get_game(s, game_id)
            seat = self.kernel.seat_row(s, game_id, user_id)
            if seat is None:
                return ActResult(ActStatus.NOT_SEATED, game_id, row.version)
            if row.status not in (ACTIVE, PAUSED):
                return ActResult(ActStatus.NOT_ACTIVE, game_id, row.version, seat.seat)
            if seat.standin:
                return ActResult(ActStatus.DUPLICATE, game_id, row.version, seat.seat)
            _update_meta(row, meta)
            tx = self.kernel.open_tx(s, row)
            result = self._hand_over(tx, tx.seats[seat.seat], away=True)
        self.kernel.after_commit(tx)
        return result

    def pause(
        self, game_id: int, by_user: int, force: bool = False, *,
        meta: dict[str, Any] | None = None,
    ) -> ActResult:
        """Stop the clock (creator, or ``force`` for a chat admin or the front end itself).
        ``meta``: the front end's values to store on the game in the same transaction (e.g.
        why it paused; a None value removes the key). Raises :class:`WrongState`
        (``not_active``) or :class:`NotAllowed` (``not_creator``)."""
        with self.kernel.write() as s:
            row = self.kernel.get_game(s, game_id)
            if row.status != ACTIVE:
                raise WrongState("the game is not running", "not_active")
            if by_user != row.creator_id and not force:
                raise NotAllowed("only the creator pauses the game", "not_creator")
            _update_meta(row, meta)
            tx = self.kernel.open_tx(s, row)
            remaining = None
            if row.deadline is not None:
                remaining = max(int((row.deadline - tx.now).total_seconds()), 60)
            row.paused_remaining = remaining
            row.status = PAUSED
            tx.clear_clock()
            tx.notify(Paused(by_user, remaining))
            self.kernel.finish_tx(tx, moved=False)
            result = self.kernel.act_result(tx, ActStatus.APPLIED, None)
        self.kernel.after_commit(tx)
        return result

    def resume(
        self, game_id: int, by_user: int, force: bool = False, *,
        meta: dict[str, Any] | None = None,
    ) -> ActResult:
        """Restart the clock with the time that was left when paused; ``meta`` as for
        :meth:`pause`. Raises :class:`WrongState` (``not_paused``) or :class:`NotAllowed`
        (``not_creator``)."""
        with self.kernel.write() as s:
            row = self.kernel.get_game(s, game_id)
            if row.status != PAUSED:
                raise WrongState("the game is not paused", "not_paused")
            if by_user != row.creator_id and not force:
                raise NotAllowed("only the creator resumes the game", "not_creator")
            _update_meta(row, meta)
            tx = self.kernel.open_tx(s, row)
            row.status = ACTIVE
            remaining = row.paused_remaining or row.turn_timeout
            row.paused_remaining = None
            row.deadline = tx.now + timedelta(seconds=remaining)
            tx.before_to_act = ()  # everyone waiting gets fresh reminders
            tx.set_clock(moved=False)
            tx.notify(Resumed(by_user, row.deadline))
            tx.emit_play_notifications(announce=True)
            self.kernel.bump(s, row)
            self.kernel.store_notes(s, tx.notes)
            result = self.kernel.act_result(tx, ActStatus.APPLIED, None)
        self.kernel.after_commit(tx)
        return result

    def move_game(
        self, game_id: int, topic_id: int | None, *, meta: dict[str, Any] | None = None
    ) -> GameInfo:
        """Move the game to another forum topic of its chat (None: "General"), e.g. when
        its topic was deleted or it is to go on in a new one; ``meta`` as for
        :meth:`pause`. No version change, no notification: the front end shows the game
        where it now lives. Raises :class:`NotFound`, or :class:`NotAllowed`
        (``place_taken``) when the game is open and another open game is there already."""
        with self.kernel.write() as s:
            # Columns only (no row in the session yet): the chat's row is locked before the
            # game's, in the order create_game() takes them.
            found = s.exec(
                select(GameRow.chat_id, GameRow.status, GameRow.topic_id)
                .where(GameRow.id == game_id)
            ).first() if possible_id(game_id) else None
            if found is None:
                raise NotFound(f"no game {game_id}", "game_not_found")
            chat_id, status, old_topic = found
            if status in OPEN and old_topic != topic_id:
                self.kernel.check_place(s, chat_id, topic_id, game_id)
            row = self.kernel.get_game(s, game_id)
            row.topic_id = topic_id
            _update_meta(row, meta)
            s.flush()
            return self.kernel.game_info(s, row)

    def set_meta(self, game_id: int, key: str, value: Any) -> None:
        """Store a front end's own value on the game (e.g. the board message id); no version
        change, no notification."""
        with self.kernel.write() as s:
            row = self.kernel.get_game(s, game_id)
            row.meta = {**row.meta, key: value}


def _update_meta(row: GameRow, values: dict[str, Any] | None) -> None:
    if values:
        meta = {**row.meta, **values}
        row.meta = {k: v for k, v in meta.items() if v is not None}


#: Decisions every seat makes independently in one phase: the swap, the card to pass.
_SIMULTANEOUS = frozenset({ActionKind.SWAP, ActionKind.PASS})


def _kind(text: str) -> ActionKind | None:
    """The kind of a logged action (the log holds only valid actions and take-backs:
    None)."""
    try:
        return Action.parse(text).kind
    except InvalidAction:
        return None
