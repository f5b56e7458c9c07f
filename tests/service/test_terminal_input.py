"""The terminal's answers to what a player types: a move the rules forbid is refused with its
reason, nonsense with one line under the same board, and the log marks the player's own
forced moves (only theirs: for anyone else it would tell what that hand lacks)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from engine import Game, Phase, preset
from engine.cards import CARDS
from engine.views import View
from kolkhoz_tg import present, terminal
from kolkhoz_tg.i18n import translator
from kolkhoz_tg.service import open_service
from kolkhoz_tg.service.payloads import LoggedMove
from tests.conftest import make_settings
from tests.service.helpers import header, terminal_args

#: The heuristic bots, English, one deal.
QUICK = ("--level", "normal", "--lang", "en", "--seed", "3")


def test_typed_actions_legal_or_not() -> None:
    legal = ["play:10H", "play:QS"]
    assert terminal.parse_action("KH", legal) == "play:KH"  # refused later, with the reason
    assert terminal.parse_action("2", legal) == "play:QS"
    assert terminal.parse_action("9", legal) is None  # no such number in the list
    assert terminal.parse_action("zz", legal) is None
    assign = ["assign:10H>H", "assign:QS>H", "assign:QS>S"]
    assert terminal.parse_action("QS", assign) is None  # which job?
    assert terminal.parse_action("KC", assign) == "assign:KC>H"  # not in the trick
    assert terminal.parse_action("QS C", assign) == "assign:QS>C"
    assert terminal.parse_choice("QS C", assign) is None


def test_refused_moves_say_why_and_change_nothing(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite3"
    out: list[str] = []
    reader = open_service(f"sqlite:///{db}", settings=make_settings())
    answers: list[str] = []
    seen: dict[str, int] = {}  # the game, its log's length and the output's when first asked

    def answer(prompt: str) -> str:
        if not answers:
            (game,) = reader.games_of_user(terminal.LOCAL_USER)
            mine = reader.seat_view(game.id, terminal.LOCAL_USER)
            if mine.view.phase != "play":
                return "1"  # the trump, a swap: on to the first card to play
            seen["mark"] = len(out)
            hand = set(mine.view.to_dict()["players"][mine.seat]["hand"])
            stranger = next(c for c in CARDS if str(c) not in hand)
            answers.extend([f"{stranger}", "", "zz", "q"])
            seen["game"], seen["log"] = game.id, len(reader.action_log(game.id))
        return answers.pop(0)

    assert terminal.run(terminal_args(db, *QUICK), input_fn=answer, output=out.append) == 0
    text = "\n".join(out)
    assert "That card is not in your hand." in text
    assert "Not a choice: zz. Type a number from the list, or help." in text
    # No board again after a wrong answer: the reason is one line under the same board.
    after = "\n".join(out[seen["mark"]:])
    assert "🏅" not in after and "That card is not in your hand." in after
    game_id = seen["game"]
    assert len(reader.action_log(game_id)) == seen["log"]
    assert reader.replay(game_id) == reader.snapshot(game_id)
    reader.db.dispose()


def test_resume_asks_until_yes_or_no(tmp_path: Path) -> None:
    db = tmp_path / "y.sqlite3"
    script = iter(["1", "q"])
    assert terminal.run(terminal_args(db, *QUICK), input_fn=lambda _p: next(script),
                        output=lambda _s: None) == 0
    prompts: list[str] = []
    script = iter(["x", "", "q"])

    def answer(prompt: str) -> str:
        prompts.append(prompt)
        return next(script)

    assert terminal.run(terminal_args(db, *QUICK), input_fn=answer, output=lambda _s: None) == 0
    assert [p.startswith("Continue") for p in prompts] == [True, True, False]
    reader = open_service(f"sqlite:///{db}", settings=make_settings())
    (game,) = reader.games_of_user(terminal.LOCAL_USER)
    assert game.status == "active"  # "x" neither resumed nor abandoned it; "" resumed it
    reader.db.dispose()


def test_resume_command_keeps_the_file_and_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KOLKHOZ_COMMAND", "bash scripts/start")
    monkeypatch.setenv("KOLKHOZ_NO_TOKEN", "1")
    out: list[str] = []
    db = tmp_path / "my games.sqlite3"
    assert terminal.run(terminal_args(db, *QUICK, lang="ru"), input_fn=lambda _p: "q",
                        output=out.append) == 0
    assert out[0] == ("Токен Telegram-бота (KOLKHOZ_BOT_TOKEN) не задан: играем здесь, "
                      "в терминале.")
    assert out[-1].endswith(f"bash scripts/start --db '{db}' --lang ru.")


def _move(seat: int, actor: str) -> LoggedMove:
    return LoggedMove.from_json({"seat": seat, "action": "play:10H", "actor": actor,
                                 "events": [{"type": "CardPlayed", "seat": seat, "card": "10H"}]})


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_only_the_reader_sees_their_forced_moves_marked(lang: str) -> None:
    tr = translator(lang)
    game = header(*(f"P{s}" for s in range(4)))
    mark = tr.gettext("(the only possible move)")
    assert mark != "(the only possible move)" or lang == "en"

    def lines(actor: str, viewer: int | None) -> str:
        return "\n".join(present.event_lines(tr, game, [_move(0, actor)], "kolkhoz",
                                           viewer=viewer))

    assert mark in lines("forced", 0)
    assert lines("forced", 0).startswith(lines("player", 0))
    assert mark not in lines("forced", 1)  # another seat: it would tell what the hand lacks
    assert mark not in lines("forced", None)  # the group's board
    assert mark not in lines("player", 0)


def test_a_job_reached_by_this_trick_is_not_completed_again() -> None:
    """Once a card of the trick has brought a job to its threshold, another card there does
    not "complete" it: the label says the job is reached already."""
    tr = translator("en")
    for seed in range(200):
        g = Game.new(preset("classic"), 4, seed=seed)
        rng = random.Random(seed)
        while not g.is_over:
            seat = g.to_act[0]
            if g.phase is Phase.ASSIGN:
                view = View.from_dict(g.view(seat), [a.text for a in g.legal_actions(seat)])
                reached = [a for a in view.legal if a.suit is not None
                           and not view.job(a.suit).complete
                           and view.job(a.suit).hours >= view.job(a.suit).threshold]
                if reached:
                    label = present.action_label(tr, view, reached[0])
                    assert ", reached already" in label and "done ✅" not in label, label
                    return
            g.apply(seat, rng.choice(g.legal_actions(seat)))
    pytest.fail("no trick reached a job's threshold before its last card in 200 games")


def test_the_language_is_asked_once(tmp_path: Path) -> None:
    db = tmp_path / "l.sqlite3"
    prompts: list[str] = []

    def answer(prompt: str) -> str:
        prompts.append(prompt)
        if prompt.startswith("Язык / Language"):
            return "ru"
        return "" if prompt.startswith(("Continue", "Продолжить")) else "q"  # resume, stop

    assert terminal.run(terminal_args(db, *QUICK, lang=None), input_fn=answer,
                        output=lambda _s: None) == 0
    assert prompts[0].startswith("Язык / Language")
    prompts.clear()
    out: list[str] = []
    assert terminal.run(terminal_args(db, *QUICK, lang=None), input_fn=answer,
                        output=out.append) == 0
    assert not any(p.startswith("Язык") for p in prompts)  # kept from the first time
    assert "Игра сохранена" in out[-1]
    # --lang still changes it
    out.clear()
    assert terminal.run(terminal_args(db, *QUICK, lang="en"), input_fn=answer,
                        output=out.append) == 0
    assert "Game saved" in out[-1]
