"""Taking back a card: a player who has just played a card takes it back while nobody has
acted since and the trick is not complete (``take_back``), in one transaction.

The log stays append-only: the card played and a ``takeback`` entry after it (actor
``takeback``, the seat's) are both kept, and :func:`effective_log` drops the pair, so a replay
rebuilds the game as it is (a practice game's bots' answers undone with the card: an entry
for each, in its seat). The engine state goes back to exactly what it was before the card
(replayed from the log without it, checked against the state after it), the seat's clock
starts afresh and it gets its turn again; the group's board says who took a card back, never
which card (it is back in a hand).

What the game remembers for it is in ``games.meta`` (no migration): :data:`LAST_KEY`, each
seat's card that was its last own move and how many moves the engine had then (so "nobody
acted since" is "the engine still has that many"); :data:`DONE_KEY`, the last take-back;
``gametx.COUNT_KEY``, how many moves the log holds taken back (each is two rows the engine's
log does not have, so a new move's ``seq`` is its position in the engine's log plus twice
that). The
chat's setting is ``chats.settings["takeback"]`` (on unless False). A practice game allows any
number of take-backs, also once its bots have answered the card (they are undone with it),
within the year; another game one per turn (a card played again after a take-back is final).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from sqlmodel import Session, select

from engine import ActionError, Game, InvalidAction, Rules
from kolkhoz_tg.service.common import ACTIVE, Conflict, parse_seed
from kolkhoz_tg.service.errors import NotFound
from kolkhoz_tg.service.gametx import COUNT_KEY, GameTx, Views
from kolkhoz_tg.service.own_moves import LAST_KEY
from kolkhoz_tg.service.payloads import TookBack
from kolkhoz_tg.service.records import PRACTICE_KEY, ActResult, ActStatus
from kolkhoz_tg.storage.models import ActionRow, Actor, ChatRow, GameRow, SeatRow

if TYPE_CHECKING:
    from kolkhoz_tg.service.kernel import Kernel

#: The take-back button's payload, and the action text of the log's take-back entry.
TAKEBACK = "takeback"
#: ``chats.settings`` key: False switches take-backs off in the chat (on by default).
SETTING = "takeback"
#: ``games.meta``: the last take-back, ``[seat, moves after it, version it was based on]``.
DONE_KEY = "takeback:done"

#: Why another seat's queued move was dropped: the card before it was taken back.
UNDONE = "takeback_undone"
#: Why a take-back is refused (codes for ``present.reason_text``).
OFF, NOTHING, TOO_LATE, TRICK_CLOSED, ONCE = (
    "takeback_off", "takeback_nothing", "takeback_late", "takeback_trick", "takeback_once")


def effective_log(entries: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The moves that stand, in order: each take-back entry (actor ``takeback``) removes
    itself and the move before it. ``entries`` as :meth:`GameService.action_log` gives
    them."""
    out: list[Mapping[str, Any]] = []
    for entry in entries:
        if entry["actor"] == Actor.TAKEBACK.value:
            if out:
                out.pop()
        else:
            out.append(entry)
    return out


def chat_allows(chat: ChatRow | None) -> bool:
    """The chat's setting: take-backs are on unless switched off."""
    return chat is None or chat.settings.get(SETTING) is not False


def refusal(meta: Mapping[str, Any], game: Game, seat: int, allowed: bool) -> str | None:
    """Why ``seat`` may not take back a card now (a reason code), or None if it may.
    ``allowed``: the chat's setting. A practice game ignores it and takes back the bots'
    answers too (the player alone is human there): the player's last card, while it is
    the last move they made and its year goes on."""
    practice = bool(meta.get(PRACTICE_KEY))
    if not (allowed or practice):
        return OFF
    cards = meta.get(LAST_KEY)
    last = cards.get(str(seat)) if isinstance(cards, dict) else None
    if not isinstance(last, list) or len(last) != 3:
        return NOTHING
    moves, closed, year = last
    if practice:
        return TOO_LATE if game.year != year or len(game.log) < moves else None
    if closed:
        return TRICK_CLOSED
    if len(game.log) != moves:
        return TOO_LATE
    done = meta.get(DONE_KEY)
    if isinstance(done, list) and done[:2] == [seat, moves - 1]:
        return ONCE
    return None


def can_take_back(row: GameRow, game: Game, seat: int, chat: ChatRow | None) -> bool:
    """Whether the seat's message offers "Take back" now."""
    return row.status == ACTIVE and refusal(row.meta, game, seat, chat_allows(chat)) is None


class TakeBackService:
    """Taking back a card just played (see the module's text)."""

    def __init__(self, kernel: Kernel) -> None:
        self.kernel = kernel

    def take_back(
        self, game_id: int, user_id: int, expected_version: int, *,
        name: str | None = None, locale: str | None = None,
    ) -> ActResult:
        """The user takes back the card they have just played, based on ``expected_version``
        (the button's). APPLIED: the game is as it was before the card, the seat to move again
        with a fresh clock, the group told. Refused with nothing changed: ILLEGAL with a
        reason (:data:`OFF`, :data:`NOTHING`, :data:`TOO_LATE` (someone acted since),
        :data:`TRICK_CLOSED`, :data:`ONCE`), STALE (the game changed otherwise since the
        button), NOT_SEATED, NOT_ACTIVE; DUPLICATE for a take-back already made at that
        version. Raises :class:`NotFound` for an unknown game."""
        kernel = self.kernel
        try:
            with kernel.write() as s:
                if name is not None:
                    kernel.ensure_user_row(s, user_id, name, locale)
                row, seats, people, chat = kernel.load_for_move(s, game_id)
                if row is None:
                    raise NotFound(f"no game {game_id}", "game_not_found")
                seat = next((r for r in seats.values() if r.user_id == user_id), None)
                user = people.get(user_id)
                answer = ((user.locale if user is not None else None)
                          or (chat.locale if chat is not None else None)
                          or kernel.settings.locale)
                if seat is None:
                    return ActResult(ActStatus.NOT_SEATED, game_id, row.version, locale=answer)
                done = row.meta.get(DONE_KEY)
                if isinstance(done, list) and done[0] == seat.seat and done[2] == expected_version:
                    return ActResult(ActStatus.DUPLICATE, game_id, row.version, seat.seat,
                                     locale=answer)
                if row.status != ACTIVE or row.state is None:
                    return ActResult(ActStatus.NOT_ACTIVE, game_id, row.version, seat.seat,
                                     reason=row.status, locale=answer)
                game = kernel.engine_state(row)
                reason = refusal(row.meta, game, seat.seat, chat_allows(chat))
                if reason is None and expected_version != row.version:
                    reason = "stale"
                before = None if reason is not None else self._before(s, row, game, seat)
                if before is None:
                    scene = kernel.scene(s, row, game, seats)
                    kernel.remember(game_id, row.version, game)
                    status = ActStatus.STALE if reason == "stale" else ActStatus.ILLEGAL
                    return ActResult(status, game_id, row.version, seat.seat,
                                     reason=reason or NOTHING, locale=answer, scene=scene)
                tx = self._undo(s, row, seats, seat, before, expected_version)
                out = replace(kernel.act_result(tx, ActStatus.APPLIED, seat.seat),
                              locale=answer, scene=kernel.scene(s, row, tx.views, tx.seats))
        except Conflict:
            return ActResult(ActStatus.STALE, game_id, kernel.current_version(game_id),
                             reason="conflict")
        kernel.after_commit(tx)
        return out

    def set_chat_takeback(self, chat_id: int, on: bool) -> None:
        """Switch take-backs on or off for the chat's games (a practice game allows them
        anyway)."""
        with self.kernel.write() as s:
            chat = self.kernel.ensure_chat_row(s, chat_id)
            chat.settings = {**chat.settings, SETTING: on}

    def _before(
        self, s: Session, row: GameRow, game: Game, seat: SeatRow
    ) -> tuple[Game, list[int]] | None:
        """The game as it was before the seat's card: replayed from the log without it
        (and what followed it: a practice game's bots), and checked (those moves played
        on it give the game as it is); None if the log does not rebuild it (a game stored
        under an older reading of the rules)."""
        entries = [
            {"seat": r.seat, "action": r.action, "actor": r.actor}
            for r in s.exec(select(ActionRow).where(ActionRow.game_id == row.id)
                            .order_by(ActionRow.seq))  # type: ignore[arg-type]
        ]
        moves = effective_log(entries)
        card = row.meta[LAST_KEY][str(seat.seat)][0] - 1
        if (len(moves) != len(game.log) or not 0 <= card < len(moves)
                or moves[card]["seat"] != seat.seat):
            return None
        try:
            before = Game.replay(Rules.from_dict(row.rules), row.players, parse_seed(row.seed),
                                 [(m["seat"], m["action"]) for m in moves[:card]],
                                 planner=game.planner0)
            again = before.copy()
            for m in moves[card:]:
                again.apply(m["seat"], m["action"])
        except (ActionError, InvalidAction, ValueError):
            return None
        return (before, [m["seat"] for m in moves[card:]]) if again == game else None

    def _undo(
        self, s: Session, row: GameRow, seats: dict[int, SeatRow], seat: SeatRow,
        rebuilt: tuple[Game, list[int]], expected_version: int,
    ) -> GameTx:
        """Put ``before`` in place, log the take-back, restart the seat's clock, tell."""
        kernel = self.kernel
        tx = kernel.open_tx(s, row, seats)
        assert row.id is not None
        raw = s.exec(select(ActionRow.seq).where(ActionRow.game_id == row.id)
                     .order_by(ActionRow.seq.desc())).first()  # type: ignore[attr-defined]
        seq = (raw if raw is not None else -1) + 1
        # One entry per move undone, the last first, each in the seat of the move it undoes
        # (the card, and in a practice game the bots' answers to it).
        before, undone = rebuilt
        for i, whose in enumerate(reversed(undone)):
            tx.actions.append(ActionRow(
                game_id=row.id, seq=seq + i, seat=whose, action=TAKEBACK,
                actor=Actor.TAKEBACK.value, user_id=seat.user_id, version=row.version,
                at=tx.now))
        tx.game = before
        tx.views = Views(before)
        # A move queued by another seat after the card came down was an answer to it: it
        # goes with the card (its player is told why), so nothing is played blind.
        for other in seats.values():
            if other.seat != seat.seat and other.premove is not None:
                tx.queue_log.dropped[other.seat] = (other.premove, UNDONE)
                other.premove = None
        meta = {k: v for k, v in row.meta.items() if k != LAST_KEY}
        meta[COUNT_KEY] = int(row.meta.get(COUNT_KEY, 0)) + len(undone)
        meta[DONE_KEY] = [seat.seat, len(before.log), expected_version]
        row.meta = meta
        row.state = before.to_json()
        tx.notify(TookBack(seat.name), seat=seat.seat)
        # The seat decides again: a fresh deadline and reminders, a new "your turn".
        kernel.finish_tx(tx, moved=True, announce=True)
        return tx
