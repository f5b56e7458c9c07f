"""An independent reading of RULES.md (revision 4) to check the engine at every step.

Written from the rule text, not from the engine's code: the trick winner, where each card of
a trick may go, the hand size of each year, the whole requisition of a year (who is exposed,
what they reveal, what goes north) and the pass of the house rule ``pass_cards`` (when it
comes, what may be passed, which card ends in which hand). :func:`checked_apply` applies one
action and compares what happened with what these functions expect.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import engine.state
from engine import Game, Phase
from engine import events as ev
from tests.engine.scripted import parse_card

JACK, QUEEN, KING = 11, 12, 13


def suit(c: int) -> int:
    return c // 13


def rank(c: int) -> int:
    return c % 13 + 1


def is_worker(c: int) -> bool:
    return rank(c) >= 6


def trick_winner(rules: Any, trump: int | None, trick: list[tuple[int, int]]) -> int:
    led = suit(trick[0][1])
    if rules.trump_wins and trump is not None:
        trumps = [(rank(c), s) for s, c in trick if suit(c) == trump]
        if trumps:
            return max(trumps)[1]
    return max((rank(c), s) for s, c in trick if suit(c) == led)[1]


def allowed_jobs(g: Game, c: int) -> set[int]:
    if g.rules.assignment == "present":
        return {suit(x) for _, x in g.trick}
    if g.lean or suit(c) == g.trump:
        return {0, 1, 2, 3}
    return {suit(c)}


def expected_hand_size(g: Game, year: int, available: int, famine: bool) -> int:
    short = g.rules.final_year_short and year == g.rules.years
    return min(4 if famine or short else 5, available // g.n)


def pass_expected(rules: Any, year: int) -> bool:
    """Step 5: with ``pass_cards`` every year from the second has a pass."""
    return bool(rules.pass_cards) and year >= 2


def passed_hands(hands: list[list[int]], chosen: dict[int, int], year: int) -> list[list[int]]:
    """Every hand once the chosen cards moved at once: to the left neighbour (seat + 1) in an
    even year, to the right one (seat - 1) in an odd year; sorted, for comparison."""
    n = len(hands)
    out = [[c for c in hand if c != chosen[s]] for s, hand in enumerate(hands)]
    for s in range(n):
        to = (s + 1) % n if year % 2 == 0 else (s + n - 1) % n
        out[to].append(chosen[s])
    return [sorted(h) for h in out]


def _pass_choices(log: Any, n: int) -> dict[int, int]:
    """The cards chosen in the pass that just ended: its moves are the last ``n`` of the
    log (nothing else may be played while the seats choose), one a seat."""
    chosen: dict[int, int] = {}
    for s, text in log[len(log) - n:]:
        kind, _, card = text.partition(":")
        assert kind == "pass" and s not in chosen, (s, text)
        chosen[s] = parse_card(card)
    assert sorted(chosen) == list(range(n))
    return chosen


def expected_requisition(
    g: Game,
) -> tuple[list[tuple[int, int, int]], list[tuple[int, int, frozenset[int]]], bool]:
    """(cards north as (seat, job, card), reveals as (seat, job, cards), mice rule applied)
    for the state at the moment the year's requisition starts."""
    rules = g.rules
    n = g.n
    failed = [j for j in range(4) if g.completed_by[j] is None]
    if not failed:
        return [], [], False
    everyone = list(range(n))
    if rules.reward == "none" or rules.requisition == "everyone":
        base = everyone
    elif rules.reward == "stack":
        base = [s for s in everyone if g.completed_year[s]]
    else:
        base = [s for s in everyone if g.brigadier_year[s]]
    reveal, losers, mice = rules.reveal, rules.losers, False
    # hero (house rule): with Brigadiers searched and reward cards, the one who won every
    # trick of the year is searched for nothing, everyone else is, "each" losing theirs.
    winners = {w for _trick, w in g.tricks}
    hero = (next(iter(winners)) if rules.hero and len(winners) == 1
            and rules.requisition == "brigadiers" and rules.reward == "brigadier" else None)
    if hero is not None:
        base, losers = [s for s in everyone if s != hero], "each"
    elif rules.mice_fallback and len(failed) == 4 and not base:
        base, reveal, losers, mice = everyone, "highest", "highest", True
    face_up = set(g.face_up)
    plots = [list(p) for p in g.plots]
    north: list[tuple[int, int, int]] = []
    reveals: list[tuple[int, int, frozenset[int]]] = []
    trump = g.trump
    nomenklatura = rules.nomenklatura and trump is not None
    for j in failed:
        workers = g.workers[j]
        drunk = nomenklatura and trump * 13 + JACK - 1 in workers
        if drunk and rules.drunkard != "replaces":
            continue  # the Drunkard goes north, nothing else happens (checked separately)
        count = 2 if nomenklatura and trump * 13 + KING - 1 in workers else 1
        # drunkard = replaces: exposure and reveal as usual, one card fewer goes north.
        lose = count - 1 if drunk else count
        queen = nomenklatura and trump * 13 + QUEEN - 1 in workers
        exposed = everyone if queen and hero is None else base
        for s in exposed:
            matching = sorted((c for c in plots[s] if is_worker(c) and suit(c) == j),
                              key=rank, reverse=True)
            hidden = [c for c in matching if c not in face_up]
            if reveal == "plot":
                new = [c for c in plots[s] if c not in face_up]
            elif reveal == "highest" and not queen:
                new = hidden[:count]
            else:
                new = hidden
            if new:
                face_up.update(new)
                reveals.append((s, j, frozenset(new)))
        seen = [(rank(c), s, c) for s in exposed for c in plots[s]
                if is_worker(c) and suit(c) == j and c in face_up]
        if losers == "each":
            lost = []
            for s in exposed:
                mine = sorted((x for x in seen if x[1] == s), reverse=True)
                lost += mine[:lose]
        else:
            lost = sorted(seen, reverse=True)[:lose]
        for _, s, c in lost:
            plots[s].remove(c)
            face_up.discard(c)
            north.append((s, j, c))
    return north, reveals, mice


@contextmanager
def requisition_snapshots() -> Iterator[list[Game]]:
    """Record a copy of the game each time the engine starts a year's requisition."""
    original = engine.state.requisition
    seen: list[Game] = []

    def spy(g: Any, out: Any) -> None:
        seen.append(g.copy())
        original(g, out)

    engine.state.requisition = spy  # type: ignore[assignment]
    try:
        yield seen
    finally:
        engine.state.requisition = original


def checked_apply(g: Game, seat: int, action: Any, snapshots: list[Game]) -> list[Any]:
    """Apply ``action`` and hold what happened against the oracle."""
    before = g.copy()
    if g.phase is Phase.ASSIGN:
        # Every legal assignment follows the assignment rule, and every allowed job is legal.
        offered: dict[int, set[int]] = {}
        for a in g.legal_actions(seat):
            offered.setdefault(a.card_id, set()).add(a.suit_id)
        assert offered == {c: allowed_jobs(g, c) for c in g.pending}, (g.rules, g.lean)
    if g.phase is Phase.PASS:
        # A seat still to choose may pass any one card of its hand, and do nothing else.
        legal = g.legal_actions(seat)
        assert all(str(a).startswith("pass:") for a in legal), legal
        assert sorted(parse_card(str(a)[5:]) for a in legal) == sorted(g.hands[seat])
    del snapshots[:]
    events = g.apply(seat, action)
    n = g.n
    for e in events:
        if isinstance(e, ev.TrumpDeclared) or (isinstance(e, ev.YearStarted) and e.lean):
            # After trump, or straight after the deal of a lean year: the pass (pass_cards,
            # from year 2), else the swap or the tricks.
            if pass_expected(g.rules, g.year):
                assert g.phase is Phase.PASS and sorted(g.to_act) == list(range(n))
            else:
                assert g.phase is not Phase.PASS
        elif isinstance(e, ev.PassChosen):
            assert e._fields == ("seat",) and e.seat == seat
        elif isinstance(e, ev.CardsPassed):
            assert pass_expected(before.rules, before.year)
            assert (e.year, e.left) == (before.year, before.year % 2 == 0)
            chosen = _pass_choices(g.log, n)
            assert [sorted(h) for h in g.hands] == passed_hands(before.hands, chosen, e.year)
            # Then the swap (from year 2, like the pass) or the tricks.
            assert g.phase is (Phase.SWAP if g.rules.swap else Phase.PLAY)
    if before.phase is Phase.PASS and not any(isinstance(e, ev.CardsPassed) for e in events):
        assert g.hands == before.hands  # nothing moves before every seat has chosen
    for e in events:
        if isinstance(e, ev.TrickWon):
            trick = [*before.trick, (seat, action.card_id)]
            assert e.seat == trick_winner(g.rules, before.trump, trick), (g.rules, trick)
        elif isinstance(e, ev.YearStarted):
            available = sum(len(h) for h in g.hands) + len(g.deck)
            assert e.hand_size == expected_hand_size(g, e.year, available, e.famine)
            assert not e.lean or (g.trump is None and g.phase is not Phase.TRUMP)
    if snapshots:
        (at,) = snapshots
        north, reveals, mice = expected_requisition(at)
        got_north = [(e.seat, int(e.job), e.card.id) for e in events
                     if isinstance(e, ev.CardSentNorth)]
        got_reveals = [(e.seat, int(e.job), frozenset(c.id for c in e.cards)) for e in events
                       if isinstance(e, ev.CardsRevealed)]
        assert Counter(got_north) == Counter(north), (at.rules, got_north, north)
        assert Counter(got_reveals) == Counter(reveals), (at.rules, got_reveals, reveals)
        assert any(isinstance(e, ev.MiceRuleApplied) for e in events) == mice
    return events
