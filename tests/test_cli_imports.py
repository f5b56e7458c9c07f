"""``kolkhoz`` loads only what the command at hand uses: no Telegram library for a terminal
game, no database library to build the parser or print help."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kolkhoz_tg import admin, cli
from kolkhoz_tg.service import open_service

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("telegram", "sqlalchemy", "sqlmodel", "alembic", "apscheduler", "tornado", "httpx")
TELEGRAM = ("telegram", "apscheduler", "tornado", "httpx")


def loaded_after(code: str) -> list[str]:
    """The heavy top-level packages in ``sys.modules`` once ``code`` has run in a fresh
    interpreter (a ``SystemExit`` from ``--help`` is fine)."""
    return last_line_of(
        "import json, sys\n"
        "try:\n"
        + "".join(f"    {line}\n" for line in code.splitlines())
        + "except SystemExit:\n    pass\n"
        f"print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r}))))\n"
    )


def last_line_of(script: str) -> list[str]:
    """The JSON list ``script`` prints last, run in a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    result: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_importing_the_cli_loads_no_telegram_and_no_database() -> None:
    assert loaded_after("import kolkhoz_tg.cli") == []


def test_importing_the_cli_leaves_the_engine_for_the_compiled_one() -> None:
    """A command that plays may first put the compiled engine in its place
    (kolkhoz_tg/compiled_engine.py): nothing imported before it may load the plain one."""
    assert last_line_of(
        "import json, sys\n"
        "import kolkhoz_tg.cli\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] == 'engine')))\n"
    ) == []


def test_play_help_loads_no_telegram_and_no_database() -> None:
    code = "from kolkhoz_tg.cli import main\nmain(['play', '--help'])"
    assert loaded_after(code) == []


def test_a_bots_only_terminal_game_loads_no_telegram(tmp_path: Path) -> None:
    db = tmp_path / "play.sqlite3"
    code = (
        "from kolkhoz_tg.cli import main\n"
        f"assert main(['play', '--humans', '0', '--lang', 'en', '--seed', '1', "
        f"'--db', {str(db)!r}]) == 0"
    )
    loaded = loaded_after(code)
    assert "sqlalchemy" in loaded  # the game is played on the service, as the bot's are
    assert not set(loaded) & set(TELEGRAM)


def test_the_cli_knows_the_admin_commands_without_importing_them() -> None:
    assert cli.ADMIN_COMMANDS == admin.COMMANDS


def test_top_level_help_still_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    out = capsys.readouterr().out
    for command in ("play", "bot", *admin.COMMANDS):
        assert command in out


def test_an_unknown_command_names_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["nonsense"])
    err = capsys.readouterr().err
    for command in ("play", "bot", *admin.COMMANDS):
        assert command in err


def test_the_bots_modules_leave_rating_catalog_and_metrics_code_for_later() -> None:
    """What a polling bot does not use at start stays out of its memory until it is used:
    openskill (a game is rated when it ends), Babel's catalog reader and writer (only
    when a ``.po`` file is newer than its ``.mo``) and prometheus_client (only with
    ``KOLKHOZ_METRICS_PORT``)."""
    assert last_line_of(
        "import json, sys\n"
        "import kolkhoz_tg.cli, kolkhoz_tg.bot.main, kolkhoz_tg.i18n\n"
        "kolkhoz_tg.i18n.translator('en').gettext('Hello')\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in"
        " ('openskill', 'prometheus_client') or m.startswith('babel.messages'))))\n"
    ) == []


def test_a_sqlite_bot_leaves_the_postgresql_dialect_alone(tmp_path: Path) -> None:
    """SQLAlchemy's PostgreSQL dialect (some 2 MB) is loaded only by a bot on PostgreSQL:
    not by the models, the outbox's one-statement writer, or a SQLite database's start
    (once migrated: Alembic's own modules load every dialect)."""
    db = tmp_path / "bot.sqlite3"
    open_service(f"sqlite:///{db}").db.dispose()
    assert last_line_of(
        "import json, sys\n"
        "import kolkhoz_tg.cli, kolkhoz_tg.bot.main, kolkhoz_tg.service.outbox_sql\n"
        "from kolkhoz_tg.service import open_service\n"
        f"open_service('sqlite:///{db}').db.dispose()\n"
        "print(json.dumps(sorted(m for m in sys.modules"
        " if m.startswith('sqlalchemy.dialects.postgresql'))))\n"
    ) == []
