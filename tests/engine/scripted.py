"""Scripted deals for rule tests: put exactly the cards a test needs where it needs them.

``deal(...)`` starts a real :class:`engine.Game` and then overwrites its state so that a test
can begin in the middle of any year (hands, plots, jobs, rewards, trump, trick...). Every
worker card ends up in exactly one place (hand, plot, deck, job, trick, north) and every
reward card in exactly one place (pile, visible reward, plot, discarded):
:func:`tests.engine.invariants.check_conservation`
verifies that, and tests call it again after acting.

Card text uses the engine's notation (``"10H JC QS"``); jobs are suit letters ``H D C S``.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from engine import Game, Rules
from engine.cards import Suit, card_id, card_text, is_worker, reward_cards
from engine.state import Phase
from tests.engine.invariants import WORKERS, check_conservation

JOB = {"H": 0, "D": 1, "C": 2, "S": 3}
_RANKS = {"A": 1, "J": 11, "Q": 12, "K": 13, **{str(r): r for r in range(2, 11)}}


def parse_card(text: str) -> int:
    """Canonical card text (``10H``, ``JC``) -> id. Independent of the engine's parser, so the
    set-up of a test does not rely on the code under test."""
    rank, suit = text[:-1], text[-1]
    return card_id(_RANKS[rank], JOB[suit])


def cards(text: str | Iterable[str] | None) -> list[int]:
    """``"10H JC"`` -> list of card ids (in the given order)."""
    if text is None:
        return []
    if isinstance(text, str):
        return [parse_card(t) for t in text.split()]
    return [parse_card(t) for t in text]


def c(text: str) -> int:
    """One card id."""
    return parse_card(text)


def texts(ids: Iterable[int]) -> list[str]:
    """Card ids -> canonical texts, in the given order."""
    return [card_text(x) for x in ids]


def stexts(ids: Iterable[int]) -> list[str]:
    """Card ids -> canonical texts, sorted by id (for order-insensitive comparisons)."""
    return [card_text(x) for x in sorted(ids)]


def _job(j: str | int) -> int:
    return JOB[j] if isinstance(j, str) else int(j)


def _seatmap(value: Mapping[int, Any] | None, n: int, default: Any) -> list[Any]:
    out = [default() if callable(default) else default for _ in range(n)]
    if value:
        for s, v in value.items():
            out[s] = v
    return out


def deal(
    rules: Rules,
    players: int = 4,
    planner: int = 0,
    *,
    hands: Mapping[int, str],
    year: int = 1,
    hand_size: int | None = None,
    tricks_done: int | None = None,
    lean: bool | None = None,
    famine: bool = False,
    trump: str | None = None,
    trump_played: bool | None = None,
    phase: Phase | str | None = None,
    plots: Mapping[int, str] | None = None,
    face_up: str | None = None,
    north: str | None = None,
    workers: Mapping[str, str] | None = None,
    hours: Mapping[str, int] | None = None,
    completed_by: Mapping[str, int] | None = None,
    rewards: Mapping[str, str] | None = None,
    reward_piles: Mapping[str, str] | None = None,
    discarded: str | None = None,
    trick: list[tuple[int, str]] | None = None,
    lead: int | None = None,
    turn: int | None = None,
    medals: Mapping[int, int] | None = None,
    brigadiers: Iterable[int] = (),
    completed_year: Iterable[int] = (),
    stacks: Mapping[int, list[str]] | None = None,
    swap_pending: Iterable[int] | None = None,
    pass_pending: Iterable[int] | None = None,
    seed: int | str = 0,
) -> Game:
    """A game of ``players`` seats in ``year`` with exactly the given cards.

    - ``hands``: every seat's hand (required for every seat, may be ``""``).
    - ``plots``: plot cards per seat (workers and/or reward cards). Reward cards in plots are
      face-up; other face-up plot cards are listed in ``face_up``.
    - ``workers``: cards already on each job (``{"H": "6H 7H"}``); ``hours`` defaults to
      their work hours (the trump Jack counting 0 with nomenklatura).
    - ``rewards``: visible rewards per job; ``reward_piles``: the pile per job, bottom first
      (top = last). Unlisted reward cards go to the piles (52-card deck) in id order.
    - ``trick``: cards already played to the current trick as ``(seat, "10H")``.
    - ``hand_size`` defaults to 5 (4 when ``lean`` is true); ``tricks_done`` to what the hand
      lengths imply; ``lean`` to ``hand_size < 5``.
    - ``phase`` defaults to ``play`` (``trump`` if a normal year has no trump given).
    All remaining worker cards form the deck.
    """
    n = players
    g = Game.new(rules, players=n, seed=seed, planner=planner)
    if set(hands) != set(range(n)):
        raise ValueError("give a hand (maybe empty) for every seat")
    g.year = year
    g.planner = planner
    g.famine = famine

    hand_ids = [sorted(cards(hands[s])) for s in range(n)]
    plot_ids = [cards(p) for p in _seatmap(plots, n, "")]
    north_ids = cards(north)
    job_workers = [cards((workers or {}).get(j, "")) for j in "HDCS"]
    trick_list = [(s, c(t)) for s, t in (trick or [])]

    # Where every worker card is.
    placed: list[int] = []
    for h in hand_ids:
        placed += h
    for p in plot_ids:
        placed += [x for x in p if is_worker(x)]
    placed += north_ids
    for w in job_workers:
        placed += w
    placed += [x for _, x in trick_list]
    for x in placed:
        if not is_worker(x):
            raise ValueError(f"{card_text(x)} is not a worker card")
    dup = [card_text(x) for x, k in Counter(placed).items() if k > 1]
    if dup:
        raise ValueError(f"worker cards placed twice: {dup}")
    g.hands = hand_ids
    g.plots = plot_ids
    g.north = north_ids
    g.workers = job_workers
    g.trick = trick_list
    g.pending = []
    g.deck = [x for x in WORKERS if x not in set(placed)]

    # Reward cards.
    plot_rewards = [x for p in plot_ids for x in p if not is_worker(x)]
    visible = [cards((rewards or {}).get(j, "")) for j in "HDCS"]
    disc = cards(discarded)
    if not rules.has_rewards:
        if plot_rewards or any(visible) or disc or reward_piles:
            raise ValueError("the 36-card deck has no reward cards")
        g.rewards = [[], [], [], []]
        g.reward_piles = [[], [], [], []]
        g.discarded = []
    else:
        used = plot_rewards + [x for v in visible for x in v] + disc
        piles: list[list[int]] = [[], [], [], []]
        if reward_piles:
            for j, t in reward_piles.items():
                piles[_job(j)] = cards(t)
                used += piles[_job(j)]
        dup = [card_text(x) for x, k in Counter(used).items() if k > 1]
        if dup:
            raise ValueError(f"reward cards placed twice: {dup}")
        for j in range(4):
            if not (reward_piles and "HDCS"[j] in reward_piles):
                piles[j] = [x for x in reward_cards(Suit(j)) if x not in set(used)]
        g.rewards = visible
        g.reward_piles = piles
        g.discarded = disc

    # Year frame.
    if hand_size is None:
        hand_size = 4 if lean else 5
    g.hand_size = hand_size
    g.lean = hand_size < 5 if lean is None else lean
    if tricks_done is None:
        in_trick = {s for s, _ in trick_list}
        longest = max(len(hand_ids[s]) + (1 if s in in_trick else 0) for s in range(n))
        tricks_done = hand_size - longest
    g.tricks_done = tricks_done
    g.trump = None if trump is None else JOB[trump]
    if g.lean and g.trump is not None:
        raise ValueError("a lean year has no trump")
    if trump_played is None:
        trump_played = g.trump is not None and any(x // 13 == g.trump for _, x in trick_list)
    g.trump_played = trump_played

    if phase is None:
        phase = Phase.TRUMP if (g.trump is None and not g.lean) else Phase.PLAY
    g.phase = Phase(phase)
    if lead is None:
        if trick_list:
            lead = trick_list[0][0]
        elif rules.first_lead == "planner":
            lead = planner
        else:
            lead = (planner + 1) % n
    g.lead = lead
    if turn is None:
        turn = (trick_list[-1][0] + 1) % n if trick_list else lead
    g.turn = turn
    g.swap_pending = list(range(n)) if swap_pending is None else list(swap_pending)
    if g.phase is not Phase.SWAP:
        g.swap_pending = []
    # pass_cards: in the pass phase everyone (or the seats given) is yet to choose.
    g.pass_pending = []
    g.passes = []
    if g.phase is Phase.PASS:
        g.pass_pending = list(range(n)) if pass_pending is None else list(pass_pending)
        g.passes = [None] * n

    # Jobs.
    if hours is None:
        g.hours = [sum(g.hours_of(x) for x in w) for w in job_workers]
    else:
        g.hours = [hours.get(j, sum(g.hours_of(x) for x in job_workers[i]))
                   for i, j in enumerate("HDCS")]
    g.completed_by = [None, None, None, None]
    for j, s in (completed_by or {}).items():
        g.completed_by[_job(j)] = s

    # Players.
    brig = set(brigadiers)
    g.brigadier_year = [s in brig for s in range(n)]
    g.medals = _seatmap(medals, n, 0)
    if medals is None:
        g.medals = [1 if s in brig else 0 for s in range(n)]
    done = set(completed_year)
    g.completed_year = [s in done for s in range(n)]
    g.stacks = [[sorted(cards(t)) for t in _seatmap(stacks, n, list)[s]] for s in range(n)]
    g.face_up = set(plot_rewards) | set(cards(face_up))
    for s in range(n):
        for st in g.stacks[s]:
            if not set(st) <= set(plot_ids[s]):
                raise ValueError("a stack must lie in its owner's plot")
            g.face_up.add(st[0])
    g.brigadier = None
    g.last_trick = []
    g.last_trick_winner = None
    g._legal = {}
    check_conservation(g)
    return g


def act(g: Game, *moves: str | tuple[int, str], check: bool = True) -> list[Any]:
    """Apply moves in order; a bare text is played by the one seat to act. Returns all events.

    Checks card conservation after every move unless ``check`` is false.
    """
    out: list[Any] = []
    for m in moves:
        if isinstance(m, tuple):
            seat, text = m
        else:
            to_act = g.to_act
            assert len(to_act) == 1, f"{m}: several seats may act ({to_act}); name one"
            seat, text = to_act[0], m
        out += g.apply(seat, text)
        if check:
            check_conservation(g)
    return out


def play(g: Game, *card_texts: str) -> list[Any]:
    """Play cards in turn order (each by the seat whose turn it is)."""
    return act(g, *(f"play:{t}" for t in card_texts))


def assign(g: Game, *moves: str) -> list[Any]:
    """Brigadier assigns: ``assign(g, "10H>S", "JC>C")``."""
    return act(g, *(f"assign:{m}" for m in moves))


def events_of(events: Iterable[Any], kind: type) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


def plot_texts(g: Game, seat: int) -> list[str]:
    return stexts(g.plots[seat])


def face_up_texts(g: Game, seat: int) -> list[str]:
    return stexts(x for x in g.plots[seat] if x in g.face_up)


def hidden_texts(g: Game, seat: int) -> list[str]:
    return stexts(x for x in g.plots[seat] if x not in g.face_up)


def decision_states(
    name: str, players: int, seed: int, every: int, random_share: float = 0.0
) -> Iterator[tuple[Game, int]]:
    """(game, seat) at every ``every``-th decision that is not forced, in a game of preset
    ``name`` where every seat plays the heuristic, or with ``random_share`` a uniformly
    random legal move instead that often (seeded by ``seed``)."""
    from engine.ai import default_action
    from engine.rules import preset

    rng = random.Random(seed)
    g = Game.new(preset(name), players, seed)
    step = 0
    while not g.is_over:
        seat = g.to_act[0]
        if step % every == 0 and g.forced_action(seat) is None:
            yield g, seat
        legal = g.legal_actions(seat)
        g.apply(seat, legal[rng.randrange(len(legal))]
                if random_share and rng.random() < random_share else default_action(g, seat))
        step += 1


def twin_searches(
    g: Game, seat: int, params: Any, seed: int, twin_seed: int = 0
) -> tuple[Any, Any, Game]:
    """The search with ``params`` on ``seat``'s view of ``g`` and on a second game dealt from
    that view (a game the seat cannot tell apart), with the same generator ``seed``: the two
    results and the twin. A search that learns only what the seat may know gives the same."""
    import copy

    from engine.ai.search import PlayoutGame, ranked_search
    from engine.determinize import Determinizer

    view = g.view(seat)
    other = Game.determinize(copy.deepcopy(view), random.Random(twin_seed))
    assert other.view(seat) == view
    first = ranked_search(Determinizer(PlayoutGame, view), g.legal_actions(seat),
                          random.Random(seed), params)
    second = ranked_search(Determinizer(PlayoutGame, other.view(seat)),
                           other.legal_actions(seat), random.Random(seed), params)
    return first, second, other
