"""The keys that stop or steer the terminal game: Ctrl-C (at a prompt or while the bots
move) ends it with one line and exit code 130, Ctrl-D puts its line under the prompt, and
the Latin keys a prompt offers work typed in the Russian layout too («й» for q)."""

from __future__ import annotations

import argparse
import io
import os
import select
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from engine import Game
from kolkhoz_tg import moves, terminal
from kolkhoz_tg.i18n import translator
from kolkhoz_tg.service import gametx as gametx_module
from kolkhoz_tg.service import open_service
from kolkhoz_tg.service.lobby import LobbyService
from tests.conftest import make_settings
from tests.service.helpers import terminal_args

ROOT = Path(__file__).resolve().parents[2]
SAVED_EN = "Game saved. Run {command} again to continue."


#: The heuristic bots, English, one deal.
QUICK = ("--level", "normal", "--lang", "en", "--seed", "3")


def _script(*answers: str) -> Callable[[str], str]:
    """An input function that gives ``answers`` in turn; asked once more, the test fails
    (instead of going round the same prompt for ever)."""
    left = list(answers)

    def answer(prompt: str) -> str:
        if not left:
            pytest.fail(f"asked again: {prompt!r}")
        return left.pop(0)

    return answer


def _run(args: argparse.Namespace, **kw: Any) -> int:
    """:func:`terminal.run`; Ctrl-C that comes out of it fails the test (instead of
    stopping pytest)."""
    try:
        return terminal.run(args, **kw)
    except KeyboardInterrupt:
        pytest.fail("KeyboardInterrupt came out of terminal.run")


def _interrupt(_prompt: str) -> str:
    raise KeyboardInterrupt


def _saved(args: argparse.Namespace) -> str:
    return SAVED_EN.format(command=terminal.again_command(args))


def _open_games(db: Path) -> list[Any]:
    service = open_service(f"sqlite:///{db}", settings=make_settings())
    try:
        return service.games_in_chat(terminal.LOCAL_CHAT)
    finally:
        service.db.dispose()


@pytest.fixture
def bots_interrupt(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bool]]:
    """Arm it (``armed[0] = True``) and the next bot to move (the ``normal`` level's
    heuristic, inside the move's transaction) gets Ctrl-C instead of a move."""
    armed = [False]
    real = gametx_module.default_action

    def default_action(game: Game, seat: int) -> Any:
        if armed[0]:
            raise KeyboardInterrupt
        return real(game, seat)

    monkeypatch.setattr(gametx_module, "default_action", default_action)
    yield armed


# Ctrl-C


def test_ctrl_c_at_the_prompt(tmp_path: Path) -> None:
    db = tmp_path / "c.sqlite3"
    args = terminal_args(db, *QUICK)
    out: list[str] = []
    answers = ["1"]

    def answer(prompt: str) -> str:
        if answers:
            return answers.pop()  # the trump: the bots answer it
        raise KeyboardInterrupt  # at the next prompt

    assert _run(args, input_fn=answer, output=out.append) == 130
    assert out[-2:] == ["", _saved(args)]
    (game,) = _open_games(db)
    assert game.status == "active"
    # Ctrl-C at the question whether to go on: the same.
    out.clear()
    assert _run(args, input_fn=_interrupt, output=out.append) == 130
    assert out == ["", _saved(args)]
    assert [g.id for g in _open_games(db)] == [game.id]


def test_ctrl_c_while_the_bots_move(tmp_path: Path, bots_interrupt: list[bool]) -> None:
    """The move whose bots' answers were cut short is undone whole: the game is as it was
    before it, and goes on from there."""
    db = tmp_path / "b.sqlite3"
    args = terminal_args(db, *QUICK)
    out: list[str] = []
    reader = open_service(f"sqlite:///{db}", settings=make_settings())
    before: dict[str, Any] = {}

    def answer(prompt: str) -> str:
        (game,) = reader.games_of_user(terminal.LOCAL_USER)
        before.update(game=game.id, log=len(reader.action_log(game.id)),
                      snapshot=reader.snapshot(game.id))
        bots_interrupt[0] = True  # the bots are to answer this move
        return "1"

    assert _run(args, input_fn=answer, output=out.append) == 130
    assert out[-2:] == ["", _saved(args)]
    game_id = before["game"]
    assert len(reader.action_log(game_id)) == before["log"]
    assert reader.snapshot(game_id) == before["snapshot"]
    assert reader.replay(game_id) == reader.snapshot(game_id)
    reader.db.dispose()
    # Run again: the same game, at the same turn.
    bots_interrupt[0] = False
    out.clear()

    def resume(prompt: str) -> str:
        return "" if prompt.startswith("Continue") else "q"

    assert _run(args, input_fn=resume, output=out.append) == 0
    assert [g.id for g in _open_games(db)] == [game_id]
    assert out[-1] == _saved(args)


def test_ctrl_c_at_the_language_question(tmp_path: Path) -> None:
    out: list[str] = []
    code = _run(terminal_args(tmp_path / "l.sqlite3", *QUICK, lang=None), input_fn=_interrupt,
                        output=out.append)
    assert code == 130
    assert out == [""]  # no game, nothing to keep: only the line under "^C"


def test_ctrl_c_in_a_bots_only_game(tmp_path: Path, bots_interrupt: list[bool]) -> None:
    """A bots-only game is played in one transaction: stopped, nothing of it is kept, and
    it leaves nothing in the way of the next one."""
    db = tmp_path / "o.sqlite3"
    bots_interrupt[0] = True
    out: list[str] = []
    assert _run(terminal_args(db, *QUICK, humans=0), output=out.append) == 130
    assert out[-2:] == ["", "Stopped: nothing was saved."]
    bots_interrupt[0] = False
    out.clear()
    assert _run(terminal_args(db, *QUICK, humans=0), output=out.append) == 0
    assert "five-year plan is complete" in "\n".join(out)


def test_a_start_stopped_by_ctrl_c_leaves_no_game_in_the_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C before the first deal was done (the bots move in ``start`` when they begin):
    the game created for it is not dealt, and the next run starts one all the same."""
    db = tmp_path / "s.sqlite3"

    def start(*_a: object, **_kw: object) -> None:
        raise KeyboardInterrupt

    with monkeypatch.context() as patch:
        patch.setattr(LobbyService, "start", start)
        out: list[str] = []
        code = _run(terminal_args(db, *QUICK), input_fn=_script(), output=out.append)
    assert code == 130
    assert out[-2:] == ["", "Stopped: nothing was saved."]
    out.clear()
    assert _run(terminal_args(db, *QUICK), input_fn=_script("q"), output=out.append) == 0
    assert out[-1] == _saved(terminal_args(db, *QUICK))
    assert [g.status for g in _open_games(db)] == ["active"]


def reading_stdin(pid: int, timeout: float = 30.0) -> None:
    """Return once process ``pid`` sleeps in a read of its stdin pipe (Linux's
    ``/proc/PID/wchan``); elsewhere, after half a second."""
    wchan = Path(f"/proc/{pid}/wchan")
    if not wchan.exists():
        time.sleep(0.5)
        return
    deadline = time.monotonic() + timeout
    while "pipe_read" not in wchan.read_text():
        assert time.monotonic() < deadline, f"process {pid} never waited for input"
        time.sleep(0.02)


def test_ctrl_c_through_the_command(tmp_path: Path) -> None:
    """The real thing: SIGINT to ``kolkhoz play`` waiting at its prompt ends it with the
    line and exit code 130, and nothing on stderr (no traceback)."""
    db = tmp_path / "p.sqlite3"
    proc = subprocess.Popen(
        [sys.executable, "-u", "-m", "kolkhoz_tg.cli", "play", "--lang", "en", "--seed", "3",
         "--level", "normal", "--db", str(db)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
        env={**os.environ, "KOLKHOZ_COMMAND": "kolkhoz play"},
        # As from a terminal: Ctrl-C not ignored. A non-interactive shell starts a command
        # put in the background (``pytest ... &``) with SIGINT ignored, every process it
        # starts inherits that across exec, and Python keeps it ignored: the child would
        # wait for input after the Ctrl-C (seen when the suite was run that way).
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert proc.stdout is not None
    seen = b""
    deadline = time.monotonic() + 60
    try:
        while b"resume later): " not in seen:
            assert time.monotonic() < deadline, seen.decode(errors="replace")
            ready, _, _ = select.select([proc.stdout], [], [], 1)
            if ready:
                chunk = os.read(proc.stdout.fileno(), 65536)
                assert chunk, seen.decode(errors="replace")
                seen += chunk
        # A signal that comes after the prompt is written but before the read begins is
        # seen only when the read returns: wait until it is really reading, as a person
        # pressing Ctrl-C at the prompt would.
        reading_stdin(proc.pid)
        proc.send_signal(signal.SIGINT)
        # Its end first, then the pipes: closing stdin now would race the signal with an
        # end of input (Ctrl-D's way out) on a loaded machine.
        proc.wait(timeout=60)
        rest, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err.decode()
    assert err == b""
    saved = SAVED_EN.format(command=f"kolkhoz play --db {shlex.quote(str(db))} --lang en")
    assert (seen + rest).decode().endswith(f"resume later): \n{saved}\n")


# Ctrl-D


def test_ctrl_d_puts_the_news_on_a_line_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """With the real ``input`` and ``print``: the prompt's line is ended before the news,
    at the move prompt and at the question whether to go on."""
    args = terminal_args(tmp_path / "d.sqlite3", *QUICK)
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n"))  # one move, then the end
    assert _run(args) == 0
    text = capsys.readouterr().out
    assert text.endswith(f"resume later): \n{_saved(args)}\n")
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert _run(args) == 0
    assert capsys.readouterr().out == f"Continue your unfinished game? [Y/n]: \n{_saved(args)}\n"


# The Russian layout


@pytest.mark.parametrize("word", ["й", "Й", "йгше", "учше", " й "])
@pytest.mark.parametrize("lang", ["ru", "en"])
def test_q_typed_in_the_russian_layout_stops(tmp_path: Path, lang: str, word: str) -> None:
    out: list[str] = []
    code = _run(terminal_args(tmp_path / "q.sqlite3", *QUICK, lang=lang), input_fn=_script(word),
                        output=out.append)
    assert code == 0
    assert ("Игра сохранена" if lang == "ru" else "Game saved") in out[-1]


def test_the_russian_prompt_shows_a_key_a_russian_keyboard_types(tmp_path: Path) -> None:
    """The prompt and the help name «й» next to q; «р» (the h key) asks for the help and
    «кгдуы» (rules) for the rules, as h and rules do; the trump is still to choose."""
    prompts: list[str] = []
    out: list[str] = []
    answers = _script("р", "КГДУЫ", "й")

    def answer(prompt: str) -> str:
        prompts.append(prompt)
        return answers(prompt)

    tr = translator("ru")
    assert _run(terminal_args(tmp_path / "r.sqlite3", *QUICK, lang="ru"), input_fn=answer,
                        output=out.append) == 0
    assert "q/й" in prompts[0]
    help_text = tr.gettext(
        "Type the number of a choice, or a card like 10H, QS, 10ч or Вп; for the Brigadier a "
        "card and a suit, like 10H S. Cards in brackets cannot be played now. rules shows the "
        "rules of the game; q stops (the game is saved).")
    assert "q/й" in help_text
    assert help_text in out
    assert terminal.rules_text(tr) in out
    assert "Игра сохранена" in out[-1]
    assert len(prompts) == 3 and len(set(prompts)) == 1


def test_every_latin_command_word_has_its_russian_layout_twin() -> None:
    assert {"q", "й", "quit", "йгше", "exit", "учше"} <= terminal.QUIT_WORDS
    assert {"h", "р", "help", "рудз", "?", ","} <= terminal.HELP_WORDS
    assert {"rules", "кгдуы", "правила"} <= terminal.RULES_WORDS
    assert moves.russian_layout("q") == "й"
    assert moves.latin_layout("ЙЫ 10р, 9Р") == "QS 10h, 9H"


def test_cards_typed_in_the_russian_layout() -> None:
    legal = ["play:10H", "play:QS", "play:JS"]
    assert terminal.parse_choice("10Р", legal) == "play:10H"
    assert terminal.parse_choice("йы", legal) == "play:QS"
    assert terminal.parse_choice("Вп", legal) == "play:JS"  # Russian letters read as such
    assert terminal.parse_action("ЛС", legal) == "play:KC"  # refused later, with the reason
    assert terminal.parse_choice("ЙЫ Ы", ["assign:QS>H", "assign:QS>S"]) == "assign:QS>S"
    assert terminal.parse_choice("Ы", ["trump:H", "trump:D", "trump:C", "trump:S"]) == "trump:S"
    assert terminal.parse_choice("т", ["trump:H", "trump:D", "trump:C", "trump:S"]) == "trump:C"
    assert terminal.parse_choice("зфыы", ["swap:pass", "swap:9H<KC"]) == "swap:pass"
    assert terminal.parse_choice("9Р ЛС", ["swap:pass", "swap:9H<KC"]) == "swap:9H<KC"
    assert terminal.parse_action("ощ", legal) is None


@pytest.mark.parametrize(("lang", "word", "goes_on"), [
    ("en", "н", True),  # the Y key in the Russian layout
    ("en", "т", False),  # the N key
    ("en", "нет", False),
    ("ru", "н", False),  # the prompt's own «н»: no
    ("ru", "т", False),
    ("ru", "нуы", True),  # yes, in the Russian layout
    ("ru", "д", True),
])
def test_the_question_whether_to_go_on(tmp_path: Path, lang: str, word: str,
                                       goes_on: bool) -> None:
    db = tmp_path / "g.sqlite3"
    assert _run(terminal_args(db, *QUICK, lang=lang), input_fn=_script("q"),
                        output=lambda _s: None) == 0
    (first,) = _open_games(db)
    assert _run(terminal_args(db, *QUICK, lang=lang), input_fn=_script(word, "q"),
                        output=lambda _s: None) == 0
    (now,) = _open_games(db)
    assert (now.id == first.id) is goes_on
