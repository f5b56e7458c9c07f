"""The ratings table: computed from the finished games by :mod:`kolkhoz_tg.service.ratings`
and cached in ``ratings``.

Nothing is rated on the move path: a finished game only makes the cache stale (the number of
finished games differs from the one it was computed from; a group's games moving to its
supergroup's id drop the count, :func:`mark_stale`), and the next reader of a rating
(``/stats``) recomputes every scope from the stored games in one write transaction. That is
cheap at the scale of a chat bot (a few thousand games: well under a second) and always
correct; :meth:`RatingsService.rerate` (``kolkhoz games rerate``) does the same on demand.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, col, delete, select

from engine import Rules
from kolkhoz_tg.house_rules import rated_rules
from kolkhoz_tg.service import ratings
from kolkhoz_tg.service.kernel import Kernel
from kolkhoz_tg.service.records import PRACTICE_KEY, RatingLine
from kolkhoz_tg.storage.models import (
    ActionRow,
    Actor,
    ChatRow,
    GameRow,
    GameStatus,
    RatingRow,
    SeatRow,
    UserRow,
)

_FINISHED = GameStatus.FINISHED.value
_META = ("meta", "finished_games")


def _finished_count(s: Session) -> int:
    return int(s.exec(select(sa.func.count()).select_from(GameRow).where(
        GameRow.status == _FINISHED)).one())


def _load_games(s: Session) -> list[ratings.FinishedGame]:
    """Every finished game with its seats, in the order the games finished."""
    games = s.execute(  # five columns: more than sqlmodel's select() types
        sa.select(col(GameRow.id), col(GameRow.chat_id), col(GameRow.result), col(GameRow.meta),
                  col(GameRow.rules))
        .where(col(GameRow.status) == _FINISHED)
        .order_by(col(GameRow.finished_at), col(GameRow.id))
    ).all()
    seats: dict[int, list[SeatRow]] = {}
    for seat in s.exec(select(SeatRow).join(GameRow, SeatRow.game_id == GameRow.id)  # type: ignore[arg-type]
                       .where(GameRow.status == _FINISHED)).all():
        seats.setdefault(seat.game_id, []).append(seat)
    moves = {
        (g, seat): n
        for g, seat, n in s.exec(
            # A move taken back is no move: its take-back entry cancels it.
            select(ActionRow.game_id, ActionRow.seat, sa.func.sum(sa.case(
                (col(ActionRow.actor) == Actor.TAKEBACK.value, -1), else_=1)))
            .join(GameRow, ActionRow.game_id == GameRow.id)  # type: ignore[arg-type]
            .where(GameRow.status == _FINISHED)
            .group_by(ActionRow.game_id, ActionRow.seat)  # type: ignore[arg-type]
        ).all()
    }
    out = []
    for game_id, chat_id, result, meta, rules in games:
        assert game_id is not None
        if not result or "scores" not in result:
            continue
        scores, winners = result["scores"], set(result.get("winners", []))
        rated = []
        for seat in sorted(seats.get(game_id, []), key=lambda r: r.seat):
            if seat.is_bot or seat.user_id is None:
                key = ratings.ai_key(seat.level)
            else:
                key = ratings.user_key(seat.user_id)
            rated.append(ratings.RatedSeat(
                key=key, score=scores[seat.seat], moves=moves.get((game_id, seat.seat), 0),
                auto_moves=seat.auto_moves, winner=seat.seat in winners))
        out.append(ratings.FinishedGame(game_id, chat_id, tuple(rated),
                                        practice=bool((meta or {}).get(PRACTICE_KEY)),
                                        house_rules=not _rated(rules or {})))
    return out


def _rated(stored: dict[str, Any]) -> bool:
    """Whether a game's stored rules count for ratings (rules this version cannot read do
    not)."""
    try:
        return rated_rules(Rules.from_dict(stored))
    except (TypeError, ValueError):
        return False


def mark_stale(s: Session) -> None:
    """Make the next reader recompute the ratings (a change the count of finished games
    does not show, like a chat's games moving to its new id: rated per chat, they would
    stay under the old one)."""
    s.exec(delete(RatingRow).where(
        col(RatingRow.scope) == _META[0], col(RatingRow.player) == _META[1]))


class RatingsService:
    """The ratings table: recomputed from the finished games when stale, read per
    chat or per player."""

    def __init__(self, kernel: Kernel) -> None:
        self.kernel = kernel

    def rerate(self) -> int:
        """Recompute every rating from the stored finished games; returns how many games
        were read."""
        with self.kernel.db.write() as s:
            return self._rerate(s)

    def _rerate(self, s: Session) -> int:
        finished = _finished_count(s)
        result = ratings.compute(_load_games(s))
        now = self.kernel.clock.now()
        s.exec(delete(RatingRow))
        rows = [RatingRow(scope=_META[0], player=_META[1], games=finished, computed_at=now)]
        for scope, table in result.tables.items():
            for key, r in table.items():
                user_id = int(key.split(":", 1)[1]) if key.startswith("user:") else None
                rows.append(RatingRow(
                    scope=scope, player=key, user_id=user_id, mu=r.mu, sigma=r.sigma,
                    games=r.games, wins=r.wins, place_sum=r.place_sum, last_game=r.last_game,
                    computed_at=now))
        s.add_all(rows)
        return finished

    def rating_changes(self, game_id: int) -> dict[int, tuple[int, int]]:
        """What a finished game did to its players' ratings in its chat: user id → (the
        displayed rating before it, after it), for the players it rated (none for a
        practice game, or a player a bot played for most of the time). Read from the stored
        games, like every rating."""
        with self.kernel.db.read() as s:
            games = _load_games(s)
        index = next((i for i, g in enumerate(games) if g.game_id == game_id), None)
        if index is None or games[index].practice or games[index].house_rules:
            return {}
        game = games[index]
        scope = ratings.chat_scope(game.chat_id)
        state = ratings.compute(games[:index])
        table = state.tables.get(scope, {})
        fresh = ratings.display(*ratings.fresh())
        keys = [s.key for s in game.seats if s.rated and s.key.startswith("user:")]
        before = {k: table[k].value if k in table else fresh for k in keys}
        after = ratings.compute([game], start=state).tables.get(scope, {})  # one game more
        return {int(k.split(":", 1)[1]): (before[k], after[k].value)
                for k in keys if k in after}

    def _fresh_ratings(self) -> None:
        """Recompute the table if a game finished since it was computed."""
        with self.kernel.db.read() as s:
            meta = s.get(RatingRow, _META)
            if meta is not None and meta.games == _finished_count(s):
                return
        try:
            with self.kernel.db.write() as s:
                meta = s.get(RatingRow, _META)
                if meta is None or meta.games != _finished_count(s):
                    self._rerate(s)
        except sa.exc.IntegrityError:
            pass  # another process filled the table at the same time: theirs is as good

    def _lines(self, rows: list[RatingRow], s: Session) -> list[RatingLine]:
        user_ids = {r.user_id for r in rows if r.user_id is not None}
        names = {u.id: u.name for u in s.exec(
            select(UserRow).where(col(UserRow.id).in_(user_ids))).all()} if user_ids else {}
        chat_ids = {int(r.scope.split(":", 1)[1]) for r in rows if r.scope.startswith("chat:")}
        titles = {c.id: c.title for c in s.exec(
            select(ChatRow).where(col(ChatRow.id).in_(chat_ids))).all()} if chat_ids else {}
        lines = []
        for r in rows:
            chat_id = int(r.scope.split(":", 1)[1]) if r.scope.startswith("chat:") else None
            level = r.player.split(":", 1)[1] if r.player.startswith("bot:") else None
            lines.append(RatingLine(
                chat_id=chat_id,
                chat_title=titles.get(chat_id) if chat_id is not None else None,
                user_id=r.user_id,
                level=level,
                name=names.get(r.user_id, str(r.user_id)) if r.user_id is not None else "",
                rating=ratings.display(r.mu, r.sigma),
                games=r.games,
                wins=r.wins,
                average_place=r.place_sum / r.games if r.games else 0.0,
            ))
        return sorted(lines, key=lambda x: (x.chat_id is not None, -x.rating, -x.games,
                                            x.name, x.level or ""))

    def chat_ratings(self, chat_id: int) -> list[RatingLine]:
        """The chat's rating table, best first (humans and bots per level)."""
        self._fresh_ratings()
        with self.kernel.db.read() as s:
            rows = list(s.exec(select(RatingRow).where(
                RatingRow.scope == ratings.chat_scope(chat_id))).all())
            return self._lines(rows, s)

    def user_ratings(self, user_id: int) -> list[RatingLine]:
        """A player's global line (``chat_id`` None) first, then one line per chat."""
        self._fresh_ratings()
        with self.kernel.db.read() as s:
            rows = list(s.exec(select(RatingRow).where(RatingRow.user_id == user_id)).all())
            return self._lines(rows, s)
