"""The lobby: create a game, take and leave seats, bots, rules and clock settings, start,
abort."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from sqlmodel import Session

from engine import Game, Rules, preset_name
from kolkhoz_tg.aiplay import check_level
from kolkhoz_tg.service.common import (
    ACTIVE,
    LOBBY,
    OPEN,
    ai_seat,
    check_reminders,
    check_standin,
    check_timeout,
    locale_or_none,
    make_rules,
    new_note,
    notification_record,
    parse_seed,
)
from kolkhoz_tg.service.errors import BadRequest, NotAllowed, ServiceError, WrongState
from kolkhoz_tg.service.gametx import GameTx
from kolkhoz_tg.service.kernel import Kernel
from kolkhoz_tg.service.notices import write_notices
from kolkhoz_tg.service.payloads import Aborted, GameStarted
from kolkhoz_tg.service.records import (
    PRACTICE_KEY,
    REMATCH_KEY,
    REMATCHED_KEY,
    ActResult,
    ActStatus,
    GameInfo,
)
from kolkhoz_tg.storage.models import (
    ChatRow,
    GameRow,
    GameStatus,
    SeatRow,
    UserRow,
)


@dataclass(frozen=True, slots=True)
class LobbyOpening:
    """What :meth:`LobbyService.open_lobby` did: the chat's language (settled by it), and
    the lobby it opened (``game``), or the open game it found at the place (``existing``;
    ``raced``: found only after another request opened it first), or why it could not open
    one (``error``); all None when asked not to create and nothing is there."""

    locale: str
    game: GameInfo | None = None
    existing: GameInfo | None = None
    raced: bool = False
    error: ServiceError | None = None


class LobbyService:
    """The lobby: create a game, seats, bots, rules and clock settings, start, abort."""

    def __init__(self, kernel: Kernel) -> None:
        self.kernel = kernel

    def create_game(
        self,
        chat_id: int,
        creator_id: int,
        *,
        topic_id: int | None = None,
        creator_name: str | None = None,
        preset: str | None = None,
        options: dict[str, Any] | None = None,
        players: int = 4,
        turn_timeout: str | int | None = None,
        reminders: list[str] | None = None,
        standin_after: int | None = None,
        seed: int | str | None = None,
        join: bool = True,
        alone: bool = True,
    ) -> GameInfo:
        """Open a lobby in ``chat_id`` (in its forum topic ``topic_id``, if given); the
        creator takes seat 0 unless ``join`` is False.

        Unset values come from the chat's defaults, then the service settings. Raises
        :class:`BadRequest` (``bad_preset``, ``bad_option``, ``bad_players``,
        ``bad_duration``, ``bad_reminders``, ``bad_standin``) or :class:`NotAllowed`
        (``place_taken``: the chat's topic holds an open game already, and ``alone`` is
        not switched off, as a front end with one game per chat, like a terminal, may)."""
        if not isinstance(players, int) or not 3 <= players <= 5:
            raise BadRequest(f"3 to 5 players, not {players!r}", "bad_players")
        with self.kernel.write() as s:
            chat = self.kernel.ensure_chat_row(s, chat_id)
            if alone:
                self.kernel.check_place(s, chat_id, topic_id)
            user = self.kernel.ensure_user_row(s, creator_id, creator_name)
            d = chat.settings
            preset_value = preset or d.get("preset") or "classic"
            opts = options if options is not None else d.get("options") or {}
            rules = make_rules(preset_value, opts)
            row = GameRow(
                chat_id=chat_id,
                topic_id=topic_id,
                creator_id=creator_id,
                status=LOBBY,
                # The preset chosen, whatever options change (the house rules): the game
                # keeps its name, and its rules tell what differs.
                preset=preset_value,
                rules=rules.to_dict(),
                players=players,
                seed=str(seed) if seed is not None else str(secrets.randbelow(10**12)),
                turn_timeout=(
                    check_timeout(turn_timeout) if turn_timeout is not None
                    else d.get("turn_timeout", self.kernel.default_turn_timeout)
                ),
                reminders=(
                    check_reminders(reminders) if reminders is not None
                    else d.get("reminders", self.kernel.default_reminders)
                ),
                standin_after=(
                    check_standin(standin_after) if standin_after is not None
                    else d.get("standin_after", self.kernel.default_standin_after)
                ),
                created_at=self.kernel.clock.now(),
                meta={},
            )
            s.add(row)
            s.flush()
            assert row.id is not None
            if join:
                s.add(SeatRow(game_id=row.id, seat=0, user_id=creator_id, name=user.name,
                              joined_at=self.kernel.clock.now()))
            write_notices(s, row, chat, self.kernel.clock.now(), [creator_id])
            s.flush()
            return self.kernel.game_info(s, row)

    def rematch(
        self, game_id: int, user_id: int, meta: dict[str, Any] | None = None
    ) -> GameInfo:
        """"Play again" on a finished game's board, by one of its players: a lobby in the
        same chat and forum topic with the same rules, seats and clock settings, opened by
        them and in their seat; its bots in theirs at their levels; the other players'
        seats kept for them (``REMATCH_KEY``) until they answer (:meth:`join`,
        :meth:`leave`) or the time per move (at most a day) runs out. One rematch per game:
        a repeated tap raises :class:`NotAllowed` ``rematch_done``; also ``not_seated``,
        ``place_taken``, and :class:`WrongState` ``not_finished``. ``meta``: the front end's
        values for the new game (as :meth:`GameService.set_meta`'s)."""
        with self.kernel.write() as s:
            old = self.kernel.get_game(s, game_id)
            if old.status != GameStatus.FINISHED.value or old.meta.get(PRACTICE_KEY):
                raise WrongState("the game is not over", "not_finished")
            seats = self.kernel.seats_of(s, game_id)
            if not any(r.user_id == user_id and not r.is_bot for r in seats.values()):
                raise NotAllowed("not a player of this game", "not_seated")
            if old.meta.get(REMATCHED_KEY):
                raise NotAllowed("a rematch was opened already", "rematch_done")
            self.kernel.check_place(s, old.chat_id, old.topic_id)
            now = self.kernel.clock.now()
            row = GameRow(chat_id=old.chat_id, topic_id=old.topic_id, creator_id=user_id,
                          status=LOBBY, preset=old.preset, rules=dict(old.rules),
                          players=old.players, seed=str(secrets.randbelow(10**12)),
                          turn_timeout=old.turn_timeout, reminders=list(old.reminders),
                          standin_after=old.standin_after, created_at=now, meta={})
            s.add(row)
            s.flush()
            assert row.id is not None
            invited = []
            for r in seats.values():
                if r.is_bot or r.user_id == user_id:
                    s.add(SeatRow(game_id=row.id, seat=r.seat, user_id=r.user_id,
                                  is_bot=r.is_bot, level=r.level, name=r.name, joined_at=now))
                elif r.user_id is not None:
                    invited.append([r.seat, r.user_id, r.name])
            until = now + min(timedelta(seconds=old.turn_timeout), timedelta(days=1))
            row.meta = {**(meta or {}), REMATCH_KEY: {"of": game_id, "invited": invited,
                                                      "until": until.isoformat()}}
            old.meta = {**old.meta, REMATCHED_KEY: row.id}
            players = [r.user_id for r in seats.values() if r.user_id is not None]
            write_notices(s, row, s.get(ChatRow, row.chat_id), now, players)
            s.flush()
            return self.kernel.game_info(s, row)

    def open_lobby(
        self,
        chat_id: int,
        creator_id: int,
        *,
        title: str | None = None,
        creator_name: str | None = None,
        creator_locale: str | None = None,
        topic_id: int | None = None,
        preset: str | None = None,
        options: dict[str, Any] | None = None,
        players: int = 4,
        create: bool = True,
    ) -> LobbyOpening:
        """A group's request for a new game, in one call: the chat recorded (``title``), its
        language settled to the creator's when it has none (theirs, else
        ``creator_locale``, else the default), the open game at the place looked up, and
        unless there is one (or ``create`` is false) a lobby opened as by
        :meth:`create_game`. A game opened there meanwhile comes back as ``existing`` with
        ``raced``; any other refusal as ``error`` (the language stays settled)."""
        with self.kernel.write() as s:
            chat = self.kernel.ensure_chat_row(s, chat_id, title)
            if chat.locale is None:
                user = s.get(UserRow, creator_id)
                chat.locale = ((user.locale if user is not None else None)
                               or locale_or_none(creator_locale) or self.kernel.settings.locale)
            locale = chat.locale
            found = self.kernel.games_at(s, chat_id, topic_id)
            existing = self.kernel.game_info(s, found[0]) if found else None
        if existing is not None or not create:
            return LobbyOpening(locale, existing=existing)
        try:
            game = self.create_game(chat_id, creator_id, topic_id=topic_id,
                                    creator_name=creator_name, preset=preset, players=players,
                                    options=options)
        except ServiceError as e:
            if e.code != "place_taken":
                return LobbyOpening(locale, error=e)
            with self.kernel.db.read() as s:
                found = self.kernel.games_at(s, chat_id, topic_id)
                existing = self.kernel.game_info(s, found[0]) if found else None
            return LobbyOpening(locale, existing=existing, raced=True)
        return LobbyOpening(locale, game=game)

    def join(
        self, game_id: int, user_id: int, name: str | None = None, seat: int | None = None
    ) -> GameInfo:
        """Take a seat (the first free one unless given). Raises :class:`WrongState`
        (``not_lobby``), :class:`NotAllowed` (``already_seated``, ``seat_taken``,
        ``game_full``) or :class:`BadRequest` (``bad_seat``)."""
        with self.kernel.write() as s:
            row = self._lobby(s, game_id)
            user = self.kernel.ensure_user_row(s, user_id, name)
            seats = self.kernel.seats_of(s, game_id)
            if any(r.user_id == user_id for r in seats.values()):
                raise NotAllowed("already seated", "already_seated")
            # The seat a rematch keeps for them, if it is still free (else any free one).
            mine = [i for i, u, _n in _invited(row) if u == user_id and i not in seats]
            index = mine[0] if mine else self._free_seat(row, seats, seat, self._kept(row))
            _answer(row, lambda i, u: u == user_id or i == index)
            s.add(SeatRow(game_id=game_id, seat=index, user_id=user_id, name=user.name,
                          joined_at=self.kernel.clock.now()))
            self.kernel.bump(s, row)
            s.flush()
            return self.kernel.game_info(s, row)

    def leave(self, game_id: int, user_id: int) -> GameInfo:
        """Give up a lobby seat. Raises ``not_lobby`` / ``not_seated``."""
        with self.kernel.write() as s:
            row = self._lobby(s, game_id)
            seat = self.kernel.seat_row(s, game_id, user_id)
            if seat is None and any(u == user_id for _i, u, _n in _invited(row)):
                # A rematch's invitation declined: the seat is free for anyone.
                _answer(row, lambda _i, u: u == user_id)
                self.kernel.bump(s, row)
                s.flush()
                return self.kernel.game_info(s, row)
            if seat is None:
                raise NotAllowed("not seated", "not_seated")
            s.delete(seat)
            self.kernel.bump(s, row)
            s.flush()
            return self.kernel.game_info(s, row)

    def add_ai_player(
        self, game_id: int, by_user: int, seat: int | None = None, level: str | None = None,
        *, version: int | None = None,
    ) -> GameInfo:
        """Seat a bot (by the creator or a seated player) of ``level`` (``engine.ai.LEVELS``;
        by default the policy's). ``version``: the game's version the request was made on
        (a button's); another one raises :class:`WrongState` ``lobby_changed``, so a
        double tap seats one bot. Raises :class:`BadRequest` ``bad_level`` too."""
        level = _level(level or self.kernel.ai_policy.default_level)
        with self.kernel.write() as s:
            row = self._lobby(s, game_id)
            self.kernel.check_seen(row, version)
            seats = self.kernel.seats_of(s, game_id)
            self._check_member(row, seats, by_user)
            index = self._free_seat(row, seats, seat, self._kept(row))
            bot = ai_seat(game_id, index, seats, self.kernel.clock.now())
            bot.level = level
            s.add(bot)
            self.kernel.bump(s, row)
            s.flush()
            return self.kernel.game_info(s, row)

    def remove_seat(self, game_id: int, by_user: int, seat: int) -> GameInfo:
        """Remove a bot (by a member) or any seat (by the creator) in the lobby."""
        with self.kernel.write() as s:
            row = self._lobby(s, game_id)
            seats = self.kernel.seats_of(s, game_id)
            self._check_member(row, seats, by_user)
            target = seats.get(seat)
            if target is None:
                raise BadRequest(f"seat {seat} is empty", "bad_seat")
            if not target.is_bot and by_user not in (row.creator_id, target.user_id):
                raise NotAllowed("only the creator removes players", "not_creator")
            s.delete(target)
            self.kernel.bump(s, row)
            s.flush()
            return self.kernel.game_info(s, row)

    def configure(
        self,
        game_id: int,
        by_user: int,
        *,
        turn_timeout: str | int | None = None,
        reminders: list[str] | None = None,
        standin_after: int | None = None,
        version: int | None = None,
    ) -> GameInfo:
        """Change the clock settings (creator only; in a running game from the next turn).
        ``version`` as for :meth:`add_ai_player`."""
        with self.kernel.write() as s:
            row = self.kernel.get_game(s, game_id)
            if row.status not in OPEN:
                raise WrongState("the game is over", "game_over")
            if by_user != row.creator_id:
                raise NotAllowed("only the creator changes settings", "not_creator")
            self.kernel.check_seen(row, version)
            if turn_timeout is not None:
                row.turn_timeout = check_timeout(turn_timeout)
            if reminders is not None:
                row.reminders = check_reminders(reminders)
            if standin_after is not None:
                row.standin_after = check_standin(standin_after)
            if row.status == LOBBY:
                self.kernel.bump(s, row)  # the lobby's buttons show the time per turn
            s.flush()
            return self.kernel.game_info(s, row)

    def configure_lobby(
        self,
        game_id: int,
        by_user: int,
        *,
        preset: str | None = None,
        options: dict[str, Any] | None = None,
        players: int | None = None,
        version: int | None = None,
    ) -> GameInfo:
        """Change the rules or the number of seats before the start (creator only).
        ``version`` as for :meth:`add_ai_player`.

        ``preset`` replaces the rules (then ``options`` apply on top); ``options`` alone
        change the current rules. Fewer seats are refused while a seat that would go is
        taken. Raises :class:`WrongState` (``not_lobby``), :class:`NotAllowed`
        (``not_creator``, ``seat_taken``) or :class:`BadRequest` (``bad_preset``,
        ``bad_option``, ``bad_players``)."""
        if players is not None and (not isinstance(players, int) or not 3 <= players <= 5):
            raise BadRequest(f"3 to 5 players, not {players!r}", "bad_players")
        with self.kernel.write() as s:
            row = self._lobby(s, game_id)
            if by_user != row.creator_id:
                raise NotAllowed("only the creator changes the rules", "not_creator")
            self.kernel.check_seen(row, version)
            if preset is not None:
                rules = make_rules(preset, options)
            elif options:
                try:
                    rules = replace(Rules.from_dict(row.rules), **options)
                except (TypeError, ValueError) as e:
                    raise BadRequest(f"bad rule options: {e}", "bad_option") from None
            else:
                rules = Rules.from_dict(row.rules)
            if players is not None:
                seats = self.kernel.seats_of(s, game_id)
                kept = self._kept(row)  # a rematch's, still to answer in time
                if any(index >= players for index in [*seats, *kept]):
                    raise NotAllowed("a seat that would go is taken", "seat_taken")
                row.players = players
            row.rules = rules.to_dict()
            if preset is not None:
                row.preset = preset
            elif row.preset is None:
                row.preset = preset_name(rules)
            self.kernel.bump(s, row)
            s.flush()
            return self.kernel.game_info(s, row)

    def start(
        self, game_id: int, by_user: int, fill_with_ai: bool = False,
        bot_level: str | None = None,
    ) -> ActResult:
        """Deal and start (creator only). Empty seats get bots of ``bot_level`` (by default
        the chat's level for stand-ins) if ``fill_with_ai``, else :class:`WrongState`
        ``not_full``. Bots and forced moves play at once (search bots, under a deferring
        policy, right after)."""
        if bot_level is not None:
            _level(bot_level)
        with self.kernel.write() as s:
            row = self._lobby(s, game_id)
            if by_user != row.creator_id:
                raise NotAllowed("only the creator starts the game", "not_creator")
            if self._kept(row):
                raise WrongState("players of the last game have not answered", "rematch_waiting")
            _answer(row, lambda _i, _u: True)  # the time for answers ran out: seats are free
            seats = self.kernel.seats_of(s, game_id)
            free = [i for i in range(row.players) if i not in seats]
            if free and not fill_with_ai:
                raise WrongState(f"{len(free)} seats are empty", "not_full")
            now = self.kernel.clock.now()
            if free and bot_level is None:
                chat = s.get(ChatRow, row.chat_id)
                chosen = chat.settings.get("bot_level") if chat is not None else None
                bot_level = (chosen if isinstance(chosen, str)
                             else self.kernel.ai_policy.default_level)
            for i in free:
                bot = ai_seat(game_id, i, seats, now)
                bot.level = bot_level
                seats[i] = bot
                s.add(bot)
            s.flush()
            game = Game.new(Rules.from_dict(row.rules), row.players, parse_seed(row.seed))
            row.state = game.to_json()
            row.status = ACTIVE
            row.started_at = now
            tx = GameTx(s, row, seats, game, now, row.version, bots=self.kernel.ai_policy)
            tx.notify(GameStarted(tx.game_header(), tx.views.typed(None)))
            tx.run_automatic()
            self.kernel.finish_tx(tx, moved=True, announce=True)
            result = self.kernel.act_result(tx, ActStatus.APPLIED, None)
        self.kernel.after_commit(tx)
        return result

    def abort(self, game_id: int, by_user: int, force: bool = False) -> ActResult:
        """Stop a game for good (the creator, or anyone the front end vouches for with
        ``force``, e.g. a chat admin)."""
        with self.kernel.write() as s:
            row = self.kernel.get_game(s, game_id)
            if row.status not in OPEN:
                raise WrongState("the game is already over", "game_over")
            if by_user != row.creator_id and not force:
                raise NotAllowed("only the creator aborts the game", "not_creator")
            now = self.kernel.clock.now()
            row.status = GameStatus.ABORTED.value
            row.finished_at = now
            row.deadline = row.next_reminder = row.next_due = None
            for seat in self.kernel.seats_of(s, game_id).values():
                seat.reminders, seat.remind_at = [], None
            version = self.kernel.bump(s, row)
            note = new_note(row, Aborted(by_user), now, version)
            self.kernel.store_notes(s, [note])
            result = ActResult(ActStatus.APPLIED, game_id, version,
                               notifications=[notification_record(note)])
        self.kernel.fire_listeners([row])
        return result

    def _lobby(self, s: Session, game_id: int) -> GameRow:
        row = self.kernel.get_game(s, game_id)
        if row.status != LOBBY:
            raise WrongState("the game has started", "not_lobby")
        return row

    def _kept(self, row: GameRow) -> set[int]:
        """The seats a rematch lobby still keeps for players who have not answered (none
        once the time for answers ran out)."""
        data = row.meta.get(REMATCH_KEY)
        until = data.get("until") if isinstance(data, dict) else None
        if not isinstance(until, str) or datetime.fromisoformat(until) <= self.kernel.clock.now():
            return set()
        return {i for i, _u, _n in _invited(row)}

    def _free_seat(
        self, row: GameRow, seats: dict[int, SeatRow], seat: int | None,
        kept: set[int] | None = None,
    ) -> int:
        kept = kept or set()
        if seat is None:
            for i in range(row.players):
                if i not in seats and i not in kept:
                    return i
            raise NotAllowed("no free seat", "game_full")
        if not isinstance(seat, int) or not 0 <= seat < row.players:
            raise BadRequest(f"no seat {seat!r}", "bad_seat")
        if seat in seats or seat in kept:
            raise NotAllowed(f"seat {seat} is taken", "seat_taken")
        return seat

    def _check_member(self, row: GameRow, seats: dict[int, SeatRow], user_id: int) -> None:
        if user_id != row.creator_id and not any(r.user_id == user_id for r in seats.values()):
            raise NotAllowed("not a member of this game", "not_seated")


def _invited(row: GameRow) -> list[tuple[int, int, str]]:
    """A rematch lobby's invitations not yet answered: (seat, user id, name)."""
    data = row.meta.get(REMATCH_KEY)
    found = data.get("invited") if isinstance(data, dict) else None
    return [(int(i), int(u), str(n)) for i, u, n in found or []]


def _answer(row: GameRow, answered: Callable[[int, int], bool]) -> None:
    """Drop the invitations (seat, user id) that ``answered`` says are answered."""
    data = row.meta.get(REMATCH_KEY)
    if not isinstance(data, dict):
        return
    left = [[i, u, n] for i, u, n in _invited(row) if not answered(i, u)]
    row.meta = {**row.meta, REMATCH_KEY: {**data, "invited": left}}


def _level(level: str) -> str:
    try:
        return check_level(level)
    except ValueError as e:
        raise BadRequest(str(e), "bad_level") from None
