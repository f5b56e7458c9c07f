"""The terminal front end: bots-only games, a scripted human, quitting and resuming."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine import PRESETS, Action
from engine.ai import AIPlayer
from kolkhoz_tg import aiplay, terminal
from kolkhoz_tg.cli import build_parser
from kolkhoz_tg.cli import main as cli_main
from kolkhoz_tg.i18n import translator
from kolkhoz_tg.service import open_service
from tests.conftest import make_settings
from tests.service.helpers import terminal_args

ROOT = Path(__file__).resolve().parents[2]


#: The heuristic bots unless a test asks for a level: search bots take seconds a game.
NORMAL = ("--level", "normal")


@pytest.mark.parametrize("name", list(PRESETS))
def test_bots_only_prints_the_final_table(tmp_path: Path, name: str) -> None:
    out: list[str] = []
    code = terminal.run(terminal_args(tmp_path / "t.sqlite3", *NORMAL, humans=0, preset=name,
                                      seed="4", lang="en"), output=out.append)
    assert code == 0
    text = "\n".join(out)
    assert "five-year plan is complete" in text
    assert text.count("Bot ") >= 4


def test_cli_bots_only_subprocess(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "kolkhoz_tg.cli", "play", "--humans", "0", "--preset",
         "classic", "--seed", "5", "--lang", "ru", "--level", "normal",
         "--db", str(tmp_path / "c.sqlite3")],
        capture_output=True, text=True, cwd=ROOT, timeout=120, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Пятилетка завершена" in proc.stdout
    assert "1. Бот" in proc.stdout


def test_level_option_picks_the_bots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``kolkhoz play --level hard``: every bot seat plays through engine.ai.AIPlayer at that
    level, from its seat's view (default: strong)."""
    parser = build_parser(with_admin=False)
    assert parser.parse_args(["play"]).level == "strong"
    assert parser.parse_args(["play", "--level", "hard"]).level == "hard"
    with pytest.raises(SystemExit):
        parser.parse_args(["play", "--level", "grandmaster"])
    asked: list[tuple[str, int]] = []

    class Recording(AIPlayer):
        def __init__(self, level: str, seed: int | str = 0, **_kw: object) -> None:
            super().__init__(level, seed, iterations=2)  # a tiny search: the test is quick

        def choose(self, view: dict[str, Any]) -> Action:
            asked.append((self.level.name, view["viewer"]))
            return super().choose(view)

    monkeypatch.setattr(aiplay, "AIPlayer", Recording)  # what the service asks to think
    out: list[str] = []
    code = terminal.run(terminal_args(tmp_path / "l.sqlite3", *NORMAL, humans=0, seed="4",
                                      lang="en", level="hard"), output=out.append)
    assert code == 0
    assert "five-year plan is complete" in "\n".join(out)
    assert {level for level, _ in asked} == {"hard"}
    assert {seat for _, seat in asked} == {0, 1, 2, 3}


def _answers(first: list[str], then: str = "1") -> Iterator[str]:
    yield from first
    while True:
        yield then


def test_human_game_to_the_end_and_resume(tmp_path: Path) -> None:
    db = tmp_path / "h.sqlite3"
    out: list[str] = []
    script = iter(["1", "1", "1", "q"])
    code = terminal.run(terminal_args(db, *NORMAL, lang="en", seed="3", name="Anna"),
                        input_fn=lambda _p: next(script), output=out.append)
    assert code == 0
    assert any("Game saved" in line for line in out)
    service = open_service(f"sqlite:///{db}", settings=make_settings())
    (game,) = service.games_of_user(terminal.LOCAL_USER)
    moves_before = len(service.action_log(game.id))
    service.db.dispose()
    # Resume: yes, then always the first choice until the end.
    answers = _answers(["y"])
    out = []
    code = terminal.run(terminal_args(db, *NORMAL, lang="en", seed="3"),
                        input_fn=lambda _p: next(answers), output=out.append)
    assert code == 0
    service = open_service(f"sqlite:///{db}", settings=make_settings())
    info = service.game_info(game.id)
    assert info.status == "finished"
    assert len(service.action_log(game.id)) > moves_before
    assert service.replay(game.id) == service.snapshot(game.id)
    assert "five-year plan is complete" in "\n".join(out)
    service.db.dispose()


def test_typed_choices(tmp_path: Path) -> None:
    legal = ["play:10H", "play:QS"]
    assert terminal.parse_choice("2", legal) == "play:QS"
    assert terminal.parse_choice("10ч", legal) == "play:10H"
    assert terminal.parse_choice("Дп", legal) == "play:QS"
    assert terminal.parse_choice("play:QS", legal) == "play:QS"
    assert terminal.parse_choice("KH", legal) is None
    assert terminal.parse_choice("9", legal) is None
    assign = ["assign:10H>H", "assign:QS>H", "assign:QS>S"]
    assert terminal.parse_choice("10H", assign) == "assign:10H>H"
    assert terminal.parse_choice("QS", assign) is None
    assert terminal.parse_choice("Дп п", assign) == "assign:QS>S"
    assert terminal.parse_choice("♠", ["trump:H", "trump:D", "trump:C", "trump:S"]) == "trump:S"
    assert terminal.parse_choice("пас", ["swap:pass", "swap:9H<KC"]) == "swap:pass"
    assert terminal.parse_choice("9H KC", ["swap:pass", "swap:9H<KC"]) == "swap:9H<KC"


def test_bot_command_without_token(monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("KOLKHOZ_BOT_TOKEN", raising=False)
    monkeypatch.setenv("KOLKHOZ_LOCALE", "en")
    monkeypatch.chdir(ROOT / "tests")  # no .env there
    assert cli_main(["bot"]) == 2
    assert "KOLKHOZ_BOT_TOKEN" in capsys.readouterr().err


def test_russian_plurals() -> None:
    tr = translator("ru")
    forms = [tr.ngettext("{n} medal", "{n} medals", n) for n in (1, 2, 5, 11, 21, 22)]
    assert forms == ["1 медаль", "2 медали", "5 медалей", "11 медалей", "21 медаль",
                     "22 медали"]
    assert translator("en").ngettext("{n} medal", "{n} medals", 1) == "1 medal"


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_the_unnamed_human_is_a_name_in_every_sentence(
    tmp_path: Path, lang: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No "You takes the trick" / «Вы кладёт»: the default name is a noun, and quitting
    names the command the player actually has."""
    monkeypatch.setenv("KOLKHOZ_COMMAND", "bash scripts/start")
    out: list[str] = []
    script = iter(["1"] * 12 + ["q"])
    code = terminal.run(terminal_args(tmp_path / "n.sqlite3", *NORMAL, lang=lang, seed="3"),
                        input_fn=lambda _p: next(script), output=out.append)
    assert code == 0
    text = "\n".join(out)
    for wrong in ("You takes", "You reveals", "You's", "You played", "Вы кладёт", "Вы берёт",
                  "Вы сыграл"):
        assert wrong not in text
    assert ("Player" if lang == "en" else "Игрок") in text
    assert "bash scripts/start" in out[-1]


@pytest.mark.parametrize(("locale", "words", "foreign"), [
    ("ru", ["Использование: kolkhoz play", "Параметры:", "показать эту справку и выйти",
            "сколько игроков за столом"], ["usage:", "options:", "show this help"]),
    ("en", ["usage: kolkhoz play", "options:", "show this help and exit",
            "players at the table"], ["Использование", "Параметры"]),
])
def test_play_help_is_all_in_the_players_language(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    locale: str, words: list[str], foreign: list[str],
) -> None:
    """``kolkhoz play --help`` (what ``bash scripts/start --help`` prints): argparse's own
    words too, not only the options' help, are in KOLKHOZ_LOCALE's language."""
    monkeypatch.setenv("KOLKHOZ_LOCALE", locale)
    with pytest.raises(SystemExit) as exit_:
        cli_main(["play", "--help"])
    assert exit_.value.code == 0
    text = capsys.readouterr().out
    for word in words:
        assert word in text
    for word in foreign:
        assert word not in text
    assert text.count("--help") == 1
