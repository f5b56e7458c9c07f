"""The operator commands: ``kolkhoz db upgrade|ping`` and ``kolkhoz games list|show|export``."""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
import sqlalchemy as sa

from engine import Game, Rules
from kolkhoz_tg import admin, present
from kolkhoz_tg.cli import main
from kolkhoz_tg.i18n import translator
from kolkhoz_tg.service import GameService, SeatView
from kolkhoz_tg.storage.database import Database
from tests.service.helpers import new_game, play_out, step

REPO = Path(__file__).resolve().parents[2]


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture(autouse=True)
def _no_dotenv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No developer .env or KOLKHOZ_DATABASE_URL leaks into these commands."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("KOLKHOZ_DATABASE_URL", raising=False)


def swapper(seed: int) -> object:
    """Random moves, but always a real swap when a swap is possible."""
    rng = random.Random(seed)

    def choose(view: SeatView) -> str:
        swaps = [a for a in view.legal if a.startswith("swap:") and a != "swap:pass"]
        return swaps[0] if swaps else rng.choice(view.legal)

    return choose


def running_game_with_swaps(service: GameService) -> int:
    """An active ``kolkhoz`` game (4 humans) whose log holds real swaps and year 2 started."""
    game, _ = new_game(service, preset="kolkhoz", seed=11)
    choose = swapper(3)
    for _ in range(2000):
        log = service.action_log(game.id)
        swapped = any(e["action"].startswith("swap:") and e["action"] != "swap:pass"
                      for e in log)
        if swapped and log[-1]["action"].startswith("play:"):
            break
        assert step(service, game.id, choose)  # type: ignore[arg-type]
    else:  # pragma: no cover
        pytest.fail("no swap happened")
    assert service.game_info(game.id).status == "active"
    return game.id


# ---------------------------------------------------------------------- db


def test_db_upgrade_fresh_then_idempotent(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    url = f"sqlite:///{tmp_path / 'new.sqlite3'}"
    code, out, _ = run_cli(capsys, "db", "upgrade", "--database-url", url)
    assert code == 0
    head = admin._head_revision()
    assert f"Database: {url}" in out
    assert f"Upgrading the schema: empty -> {head}" in out
    assert f"Schema upgraded to revision {head}." in out
    code, out, _ = run_cli(capsys, "db", "upgrade", "--database-url", url)
    assert code == 0
    assert f"Schema is up to date (revision {head})." in out
    db = Database(url, run_migrations=False)
    assert admin.current_revision(db.engine) == head
    assert {"games", "seats", "actions"} <= set(sa.inspect(db.engine).get_table_names())
    db.dispose()


def test_db_upgrade_reads_the_environment(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "from-env.sqlite3"
    monkeypatch.setenv("KOLKHOZ_DATABASE_URL", f"sqlite:///{path}")
    code, out, _ = run_cli(capsys, "db", "upgrade")
    assert code == 0 and "Schema upgraded" in out
    assert path.exists()


def test_db_upgrade_redacts_the_password_and_fails_clearly(
    capsys: pytest.CaptureFixture[str],
) -> None:
    url = "postgresql://kolkhoz:s3cret@127.0.0.1:1/kolkhoz"
    code, out, err = run_cli(capsys, "db", "upgrade", "--database-url", url)
    assert code == 1
    assert "s3cret" not in out + err
    assert "***" in out
    assert err.startswith("kolkhoz: cannot connect to postgresql://kolkhoz:***@127.0.0.1:1/")


def test_db_ping(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = run_cli(capsys, "db", "ping", "--database-url",
                           f"sqlite:///{tmp_path / 'p.sqlite3'}")
    assert code == 0 and "answers" in out
    code, _, err = run_cli(capsys, "db", "ping", "--database-url",
                           "postgresql://postgres:pw@127.0.0.1:1/none")
    assert code == 1 and "does not answer" in err and "pw@" not in err


@pytest.mark.postgres
def test_db_upgrade_on_postgres(capsys: pytest.CaptureFixture[str], pg_url: str) -> None:
    code, out, _ = run_cli(capsys, "db", "upgrade", "--database-url", pg_url)
    assert code == 0 and "Schema upgraded to revision" in out
    code, out, _ = run_cli(capsys, "db", "upgrade", "--database-url", pg_url)
    assert code == 0 and "Schema is up to date" in out
    code, out, _ = run_cli(capsys, "games", "list", "--database-url", pg_url)
    assert code == 0 and out == "No games.\n"


def test_games_commands_need_a_migrated_database(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    missing = tmp_path / "missing.sqlite3"
    code, _, err = run_cli(capsys, "games", "list", "--database-url", f"sqlite:///{missing}")
    assert code == 1 and "no database file" in err
    assert not missing.exists()
    empty = tmp_path / "empty.sqlite3"
    sa.create_engine(f"sqlite:///{empty}").connect().close()
    code, _, err = run_cli(capsys, "games", "list", "--database-url", f"sqlite:///{empty}")
    assert code == 1 and "kolkhoz db upgrade" in err


# ---------------------------------------------------------------------- games list


def test_games_list_table_and_filters(
    capsys: pytest.CaptureFixture[str], service: GameService, sqlite_url: str
) -> None:
    lobby = service.create_game(-100, 1, creator_name="U1", preset="zone", players=3)
    active, _ = new_game(service, humans=2, chat_id=-200, seed=5)
    # (Two open games in one place: only a front end without places, like this test, may.)
    finished, _ = new_game(service, humans=1, chat_id=-200, seed=6, alone=False)
    play_out(service, finished.id)
    code, out, _ = run_cli(capsys, "games", "list", "--database-url", sqlite_url)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["id", "chat", "status", "preset", "players", "year",
                                "version", "deadline"]
    rows = {int(line.split()[0]): line for line in lines[1:]}
    assert list(rows) == [finished.id, active.id, lobby.id]  # newest first
    assert re.search(rf"^{lobby.id}\s+-100\s+lobby\s+zone\s+1/3\s+-\s+\d+\s+-$",
                     rows[lobby.id])
    assert re.search(r"active\s+classic\s+4/4 \(2 bots\)\s+1/5\s+\d+\s+"
                     r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", rows[active.id])
    assert re.search(r"finished\s+classic\s+4/4 \(3 bots\)\s+5/5\s+\d+\s+-$", rows[finished.id])

    code, out, _ = run_cli(capsys, "games", "list", "--chat", "-200", "--database-url",
                           sqlite_url)
    assert [int(line.split()[0]) for line in out.splitlines()[1:]] == [finished.id, active.id]
    code, out, _ = run_cli(capsys, "games", "list", "--status", "active", "--database-url",
                           sqlite_url)
    assert [int(line.split()[0]) for line in out.splitlines()[1:]] == [active.id]
    code, out, _ = run_cli(capsys, "games", "list", "--chat", "-999", "--database-url",
                           sqlite_url)
    assert code == 0 and out == "No games.\n"
    with pytest.raises(SystemExit):
        main(["games", "list", "--status", "bogus", "--database-url", sqlite_url])


# ---------------------------------------------------------------------- games show


def _hidden_cards(service: GameService, game_id: int) -> set[str]:
    """Every card no one but its owner may see: hands and face-down plot cards."""
    hidden: set[str] = set()
    for seat in service.game_info(game_id).seats:
        assert seat.user_id is not None
        me = service.seat_view(game_id, seat.user_id).view.to_dict()["players"][seat.seat]
        hidden.update(me["hand"])
        hidden.update(me["plot_hidden"])
    return hidden


def _mentions(text: str, card: str) -> bool:
    forms = {card} | {present.card(translator(locale), card) for locale in ("en", "ru")}
    either = "|".join(re.escape(f) for f in forms)
    pattern = rf"(?<![0-9A-Z])(?:{either})(?![0-9A-Z])"
    return re.search(pattern, text) is not None


def test_show_running_game_reveals_no_hidden_card(
    capsys: pytest.CaptureFixture[str], service: GameService, sqlite_url: str
) -> None:
    game_id = running_game_with_swaps(service)
    hidden = _hidden_cards(service, game_id)
    assert hidden
    code, out, _ = run_cli(capsys, "games", "show", str(game_id), "--database-url", sqlite_url)
    assert code == 0
    head, _, log = out.partition("Action log")
    assert f"Game {game_id} · chat -100 · active · preset kolkhoz" in head
    assert "Board (public view):" in head and "Kolkhoz · year" in head
    assert "0: U1 (user 1)" in head
    leaked = [c for c in hidden if _mentions(head, c)]
    assert leaked == [], f"hidden cards on the board: {leaked}"
    assert "plot of" not in out and "Scores" not in out
    # The log: every move as the table saw it; a swap's cards stay private.
    entries = service.action_log(game_id)
    log_lines = log.splitlines()[1:]
    assert len(log_lines) == len(entries)
    for line, e in zip(log_lines, entries, strict=True):
        shown = line.split()[3]
        if e["action"].startswith("swap:") and e["action"] != "swap:pass":
            assert shown == "swap:(hidden)"
        else:
            assert shown == e["action"]
    assert "swap:(hidden)" in log


def test_show_finished_game_shows_everything(
    capsys: pytest.CaptureFixture[str], service: GameService, sqlite_url: str
) -> None:
    game, _ = new_game(service, preset="kolkhoz", seed=12)
    play_out(service, game.id, swapper(1))  # type: ignore[arg-type]
    snapshot = service.snapshot(game.id)
    assert snapshot is not None and snapshot.is_over
    code, out, _ = run_cli(capsys, "games", "show", str(game.id), "--database-url", sqlite_url)
    assert code == 0
    assert "· finished ·" in out
    for seat, plot in enumerate(snapshot.final_plots()):
        assert f"plot of {seat}: {' '.join(plot) or '-'}" in out
    assert f"Scores {snapshot.scores()}" in out
    swaps = [e["action"] for e in service.action_log(game.id)
             if e["action"].startswith("swap:") and e["action"] != "swap:pass"]
    assert swaps and all(s in out for s in swaps)


def test_show_lobby_and_missing_game(
    capsys: pytest.CaptureFixture[str], service: GameService, sqlite_url: str
) -> None:
    lobby = service.create_game(-100, 1, creator_name="Anna")
    code, out, _ = run_cli(capsys, "games", "show", str(lobby.id), "--database-url", sqlite_url)
    assert code == 0 and "· lobby ·" in out and "0: Anna (user 1)" in out
    assert "1: (empty)" in out and "Action log: empty" in out and "Board" not in out
    code, _, err = run_cli(capsys, "games", "show", "999", "--database-url", sqlite_url)
    assert code == 1 and err == "kolkhoz: no game 999\n"


# ---------------------------------------------------------------------- games export


def _replay(d: dict[str, object]) -> Game:
    return Game.replay(Rules.from_dict(d["rules"]), d["players"], d["seed"],  # type: ignore[arg-type]
                       d["log"], planner=d["planner"])  # type: ignore[arg-type]


def test_export_finished_game_replays(
    capsys: pytest.CaptureFixture[str], service: GameService, sqlite_url: str
) -> None:
    game, _ = new_game(service, preset="zone", seed=21, humans=2)
    play_out(service, game.id)
    code, out, err = run_cli(capsys, "games", "export", str(game.id), "--database-url",
                             sqlite_url)
    assert code == 0 and err == ""
    d = json.loads(out)
    assert d["format"] == "kolkhoz-game-export" and d["status"] == "finished"
    replayed = _replay(d)
    assert replayed == service.snapshot(game.id)
    assert replayed.is_over and replayed.scores() == service.board(game.id).view.to_dict()["scores"]
    assert len(d["actions"]) == len(d["log"]) and d["actions"][0]["actor"]


def test_export_running_game_warns_and_writes_a_file(
    capsys: pytest.CaptureFixture[str], service: GameService, sqlite_url: str, tmp_path: Path
) -> None:
    game_id = running_game_with_swaps(service)
    target = tmp_path / "game.json"
    code, out, err = run_cli(capsys, "games", "export", str(game_id), "-o", str(target),
                             "--database-url", sqlite_url)
    assert code == 0 and out == ""
    assert f"warning: game {game_id} is active, not finished" in err
    assert "every hand" in err and f"exported to {target}" in err
    d = json.loads(target.read_text(encoding="utf-8"))
    assert d["status"] == "active"
    assert _replay(d) == service.snapshot(game_id)
    # A string seed round-trips as well.
    other = service.create_game(-300, 1, creator_name="U1", seed="spring")
    service.start(other.id, 1, fill_with_ai=True)
    code, out, _ = run_cli(capsys, "games", "export", str(other.id), "--database-url",
                           sqlite_url)
    d = json.loads(out)
    assert d["seed"] == "spring" and _replay(d) == service.snapshot(other.id)


def test_export_to_a_read_only_place_is_one_line(
    capsys: pytest.CaptureFixture[str], service: GameService, sqlite_url: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What the image's read-only /app answers to ``-o game.json``: one line that says
    where to write instead, exit status 1, no traceback, nothing on stdout."""
    import errno

    game, _ = new_game(service, preset="zone", seed=21, humans=2)
    play_out(service, game.id)

    def read_only(self: Path, *args: object, **kwargs: object) -> int:
        raise OSError(errno.EROFS, "Read-only file system", str(self))

    monkeypatch.setattr(Path, "write_text", read_only)
    code, out, err = run_cli(capsys, "games", "export", str(game.id), "-o", "game.json",
                             "--database-url", sqlite_url)
    assert code == 1 and out == ""
    assert err.splitlines() == [
        "kolkhoz: cannot write game.json: Read-only file system (in the container, write to "
        "stdout or into a mounted directory)"]


def test_export_refuses_lobby_and_missing(
    capsys: pytest.CaptureFixture[str], service: GameService, sqlite_url: str
) -> None:
    lobby = service.create_game(-100, 1, creator_name="Anna")
    code, out, err = run_cli(capsys, "games", "export", str(lobby.id), "--database-url",
                             sqlite_url)
    assert code == 1 and out == "" and "still in the lobby" in err
    code, _, err = run_cli(capsys, "games", "export", "404", "--database-url", sqlite_url)
    assert code == 1 and "no game 404" in err


def test_cli_in_a_subprocess_with_the_environment(
    service: GameService, sqlite_url: str, tmp_path: Path
) -> None:
    game, _ = new_game(service, humans=1)
    env = {k: v for k, v in os.environ.items() if not k.startswith("KOLKHOZ_")}
    env["KOLKHOZ_DATABASE_URL"] = sqlite_url
    env["PYTHONPATH"] = str(REPO)
    done = subprocess.run(
        [sys.executable, "-m", "kolkhoz_tg.cli", "games", "list"], cwd=tmp_path, env=env,
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1].split()[:3] == [str(game.id), "-100", "active"]


# ---------------------------------------------------------------------- games rerate


def test_games_rerate_rebuilds_the_ratings_from_the_games(
    capsys: pytest.CaptureFixture[str], service: GameService, sqlite_url: str
) -> None:
    code, out, _ = run_cli(capsys, "games", "rerate", "--database-url", sqlite_url)
    assert code == 0 and out == "Ratings recomputed from 0 finished games.\n"
    game, _ = new_game(service, humans=2, chat_id=-300, seed=5)
    play_out(service, game.id)
    before = service.chat_ratings(-300)
    assert before
    # A lost or damaged cache: rerate restores it from the stored games.
    with service.db.write() as s:
        s.execute(sa.text("UPDATE ratings SET mu = 0 WHERE scope != 'meta'"))
    assert service.chat_ratings(-300) != before
    code, out, _ = run_cli(capsys, "games", "rerate", "--database-url", sqlite_url)
    assert code == 0 and out == "Ratings recomputed from 1 finished game.\n"
    assert service.chat_ratings(-300) == before


def test_show_running_game_hides_a_card_taken_back(
    capsys: pytest.CaptureFixture[str], service: GameService, sqlite_url: str
) -> None:
    """A card taken back is in its player's hand again: the log does not name it while the
    game goes on."""
    game = service.create_game(-100, 1, creator_name="U1", seed=5)
    for user in (2, 3, 4):
        service.join(game.id, user, f"U{user}")
    service.start(game.id, 1)
    for _ in range(60):
        board = service.board(game.id)
        assert board.view is not None
        user = next(s.user_id for s in board.game.seats if s.seat == board.view.to_act[0])
        assert user is not None
        sv = service.seat_view(game.id, user)
        card = sv.legal[0]
        service.act(game.id, user, card, sv.game.version)
        if card.startswith("play:") and service.seat_view(game.id, user).can_take_back:
            break
    version = service.seat_view(game.id, user).game.version
    assert service.take_back(game.id, user, version).ok
    code, out, _ = run_cli(capsys, "games", "show", str(game.id), "--database-url", sqlite_url)
    assert code == 0
    log = out.partition("Action log")[2]
    assert "play:(taken back)" in log and "takeback" in log
    assert card not in log  # (it is back in the hand, and nothing later played it)
