"""The heuristic player: a cheap deterministic move for any seat.

:func:`default_action` is what the ``normal`` AI level plays, what is played for a player who
timed out, and the policy the search levels (:mod:`engine.ai.search`) play their games out with,
so it tries to play reasonably and stays cheap (about 10 µs a move): keep strong cards for the
plot, win tricks that complete a job worth having, put workers where they finish jobs or
shield the Brigadier's own plot, and send the trump Jack (Пьяница) to a job that is going to
fail; with ``pass_cards``, pass the card of least use to both hands (a low side card).

It reads only what the seat's own view allows (its hand and plot plus public state).

Every branch of a decision names itself: :func:`decide` returns the move with its
:class:`Reason` (a code, never a sentence: front ends word it), and :func:`default_action`
drops the reason, so the path the search's playouts take costs only a tuple more per move.
:func:`describe` names what any action does, for a move the heuristic did not choose (a
search level's).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final

from engine.actions import PLAYS, SWAP_PASS, Action, ActionKind
from engine.cards import HOURS, JACK, QUEEN, card_id
from engine.phase import Phase
from engine.rules import Losers, Requisition, Reward
from engine.state import Game

# Final: the compiled engine keeps these in C variables (other module globals are looked up
# by name at every use, and so are names imported from modules that are not compiled).
_SUIT: Final = tuple(c // 13 for c in range(52))
_POINTS: Final = tuple(c % 13 + 1 for c in range(52))
_PLAYS: Final = PLAYS
_SWAP_PASS: Final = SWAP_PASS
# Enum members as module constants: looking them up on the class costs more than the test
# (Python 3.11 finds a member through a Python-level descriptor, about 70 ns).
_PLAY: Final = Phase.PLAY
_ASSIGN: Final = Phase.ASSIGN
_TRUMP: Final = Phase.TRUMP
_SWAP: Final = Phase.SWAP
_PASS: Final = Phase.PASS
_SWAP_KIND: Final = ActionKind.SWAP
_BRIGADIER: Final = Reward.BRIGADIER
_STACK: Final = Reward.STACK
_NO_REWARD: Final = Reward.NONE
_EVERYONE: Final = Requisition.EVERYONE
_HIGHEST: Final = Losers.HIGHEST


class Reason(StrEnum):
    """Why a move was chosen: the branch of the heuristic that fired (or, for a move it did
    not choose, what the move does: :func:`describe`). Values are stable codes."""

    ONLY_MOVE = "only_move"  # the one legal action (or the one job a card can go to)
    RANDOM = "random"  # a uniformly random legal action (the ``random`` level)
    # trump
    TRUMP_LONGEST = "trump_longest"  # the suit the hand holds most (and highest) of
    TRUMP_SUIT = "trump_suit"  # (describe) a suit named trump
    # pass (pass_cards)
    PASS_LOW = "pass_low"  # pass the lowest side card (of the shortest suit): keep the trumps
    PASS_CARD = "pass_card"  # (describe) a card passed that the heuristic would keep
    # swap
    SWAP_HIDE = "swap_hide"  # hide a strong hand card in the plot for a weak face-down one
    SWAP_KEEP = "swap_keep"  # no swap gains enough to be worth it
    SWAP = "swap"  # (describe) a swap the heuristic would not make
    # play
    SPEND_HIGH = "spend_high"  # everyone is exposed: spend the strongest card on the jobs
    LEAD_LOW = "lead_low"  # lead low from a side suit, keep strong cards for the plot
    WIN_CHEAP = "win_cheap"  # last to play: the lowest card that takes a valuable trick
    WIN_HIGH = "win_high"  # a valuable trick: the strongest winning card
    DUCK = "duck"  # the trick is not worth it: the lowest card that loses it
    DUMP = "dump"  # no card can take the trick: the one least worth keeping
    LOWEST = "lowest"  # every card wins and the trick is worth little: the lowest one
    KEEP_FOR_PLOT = "keep_for_plot"  # the card kept goes to the plot: keep the better one
    LEAD = "lead"  # (describe) a lead the heuristic would not make
    TAKE = "take"  # (describe) a card that takes the trick for now
    GIVE = "give"  # (describe) a card that lets the trick go
    # assign
    DRUNK_SHIELD = "drunk_shield"  # the trump Jack to the failing job the plot fears most
    COMPLETE_JOB = "complete_job"  # the card completes a job (the richest reward first)
    BUILD_JOB = "build_job"  # hours where they help most, above all the plot's own suits
    FINISHED_JOB = "finished_job"  # only finished jobs left: the least loss
    ASSIGN = "assign"  # (describe) a job the heuristic would not choose


# The reasons the choices return, as module constants too.
_WHY_BUILD_JOB: Final = Reason.BUILD_JOB
_WHY_COMPLETE_JOB: Final = Reason.COMPLETE_JOB
_WHY_DRUNK_SHIELD: Final = Reason.DRUNK_SHIELD
_WHY_DUCK: Final = Reason.DUCK
_WHY_DUMP: Final = Reason.DUMP
_WHY_FINISHED_JOB: Final = Reason.FINISHED_JOB
_WHY_KEEP_FOR_PLOT: Final = Reason.KEEP_FOR_PLOT
_WHY_LEAD_LOW: Final = Reason.LEAD_LOW
_WHY_LOWEST: Final = Reason.LOWEST
_WHY_ONLY_MOVE: Final = Reason.ONLY_MOVE
_WHY_PASS_LOW: Final = Reason.PASS_LOW
_WHY_SPEND_HIGH: Final = Reason.SPEND_HIGH
_WHY_SWAP_HIDE: Final = Reason.SWAP_HIDE
_WHY_SWAP_KEEP: Final = Reason.SWAP_KEEP
_WHY_TRUMP_LONGEST: Final = Reason.TRUMP_LONGEST
_WHY_WIN_CHEAP: Final = Reason.WIN_CHEAP
_WHY_WIN_HIGH: Final = Reason.WIN_HIGH


def default_action(game: Game, seat: int) -> Action:
    """The heuristic move for ``seat`` now (deterministic for a given state).

    Raises :class:`ValueError` when the seat has nothing to do.
    """
    return decide(game, seat)[0]


def refined_action(game: Game, seat: int) -> Action:
    """:func:`default_action` refined, for the playouts of a search level that asks for it
    (``SearchParams.refined``); ``default_action`` itself, the ``normal`` level and the
    timeout player, stays as it is. Four changes, each measured as a player (docs/ai-lab.md):

    - while a trick is placed, a job its cards already bring to the threshold counts as
      complete, so the rest of the trick goes where it still helps instead of piling on;
    - no swap (the heuristic's swaps lose more than they hide);
    - a lead comes from the longest side suit (its lowest card), not the lowest card of all;
    - a valuable trick is taken with the cheapest card that wins it now, not the strongest.

    One seat of it wins about 0.30 of the games against three :func:`default_action`
    players, where 0.25 is even. Raises :class:`ValueError` when the seat has nothing to do.
    """
    return decide(game, seat, refined=True)[0]


def decide(game: Game, seat: int, refined: bool = False) -> tuple[Action, Reason]:
    """The heuristic move for ``seat`` now and the :class:`Reason` it was chosen for
    (:func:`default_action` is its first half; with ``refined``, :func:`refined_action`'s).
    Raises :class:`ValueError` when the seat has nothing to do."""
    legal = game._legal_list(seat)  # the cached list itself: nothing here changes it
    if not legal:
        raise ValueError(f"seat {seat} has no legal action")
    if len(legal) == 1:
        return legal[0], _WHY_ONLY_MOVE
    phase = game.phase
    if phase is _PLAY:
        return _choose_play(game, seat, legal, refined)
    if phase is _ASSIGN:
        return _choose_assign(game, seat, legal, refined)
    if phase is _TRUMP:
        return _choose_trump(game, seat, legal)
    if phase is _PASS:
        return _choose_pass(game, seat, legal)
    if phase is _SWAP:
        if refined:
            return _SWAP_PASS, _WHY_SWAP_KEEP
        return _choose_swap(game, seat, legal)
    return _choose_assign(game, seat, legal, refined)


def describe(game: Game, seat: int, action: Action) -> Reason:
    """Why ``action`` (legal for ``seat`` now) is a move to make: the heuristic's own reason
    when it is the heuristic's choice, else what the move does (leads, takes or gives the
    trick, completes or builds a job, names a trump, swaps)."""
    chosen, reason = decide(game, seat)
    if chosen == action:
        return reason
    kind = action.kind
    if kind is ActionKind.TRUMP:
        return Reason.TRUMP_SUIT
    if kind is ActionKind.PASS:
        return Reason.PASS_CARD
    if kind is _SWAP_KIND:
        return Reason.SWAP if action.target is not None else Reason.SWAP_KEEP
    if kind is ActionKind.PLAY:
        if not game.trick:
            return Reason.LEAD
        return Reason.TAKE if _wins(game, action.card_id) else Reason.GIVE
    j = action.suit_id
    if game.completed_by[j] is not None:
        return Reason.FINISHED_JOB
    if game.hours[j] + game.hours_of(action.card_id) >= game.rules.threshold:
        return Reason.COMPLETE_JOB
    return Reason.ASSIGN


def _choose_trump(game: Game, seat: int, legal: list[Action]) -> tuple[Action, Reason]:
    hand = game.hands[seat]

    def strength(a: Action) -> tuple[int, int]:
        assert a.suit is not None
        s = int(a.suit)
        cards = [c for c in hand if _SUIT[c] == s]
        return (len(cards) * 20 + sum(_POINTS[c] for c in cards), -s)

    return max(legal, key=strength), _WHY_TRUMP_LONGEST


def _choose_pass(game: Game, seat: int, legal: list[Action]) -> tuple[Action, Reason]:
    # pass_cards: the card passed is lost to this hand and given to a neighbour, so pass the
    # one of least use to either: not a trump (trumps win tricks, for whoever holds them),
    # the fewest points (a trick won, or the plot, gains least from it; high cards win
    # tricks and complete jobs), then from the shortest suit (a void to trump or discard
    # into). Reads only the seat's hand and the trump.
    hand = game.hands[seat]
    trump = game.trump
    length = [0, 0, 0, 0]
    for c in hand:
        length[_SUIT[c]] += 1
    best = legal[0]
    best_key: tuple[bool, int, int, int] | None = None
    for a in legal:
        c = a.card_id
        key = (_SUIT[c] == trump, _POINTS[c], length[_SUIT[c]], c)
        if best_key is None or key < best_key:
            best, best_key = a, key
    return best, _WHY_PASS_LOW


def _choose_swap(game: Game, seat: int, legal: list[Action]) -> tuple[Action, Reason]:
    # Hide a strong hand card in the plot in exchange for a weak face-down one, when it gains
    # enough to be worth the requisition risk; trumps are better kept for the tricks.
    rules = game.rules
    exposed = rules.reward is _NO_REWARD or rules.requisition is _EVERYONE
    best: Action | None = None
    best_gain = 5 if exposed else 2
    trump = game.trump
    for a in legal:
        target = a.target
        if a.kind is not _SWAP_KIND or target is None:
            continue  # a swap names both cards or none (the pass)
        c = a.card_id
        if _SUIT[c] == trump:
            continue
        gain = _POINTS[c] - _POINTS[target.id]
        if gain > best_gain:
            best, best_gain = a, gain
    if best is None:
        return _SWAP_PASS, _WHY_SWAP_KEEP
    return best, _WHY_SWAP_HIDE


def trick_stakes(game: Game, extra: list[int]) -> int:
    """Reward points a Brigadier would collect if the trick's cards (plus ``extra``) completed
    the jobs they can most easily reach; a rough measure of whether winning is worth it."""
    hours_of = game.hours_of
    total = sum([hours_of(c) for _, c in game.trick]) + sum([hours_of(c) for c in extra])
    rules = game.rules
    reward = rules.reward
    stakes = 0
    for j in range(4):
        if game.completed_by[j] is not None:
            continue
        need = rules.threshold - game.hours[j]
        if need <= total:
            if reward is _BRIGADIER:
                stakes += sum([_POINTS[c] for c in game.rewards[j]]) or 1
            elif reward is _STACK:
                stakes += 4
    return stakes


def _wins(game: Game, card: int) -> bool:
    """Whether ``card`` would beat every card in the current trick."""
    trick = game.trick
    if not trick:
        return True
    keys = game.trick_keys()  # the rules' own ranking, trump_wins or not
    return keys[card] > max([keys[c] for _, c in trick])


def trick_best(game: Game) -> int:
    """The card winning the current (non-empty) trick so far, as the policies see it: a
    trump beats the led suit under every rules (see :func:`_choose_play`)."""
    trump = game.trump
    trick = game.trick
    led = _SUIT[trick[0][1]]
    # The highest (trump, led suit, id), as one int: the flags outweigh any id (below 64).
    best = -1
    best_key = -1
    for _, c in trick:
        key = (128 if _SUIT[c] == trump else 0) + (64 if _SUIT[c] == led else 0) + c
        if key > best_key:
            best, best_key = c, key
    return best


def _beats(card: int, best: int, trump: int | None, led: int) -> bool:
    if _SUIT[card] == trump:
        return _SUIT[best] != trump or card > best
    if _SUIT[best] == trump or _SUIT[card] != led:
        return False
    return card > best


def _low(cards: list[int], trump: int | None) -> int:
    """The first of ``cards`` with the lowest (is a trump, points): ``min`` by that key,
    the key as one int (points are below 16)."""
    choice = cards[0]
    lowest = 99
    for c in cards:
        key = (16 if _SUIT[c] == trump else 0) + _POINTS[c]
        if key < lowest:
            choice, lowest = c, key
    return choice


def _choose_play(
    game: Game, seat: int, legal: list[Action], refined: bool = False
) -> tuple[Action, Reason]:
    cards = [a.card_id for a in legal]  # play actions: every one names a card
    hand = game.hands[seat]
    last_in_hand = len(hand) == 2  # the card kept now goes to the plot and scores
    trump = game.trump
    trick = game.trick
    # Each choice below is the first card with the highest or lowest key, as max or min
    # would give, with the key written as one int.
    rules = game.rules
    if rules.reward is _NO_REWARD or rules.requisition is _EVERYONE:
        # Everyone is exposed to every requisition ("Зонский режим"): a strong card kept is a
        # card lost, so spend strong cards on the jobs and keep the weak ones.
        # The highest (points, -id).
        choice = cards[0]
        highest = -1
        for c in cards:
            key = _POINTS[c] * 64 + 63 - c
            if key > highest:
                choice, highest = c, key
        reason = _WHY_SPEND_HIGH
    elif not trick:
        # Lead low from a side suit; keep strong cards for the plot.
        if refined:  # the lowest card of the longest side suit
            length = [0, 0, 0, 0]
            for c in hand:
                length[_SUIT[c]] += 1
            # The lowest (is a trump, -length of its suit, points).
            choice = cards[0]
            lowest = 1 << 20
            for c in cards:
                key = ((256 if _SUIT[c] == trump else 0) + (15 - length[_SUIT[c]]) * 16
                       + _POINTS[c])
                if key < lowest:
                    choice, lowest = c, key
        else:
            choice = _low(cards, trump)
        reason = _WHY_LEAD_LOW
    else:
        # Which cards win, the trick's best card found once. Unlike _wins (the hint's words,
        # by the rules), both policies take a trump for a winner even without trump_wins
        # (seed 000): knowing better measured no stronger, and a worse model of `strong`
        # (docs/ai-lab.md).
        best, led = trick_best(game), _SUIT[trick[0][1]]
        winners = [c for c in cards if _beats(c, best, trump, led)]
        stakes = trick_stakes(game, [])
        if winners and stakes >= 3 and len(trick) == game.n - 1:
            choice = _low(winners, trump)  # last to play: take a valuable trick cheaply
            reason = _WHY_WIN_CHEAP
        elif winners and stakes >= 3:
            if refined:
                choice = _low(winners, trump)
            else:  # the highest (is a trump, points)
                choice = winners[0]
                highest = -1
                for c in winners:
                    key = (16 if _SUIT[c] == trump else 0) + _POINTS[c]
                    if key > highest:
                        choice, highest = c, key
            reason = _WHY_WIN_HIGH
        else:
            losers = [c for c in cards if c not in winners]
            choice = _low(losers or cards, trump)
            reason = (_WHY_DUMP if not winners
                      else _WHY_DUCK if losers else _WHY_LOWEST)
    if last_in_hand and len(cards) == 2:
        # The card kept goes face-down into the plot: keep the one worth more after the
        # year's requisition, not simply the higher one.
        other = cards[1] if cards[0] == choice else cards[0]
        if keep_value(game, seat, other) < keep_value(game, seat, choice):
            choice = other
            reason = _WHY_KEEP_FOR_PLOT
    return _PLAYS[choice], reason


def keep_value(game: Game, seat: int, c: int) -> float:
    """Expected points of ``c`` in the plot after this year's requisition (a rough guess)."""
    return _POINTS[c] * (1.0 - _loss_risk(game, seat, c))


def _loss_risk(game: Game, seat: int, c: int) -> float:
    j = _SUIT[c]
    if game.completed_by[j] is not None:
        return 0.0
    rules = game.rules
    if rules.reward is _NO_REWARD or rules.requisition is _EVERYONE:
        exposed = 1.0
    elif rules.reward is _STACK:
        exposed = 0.9 if game.completed_year[seat] else 0.4  # mice fallback, Informer
    else:
        exposed = 0.9 if game.brigadier_year[seat] else 0.3
    need = game.rules.threshold - game.hours[j]
    fails = 0.9 if need > 15 else 0.6 if need > 5 else 0.35
    if rules.losers is _HIGHEST:
        # Only the single highest matching card goes: high cards are the ones at risk.
        fails *= 0.3 + 0.7 * (_POINTS[c] - 5) / 8
    return exposed * fails


def _choose_assign(
    game: Game, seat: int, legal: list[Action], reached_is_done: bool = False
) -> tuple[Action, Reason]:
    trump = game.trump
    own_suits = [0, 0, 0, 0]
    for c in game.plots[seat]:
        if c % 13 >= 5:
            own_suits[_SUIT[c]] += _POINTS[c]
    rules = game.rules
    threshold = rules.threshold
    drunk = queen = -1
    if rules.nomenklatura and trump is not None:
        drunk, queen = card_id(JACK, trump), card_id(QUEEN, trump)
    job_hours = game.hours
    completed_by = game.completed_by
    # The action with the highest (value, -job, -card): as max(legal, key=...) with the
    # score written out (no two actions share a key, so the order of the scan is no matter).
    # The key is one int, value * 256 + (3 - job) * 64 + (51 - card), which orders as the
    # tuple does (the last two terms add up to less than 256) without building one.
    choice = legal[0]
    reason = _WHY_BUILD_JOB
    best = -(1 << 30)  # below any key, and within the compiled engine's unboxed ints
    for a in legal:
        c, j = a.card_id, a.suit_id
        hours = job_hours[j]
        # A job this trick has already brought to the threshold completes when the trick is
        # placed; the refined policy (reached_is_done) counts it as complete already.
        done = completed_by[j] is not None or (reached_is_done and hours >= threshold)
        value: int
        why: Reason
        if c == drunk:
            # The Jack shields a failing job: put it where the plot has the most at stake.
            value = 0 if done else own_suits[j] * 4 - hours
            why = _WHY_FINISHED_JOB if done else _WHY_DRUNK_SHIELD
        elif done:
            value = -100 + _POINTS[c]  # wasted on a finished job
            why = _WHY_FINISHED_JOB
        elif hours + HOURS[c] >= threshold:  # game.hours_of(c): not the Jack here
            reward = sum([_POINTS[r] for r in game.rewards[j]])
            value = 200 + reward * 10 + own_suits[j]
            why = _WHY_COMPLETE_JOB
        else:
            value = (hours + HOURS[c]) * 2 + own_suits[j] * 3
            if c == queen:
                value -= 30  # an Informer on a job that fails exposes everyone
            why = _WHY_BUILD_JOB
        key = value * 256 + (3 - j) * 64 + 51 - c
        if key > best:
            choice, best, reason = a, key, why
    return choice, reason
