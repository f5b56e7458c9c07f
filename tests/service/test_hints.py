"""The 💡 hint in words (kolkhoz_tg/present/hints.py), in both languages: the search's figure says
what it measures (the chance to win), close figures read as "little difference" and figures
of 0% not at all, an assignment's reason is what the card does to the job (read from the
seat's view, not canned words), and jobs are named as on the assignment buttons."""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

import pytest

from engine import Action, ActionKind, Game, preset
from engine.ai import Advice, Reason, default_action
from engine.ai.infer import Inferred
from engine.cards import Suit, parse_card
from engine.views import View
from kolkhoz_tg import present
from kolkhoz_tg.aiplay import advise
from kolkhoz_tg.i18n import translator
from kolkhoz_tg.present.hints import HINT_LIMIT, hint_line

EN, RU = translator("en"), translator("ru")
TAUTOLOGY = ("the job where this worker pays off",
             "работа, где этот рабочий принесёт больше пользы")


def _advice(action: str, reason: str, value: float | None = None,
            runner_up: str | None = None, runner_up_value: float | None = None,
            *inferred: Inferred) -> Advice:
    return Advice(Action.parse(action), Reason(reason), "strong", value,
                  None if runner_up is None else Action.parse(runner_up), runner_up_value,
                  inferred=inferred)


def _void(seat: int, suit: str, chance: float) -> Inferred:
    return Inferred(seat, "void", Suit.parse(suit).value, chance, 0.5)


def _holds(seat: int, card: str, chance: float) -> Inferred:
    return Inferred(seat, "holds", parse_card(card), chance, 0.3)


def _assign_view(name: str = "classic", seed: int = 3) -> tuple[dict[str, Any], list[str]]:
    """A real seat's view while it places a trick with a choice of jobs, and its legal
    assignments."""
    game = Game.new(preset(name), 4, seed=seed)
    while not game.is_over:
        seat = game.to_act[0]
        legal = game.legal_actions(seat)
        jobs = {a.suit_id for a in legal if a.kind is ActionKind.ASSIGN}
        if len(jobs) > 1:
            return game.view(seat), [a.text for a in legal]
        game.apply(seat, default_action(game, seat))
    raise AssertionError("no assignment with a choice of jobs")


def _set_job(view: dict[str, Any], letter: str, hours: int, rewards: list[str] | None = None,
             plot: list[str] | None = None) -> dict[str, Any]:
    """The view with one job's hours (and visible rewards) and the reader's face-down plot
    set: every situation of the wording from one real deal."""
    view = copy.deepcopy(view)
    job = view["jobs"][letter]
    job.update(hours=hours, complete=False, completed_by=None)
    if rewards is not None:
        job["rewards"] = rewards
    me = view["players"][view["viewer"]]
    me["plot_hidden"], me["plot_revealed"] = plot or [], []
    return view


# ---------------------------------------------------------------------- the figures


def test_the_figure_says_it_is_the_chance_to_win() -> None:
    advice = _advice("play:10H", "take", 0.35, "play:8C", 0.28)
    en, ru = hint_line(EN, advice), hint_line(RU, advice)
    assert en == "💡 10♥: takes the trick for now — chance to win: 35%, against 28% for 8♣"
    assert "шансы на победу: 35\xa0%" in ru and "8♣ — 28\xa0%" in ru, ru
    assert "search" not in en and "расчёт" not in ru
    alone = _advice("play:10H", "take", 0.35)
    assert hint_line(EN, alone).endswith("— chance to win: 35%")
    assert hint_line(RU, alone).endswith("— шансы на победу: 35\xa0%")


@pytest.mark.parametrize(("mine", "theirs"), [(0.35, 0.33), (0.351, 0.349), (0.40, 0.42)])
def test_close_figures_are_little_difference_not_a_comparison(mine: float,
                                                              theirs: float) -> None:
    advice = _advice("play:10H", "take", mine, "play:8C", theirs)
    en, ru = hint_line(EN, advice), hint_line(RU, advice)
    assert en.endswith(f"chance to win: {round(mine * 100)}%, little difference from 8♣"), en
    assert ru.endswith(f"шансы на победу: {round(mine * 100)}\xa0%; с ходом 8♣ разница "
                       "невелика"), ru
    assert ru.count("%") == en.count("%") == 1  # no second figure to compare


def test_three_points_apart_is_a_difference() -> None:
    en = hint_line(EN, _advice("play:10H", "take", 0.35, "play:8C", 0.32))
    assert en.endswith("chance to win: 35%, against 32% for 8♣"), en


@pytest.mark.parametrize("theirs", [0.0, 0.004, None])
def test_figures_of_nothing_are_left_out(theirs: float | None) -> None:
    """0% against 0% says nothing: the hint is the move and its reason alone."""
    advice = _advice("play:10H", "take", 0.001, None if theirs is None else "play:8C", theirs)
    assert hint_line(EN, advice) == "💡 10♥: takes the trick for now"
    ru = hint_line(RU, advice)
    assert "%" not in ru and "шансы" not in ru and " — " not in ru, ru


# ---------------------------------------------------------------------- assignments


def test_an_assignment_names_the_job_as_its_button_does() -> None:
    view, legal = _assign_view()
    typed = View.from_dict(view, legal)
    assigns = [Action.parse(t) for t in legal if t.startswith("assign:")]
    first, other = assigns[0], next(a for a in assigns if a.suit != assigns[0].suit)
    advice = _advice(first.text, "build_job", 0.5, other.text, 0.3)
    theme = typed.rules.theme.value
    for tr in (EN, RU):
        line = hint_line(tr, advice, view)
        assert first.card is not None and first.suit is not None
        assert other.card is not None and other.suit is not None
        # The job as on its button (present.assign_button: "♠ Grain 30→35"), not "J♠→♠".
        name = present.job_name(tr, theme, first.suit.letter)
        assert line.startswith(f"💡 {present.card(tr, str(first.card))} → "
                               f"{first.suit.symbol} {name}: "), line
        assert present.card_action(tr, first.text) not in line
        assert f"{other.suit.symbol} {present.job_name(tr, theme, other.suit.letter)}" in line
    # Without the view there is no theme to name the job by: the short form stays.
    assert hint_line(EN, advice).startswith("💡 " + present.card_action(EN, first.text) + ":")


def _first_assign(legal: list[str]) -> Action:
    a = Action.parse(next(t for t in legal if t.startswith("assign:")))
    assert a.card is not None and a.suit is not None
    return a


def test_an_assignment_says_the_hours_it_adds_and_what_is_missing() -> None:
    view, legal = _assign_view()
    a = _first_assign(legal)
    assert a.card is not None and a.suit is not None
    letter = a.suit.letter
    worked = View.from_dict(view).job(letter).hours_of(a.card)
    assert worked > 0
    view = _set_job(view, letter, 10)
    for reason in ("assign", "build_job"):
        en = hint_line(EN, _advice(a.text, reason), view)
        ru = hint_line(RU, _advice(a.text, reason), view)
        missing = 30 - worked
        assert en.endswith(f": 10→{10 + worked} of 40 hours, {missing} more hours still "
                           "needed"), en
        assert f"10→{10 + worked} из 40 часов, не хватает ещё {missing} час" in ru, ru
        assert not any(t in en or t in ru for t in TAUTOLOGY)
        assert "help most" not in en and "нужнее всего" not in ru


def test_an_assignment_that_completes_the_job_says_so_with_the_rewards() -> None:
    view, legal = _assign_view()
    a = _first_assign(legal)
    assert a.card is not None and a.suit is not None
    letter, symbol = a.suit.letter, a.suit.symbol
    worked = View.from_dict(view).job(letter).hours_of(a.card)
    view = _set_job(view, letter, 40 - worked, rewards=[f"3{letter}"])
    for reason in ("assign", "complete_job"):
        en = hint_line(EN, _advice(a.text, reason), view)
        ru = hint_line(RU, _advice(a.text, reason), view)
        assert en.endswith(f": completes the job: {40 - worked}→40 of 40 hours; "
                           f"you take 3{symbol}"), en
        assert ru.endswith(f": выполняет работу: {40 - worked}→40 из 40 часов; "
                           f"вы получите 3{symbol}"), ru


def test_an_assignment_names_the_plot_cards_a_failed_job_would_put_at_risk() -> None:
    view, legal = _assign_view()
    a = _first_assign(legal)
    assert a.card is not None and a.suit is not None
    letter, symbol = a.suit.letter, a.suit.symbol
    # Workers of the suit at stake, highest first; a reward card is never taken.
    view = _set_job(view, letter, 0, plot=[f"7{letter}", f"K{letter}", f"2{letter}"])
    en = hint_line(EN, _advice(a.text, "assign"), view)
    ru = hint_line(RU, _advice(a.text, "assign"), view)
    assert en.endswith(f"; a failed job would put your plot's K{symbol} 7{symbol} at risk"), en
    assert ru.endswith(f"; если работа провалится, под угрозой К{symbol} 7{symbol} с вашего "
                       "участка"), ru


def test_the_drunkard_says_he_takes_the_blame() -> None:
    view, _legal = _assign_view()
    trump = view["trump"]
    assert trump is not None and view["rules"]["nomenklatura"]
    view = _set_job(view, trump, 12, plot=[f"Q{trump}"])
    symbol = present.SUIT_SYMBOLS[trump]
    action = f"assign:J{trump}>{trump}"
    for reason in ("assign", "drunk_shield"):
        en = hint_line(EN, _advice(action, reason), view)
        ru = hint_line(RU, _advice(action, reason), view)
        assert en.endswith("the Drunkard adds no hours, but if the job fails he goes north "
                           f"instead of your plot's Q{symbol}"), en
        assert "Пьяница не добавляет часов" in ru and f"вместо Д{symbol}" in ru, ru


def test_a_long_hint_still_fits_an_alert() -> None:
    """A Telegram alert shows 200 characters: the extras go before the reason does."""
    view, legal = _assign_view("kolkhoz")  # the longest job names
    a = _first_assign(legal)
    assert a.suit is not None
    letter = a.suit.letter
    plot = [f"{r}{letter}" for r in ("6", "7", "8", "9", "10", "J", "Q", "K")]
    view = _set_job(view, letter, 0, plot=plot)
    other = next(t for t in legal if t.startswith("assign:") and t != a.text)
    for tr in (EN, RU):
        line = hint_line(tr, _advice(a.text, "assign", 0.5, other, 0.3), view)
        assert len(line) <= HINT_LIMIT, (len(line), line)
        assert "0→" in line and ("%" in line)


def test_real_advice_on_real_views_reads_the_state() -> None:
    """Whole-game advice at the search level: every assignment's hint names its job and
    the hours it brings, read from the view the advice was worked out on."""
    game = Game.new(preset("kolkhoz"), 4, seed=5)
    seen = 0
    while not game.is_over and seen < 6:
        seat = game.to_act[0]
        view = game.view(seat)
        if game.phase.value == "assign" and len(game.legal_actions(seat)) > 1:
            advice = advise("strong", "t", view, None, 8)
            if advice.reason is not Reason.ONLY_MOVE:
                a = advice.action
                assert a.card is not None and a.suit is not None
                job = View.from_dict(view).job(a.suit)
                for tr in (EN, RU):
                    line = hint_line(tr, advice, view)
                    assert len(line) <= HINT_LIMIT
                    name = present.job_name(tr, "fields", a.suit.letter)
                    assert f"→ {a.suit.symbol} {name}: " in line, line
                    if not job.complete and job.hours < job.threshold and \
                            a.card != job.drunkard:
                        assert f"{job.hours}→{job.hours_after(a.card)} " in line, line
                    assert not any(t in line for t in TAUTOLOGY)
                seen += 1
        game.apply(seat, default_action(game, seat))
    assert seen


# ---------------------------------------------------------------------- what was inferred
def _table(*names: tuple[str, bool]) -> Any:
    """A game header with these seats (name, is an AI player): enough to name a seat."""
    from types import SimpleNamespace

    from kolkhoz_tg.service.records import SeatInfo

    return SimpleNamespace(seats=[SeatInfo(s, None if ai else 100 + s, name, ai, False, 0, 0)
                                  for s, (name, ai) in enumerate(names)])


def test_a_hint_says_what_the_search_inferred_naming_the_player() -> None:
    game = _table(("Anna", False), ("Boris", False), ("Bot 2", True))
    void = _advice("play:10H", "take", 0.62, "play:JH", 0.48, _void(1, "D", 0.9))
    assert hint_line(EN, void, game=game) == (
        "💡 10♥: takes the trick for now — chance to win: 62%, against 48% for J♥ · "
        "Boris probably has no ♦ left")
    assert hint_line(RU, void, game=game).endswith("Boris: скорее всего, ♦ больше нет")
    holds = _advice("play:10H", "take", None, None, None, _holds(2, "QS", 0.8))
    assert hint_line(EN, holds, game=game).endswith("— Bot 2 probably holds Q♠")
    assert hint_line(RU, holds, game=game).endswith("— Бот 2: скорее всего, на руках Д♠")
    # Nothing inferred, or no game to name the player: the line as before.
    assert hint_line(EN, replace(void, inferred=()), game=game) == hint_line(EN, void)
    assert "Boris" not in hint_line(EN, void)


def test_what_was_inferred_goes_before_the_figures_when_both_do_not_fit() -> None:
    view, legal = _assign_view()
    action = next(a for a in legal if a.startswith("assign"))
    game = _table(("Anna", False), ("Boris", False), ("Vera Konstantinovna Ivanova", False),
                  ("Bot 3", True))
    advice = _advice(action, "assign", 0.31, legal[-1], 0.62, _void(2, "S", 0.95))
    for tr in (EN, RU):
        text = hint_line(tr, advice, view, game)
        assert len(text) <= HINT_LIMIT
        assert "Vera Konstantinovna Ivanova" in text


def test_a_hint_with_inference_tells_only_of_other_seats_and_is_repeatable() -> None:
    """advise(infer=True) on real views: what it infers is about other seats, likely once
    weighed, and the same view and seed give the same advice; without it, nothing."""
    told = 0
    for seed in range(4):
        game = Game.new(preset("classic"), 4, seed=seed)
        while not game.is_over and told < 3:
            seat = game.to_act[0]
            view = game.view(seat)
            if game.phase.value == "play" and len(game.trick) == 2 and game.forced_action(
                    seat) is None:
                advice = advise("strong", "t", view, iterations=8, infer=True)
                assert advice == advise("strong", "t", view, iterations=8, infer=True)
                assert advise("strong", "t", view, iterations=8).inferred == ()
                for fact in advice.inferred:
                    assert fact.seat != seat and fact.chance >= 0.75
                told += bool(advice.inferred)
            game.apply(seat, default_action(game, seat))
    assert told >= 1
