"""Operator commands: ``kolkhoz db …`` and ``kolkhoz games …``.

- ``kolkhoz db upgrade``: apply the Alembic migrations (idempotent; the bot also does it on
  start). ``kolkhoz db ping``: one connection attempt (the Docker entrypoint loops on it).
- ``kolkhoz games list`` / ``show ID`` / ``export ID``: look at games without Telegram.
- ``kolkhoz games rerate``: recompute every player's rating from the stored finished games
  (the ``ratings`` table is only a cache of them, see ``kolkhoz_tg/service/ratings.py``).

``show`` never prints a hidden card of a game still in play: it renders the public view
(what the group's board shows) and masks the cards of swaps in the log. Only a finished game
is shown whole. ``export`` writes what :meth:`engine.Game.replay` needs (rules, players, seed,
first planner, log); the seed and the log determine every hand, so exporting a game still in
play reveals it, and the command says so on stderr.

These commands read the database directly and change nothing but the schema (``db upgrade``)
and the ratings cache (``games rerate``).
"""

from __future__ import annotations

import argparse
import errno
import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlmodel import select

from engine import Action, ActionKind, Game, InvalidAction, Rules
from kolkhoz_tg import present
from kolkhoz_tg.config import Settings
from kolkhoz_tg.i18n import translator
from kolkhoz_tg.service import GameInfo, GameService, ServiceError
from kolkhoz_tg.service.takeback import effective_log
from kolkhoz_tg.storage.database import (
    Database,
    make_engine,
    migrate,
    migrations_dir,
    normalize_url,
)
from kolkhoz_tg.storage.models import Actor, GameRow, GameStatus, SeatRow

#: The top-level ``kolkhoz`` commands this module handles.
COMMANDS = ("db", "games")
EXPORT_FORMAT = "kolkhoz-game-export"
EXPORT_VERSION = 1
_STATUSES = tuple(s.value for s in GameStatus)


class AdminError(Exception):
    """A failure to report in one line (exit status 1)."""


# ---------------------------------------------------------------------- argument parsing


def add_commands(commands: Any) -> None:
    """Add ``db`` and ``games`` to the ``kolkhoz`` sub-command parser ``commands``."""
    url_help = "database URL (default: KOLKHOZ_DATABASE_URL, .env, or sqlite:///kolkhoz.sqlite3)"

    db = commands.add_parser("db", help="database schema: upgrade, ping")
    db_commands = db.add_subparsers(dest="db_command", required=True, metavar="{upgrade,ping}")
    for name, text in (
        ("upgrade", "apply the migrations (idempotent)"),
        ("ping", "try to connect once; exit status 0 if the database answers"),
    ):
        sub = db_commands.add_parser(name, help=text, description=text)
        sub.add_argument("--database-url", dest="database_url", default=None, help=url_help)

    games = commands.add_parser("games", help="list, show or export games; recompute ratings")
    game_commands = games.add_subparsers(
        dest="games_command", required=True, metavar="{list,show,export,rerate}"
    )
    listing = game_commands.add_parser("list", help="a table of games, newest first")
    listing.add_argument("--chat", type=int, default=None, help="only this chat's games")
    listing.add_argument("--status", choices=_STATUSES, default=None, help="only this status")
    listing.add_argument("--limit", type=int, default=100, help="at most this many (100)")
    show = game_commands.add_parser(
        "show", help="header, seats, the public board and the log (no hidden card in play)"
    )
    show.add_argument("game_id", type=int, metavar="ID")
    export = game_commands.add_parser(
        "export",
        help="JSON that engine.Game.replay rebuilds the game from (reveals a running game)",
    )
    export.add_argument("game_id", type=int, metavar="ID")
    export.add_argument("-o", "--output", default=None, metavar="FILE",
                        help="write to FILE (default: stdout; in the container a mounted "
                             "directory, since /app is read-only)")
    rerate = game_commands.add_parser(
        "rerate", help="recompute every rating from the stored finished games"
    )
    for sub in (listing, show, export, rerate):
        sub.add_argument("--database-url", dest="database_url", default=None, help=url_help)


def run(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Run a parsed ``db`` or ``games`` command; returns the exit status."""
    out = out or sys.stdout
    err = err or sys.stderr
    url = args.database_url or Settings().database_url
    try:
        if args.command == "db":
            if args.db_command == "upgrade":
                return db_upgrade(url, out)
            return db_ping(url, out, err)
        with _open(url) as service:
            if args.games_command == "list":
                out.write(games_table(service, args.chat, args.status, args.limit))
            elif args.games_command == "show":
                out.write(show_game(service, args.game_id))
            elif args.games_command == "rerate":
                out.write(rerate(service))
            else:
                return _export(service, args.game_id, args.output, out, err)
        return 0
    except AdminError as e:
        print(f"kolkhoz: {e}", file=err)
        return 1


# ---------------------------------------------------------------------- db


def redact(url: str) -> str:
    """The URL with its password hidden, for log lines."""
    try:
        return sa.engine.make_url(url).render_as_string(hide_password=True)
    except sa.exc.ArgumentError:
        return url


def _head_revision() -> str | None:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    cfg = Config()
    try:
        cfg.set_main_option("script_location", str(migrations_dir()))
    except FileNotFoundError as e:
        raise AdminError(str(e)) from None
    return ScriptDirectory.from_config(cfg).get_current_head()


def current_revision(engine: Engine) -> str | None:
    """The schema's Alembic revision (None: an empty database)."""
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def db_upgrade(url: str, out: TextIO) -> int:
    """Migrate ``url`` to the newest revision, saying what it found and what it did."""
    from alembic.util import CommandError

    head = _head_revision()
    print(f"Database: {redact(url)}", file=out, flush=True)
    db = _connect(url)
    try:
        before = current_revision(db.engine)
        if before == head:
            print(f"Schema is up to date (revision {head}).", file=out, flush=True)
            return 0
        print(f"Upgrading the schema: {before or 'empty'} -> {head} ...", file=out, flush=True)
        try:
            migrate(db.engine)
        except CommandError as e:  # e.g. a revision this version of the code does not know
            raise AdminError(f"migration failed: {e}") from None
        after = current_revision(db.engine)
        if after != head:  # pragma: no cover - alembic would have raised
            raise AdminError(f"migration ended at revision {after}, not {head}")
        print(f"Schema upgraded to revision {after}.", file=out, flush=True)
        return 0
    finally:
        db.dispose()


def db_ping(url: str, out: TextIO, err: TextIO) -> int:
    """One connection attempt; 0 if the database answers, 1 (with the reason) if not."""
    engine = _engine(url)
    try:
        with engine.connect() as conn:
            conn.exec_driver_sql("SELECT 1")
    except sa.exc.SQLAlchemyError as e:
        reason = str(getattr(e, "orig", None) or e).strip().splitlines()
        print(f"Database {redact(url)} does not answer: {reason[0] if reason else e}",
              file=err)
        return 1
    finally:
        engine.dispose()
    print(f"Database {redact(url)} answers.", file=out)
    return 0


def _engine(url: str) -> Engine:
    """An engine that gives up on an unreachable PostgreSQL server after 5 seconds."""
    if normalize_url(url).startswith("postgresql"):
        return make_engine(url, connect_args={"connect_timeout": 5})
    return make_engine(url)


def _connect(url: str) -> Database:
    kwargs: dict[str, Any] = {}
    if normalize_url(url).startswith("postgresql"):
        kwargs["connect_args"] = {"connect_timeout": 5}
    try:
        db = Database(url, run_migrations=False, **kwargs)
        with db.engine.connect() as conn:
            conn.exec_driver_sql("SELECT 1")
    except sa.exc.SQLAlchemyError as e:
        reason = str(getattr(e, "orig", None) or e).strip().splitlines()
        raise AdminError(
            f"cannot connect to {redact(url)}: {reason[0] if reason else e}"
        ) from None
    return db


class _open:
    """A service on an existing, migrated database (context manager)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.db: Database | None = None

    def __enter__(self) -> GameService:
        parsed = sa.engine.make_url(normalize_url(self.url))
        path = parsed.database
        if parsed.get_backend_name() == "sqlite" and path not in (None, "", ":memory:"):
            assert path is not None
            if not Path(path).exists():  # do not leave an empty file behind
                raise AdminError(f"no database file {path}")
        self.db = _connect(self.url)
        revision = current_revision(self.db.engine)
        if revision is None:
            self.db.dispose()
            raise AdminError(
                f"{redact(self.url)} has no Kolkhoz schema yet: run `kolkhoz db upgrade`"
            )
        return GameService(self.db, settings=Settings(database_url=self.url))

    def __exit__(self, *exc: object) -> None:
        if self.db is not None:
            self.db.dispose()


# ---------------------------------------------------------------------- games list


def _when(value: datetime | None) -> str:
    if value is None:
        return "-"
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def _year(row: GameRow) -> str:
    if row.state is None:
        return "-"
    state = row.state.get("state", {})
    return f"{state.get('year', '?')}/{row.rules.get('years', '?')}"


def _table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
             for r in [header, *rows]]
    return "\n".join(lines) + "\n"


def games_table(
    service: GameService, chat: int | None = None, status: str | None = None, limit: int = 100
) -> str:
    """The ``games list`` table: id, chat, status, preset, players, year, version, deadline."""
    with service.db.read() as s:
        stmt = select(GameRow)
        if chat is not None:
            stmt = stmt.where(GameRow.chat_id == chat)
        if status is not None:
            stmt = stmt.where(GameRow.status == status)
        stmt = stmt.order_by(GameRow.id.desc()).limit(limit)  # type: ignore[union-attr]
        games = s.exec(stmt).all()
        ids = [g.id for g in games]
        seats = s.exec(
            select(SeatRow).where(SeatRow.game_id.in_(ids))  # type: ignore[attr-defined]
        ).all() if ids else []
    bots: dict[int, int] = {}
    taken: dict[int, int] = {}
    for seat in seats:
        taken[seat.game_id] = taken.get(seat.game_id, 0) + 1
        if seat.is_bot:
            bots[seat.game_id] = bots.get(seat.game_id, 0) + 1
    if not games:
        return "No games.\n"
    header = ["id", "chat", "status", "preset", "players", "year", "version", "deadline"]
    rows = []
    for g in games:
        gid = int(g.id or 0)
        players = f"{taken.get(gid, 0)}/{g.players}"
        if bots.get(gid):
            players += f" ({bots[gid]} bot{'s' if bots[gid] > 1 else ''})"
        rows.append([str(gid), str(g.chat_id), g.status, g.preset or "-", players, _year(g),
                     str(g.version), _when(g.deadline)])
    return _table(header, rows)


# ---------------------------------------------------------------------- games rerate


def rerate(service: GameService) -> str:
    """``games rerate``: the ratings table rebuilt from every finished game."""
    games = service.rerate()
    return f"Ratings recomputed from {games} finished game{'s' if games != 1 else ''}.\n"


# ---------------------------------------------------------------------- games show


def _seat_lines(info: GameInfo) -> list[str]:
    lines = []
    by_seat = {s.seat: s for s in info.seats}
    for i in range(info.players):
        seat = by_seat.get(i)
        if seat is None:
            lines.append(f"  {i}: (empty)")
            continue
        who = "bot" if seat.is_ai else f"user {seat.user_id}"
        flags = []
        if seat.standin:
            flags.append("stand-in playing")
        if seat.timeouts:
            flags.append(f"{seat.timeouts} timeouts in a row")
        if seat.auto_moves:
            flags.append(f"{seat.auto_moves} automatic moves")
        extra = f" · {', '.join(flags)}" if flags else ""
        lines.append(f"  {i}: {seat.name} ({who}){extra}")
    return lines


def _not_found(game_id: int, e: ServiceError) -> AdminError:
    if e.code == "game_not_found":
        return AdminError(f"no game {game_id}")
    return AdminError(f"game {game_id}: {e.code}: {e}")


def public_action(action: str) -> str:
    """The log entry as everyone at the table saw it: a swap's cards and the card passed
    to a neighbour are private."""
    try:
        parsed = Action.parse(action)
    except InvalidAction:
        return "?"
    if parsed.kind is ActionKind.SWAP and parsed != Action.swap_pass():
        return "swap:(hidden)"
    if parsed.kind is ActionKind.PASS:
        return "pass:(hidden)"
    return action


def taken_back(log: list[dict[str, Any]]) -> set[int]:
    """The positions in the log of the moves its take-back entries undid."""
    standing: list[int] = []
    undone: set[int] = set()
    for i, entry in enumerate(log):
        if entry["actor"] == Actor.TAKEBACK.value:
            if standing:
                undone.add(standing.pop())
        else:
            standing.append(i)
    return undone


def show_game(service: GameService, game_id: int) -> str:
    """Header, seats, the board and the log. Hidden cards only once the game is finished."""
    try:
        board = service.board(game_id)
    except ServiceError as e:
        raise _not_found(game_id, e) from None
    info = board.game
    finished = info.status == GameStatus.FINISHED.value
    lines = [
        f"Game {info.id} · chat {info.chat_id}"
        + ("" if info.topic_id is None else f" (topic {info.topic_id})")
        + f" · {info.status} · preset {info.preset or '-'}"
        f" · {info.players} players · version {info.version}",
        f"Seed {info.seed} · turn time {info.turn_timeout}s · reminders "
        f"{','.join(info.reminders) or '-'} · stand-in after {info.standin_after}",
        f"Created {_when(info.created_at)} · started {_when(info.started_at)} · "
        f"finished {_when(info.finished_at)} · deadline {_when(info.deadline)}",
        "Seats:",
        *_seat_lines(info),
    ]
    if board.view is not None:
        view = board.view
        tr = translator("en")
        now = datetime.now(UTC)
        lines += ["", "Board (public view):",
                  present.board_text(tr, info, view, now, board.deadline)]
        lines.append(f"Phase {view.phase.value} · to act: {list(view.to_act) or '-'} · deck "
                     f"{view.deck_count} · hands "
                     f"{[p.hand_count for p in view.players]}")
        if finished:
            game = service.snapshot(game_id)
            if game is not None and game.is_over:
                scores = None if view.scores is None else list(view.scores)
                winners = None if view.winners is None else list(view.winners)
                lines.append(f"Scores {scores} · winners {winners}")
                for seat, plot in enumerate(game.final_plots()):
                    lines.append(f"  plot of {seat}: {' '.join(plot) or '-'}")
    log = service.action_log(game_id)
    title = "Action log:" if finished else "Action log (swapped cards hidden while in play):"
    lines += ["", title if log else "Action log: empty"]
    # While in play, a card taken back is in its player's hand again: hidden like a swap.
    undone = set() if finished else taken_back(log)
    for i, entry in enumerate(log):
        action = entry["action"] if finished else public_action(entry["action"])
        if entry["actor"] == Actor.TAKEBACK.value:
            action = "takeback"
        elif i in undone:
            action = "play:(taken back)"
        lines.append(f"  {entry['seq']:>4}  seat {entry['seat']}  {action:<22} "
                     f"{entry['actor']:<8} v{entry['version']:<4} {_when(entry['at'])}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------- games export


def export_game(service: GameService, game_id: int) -> dict[str, Any]:
    """Everything :meth:`engine.Game.replay` needs, plus the header and who made each move."""
    try:
        info = service.game_info(game_id)
        game = service.snapshot(game_id)
    except ServiceError as e:
        raise _not_found(game_id, e) from None
    if game is None:
        raise AdminError(f"game {game_id} is still in the lobby: nothing to replay yet")
    log = service.action_log(game_id)
    return {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "exported_at": datetime.now(UTC).isoformat(),
        "game_id": info.id,
        "chat_id": info.chat_id,
        "status": info.status,
        "preset": info.preset,
        "rules": info.rules.to_dict(),
        "players": info.players,
        "seed": game.seed,
        "planner": game.planner0,
        "log": [[e["seat"], e["action"]] for e in effective_log(log)],
        "actions": [
            {**e, "at": e["at"].isoformat() if e["at"] is not None else None} for e in log
        ],
        "seats": [s.to_dict() for s in info.seats],
        "game_version": info.version,
        "started_at": None if info.started_at is None else info.started_at.isoformat(),
        "finished_at": None if info.finished_at is None else info.finished_at.isoformat(),
    }


def replay_export(data: dict[str, Any]) -> Game:
    """Rebuild the game an export describes."""
    return Game.replay(Rules.from_dict(data["rules"]), data["players"], data["seed"],
                       data["log"], planner=data["planner"])


def _export(
    service: GameService, game_id: int, output: str | None, out: TextIO, err: TextIO
) -> int:
    data = export_game(service, game_id)
    if data["status"] != GameStatus.FINISHED.value:
        print(f"warning: game {game_id} is {data['status']}, not finished: the seed and the "
              "log in this export determine every hand and face-down card. Keep it away "
              "from the players.", file=err)
    if replay_export(data) != service.snapshot(game_id):
        print(f"warning: replaying game {game_id}'s log does not give its stored snapshot",
              file=err)
    text = json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    if output is None or output == "-":
        out.write(text)
    else:
        try:
            Path(output).write_text(text, encoding="utf-8")
        except OSError as e:  # e.g. the image's read-only /app: one line, no traceback
            hint = ""
            if e.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
                hint = " (in the container, write to stdout or into a mounted directory)"
            raise AdminError(f"cannot write {output}: {e.strerror or e}{hint}") from None
        print(f"Game {game_id} exported to {output} ({len(data['log'])} moves).", file=err)
    return 0
