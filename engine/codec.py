"""JSON snapshots of a game, with a format version.

A snapshot holds the rules, the seed and the whole state, so loading is one decode and no
replay. Randomness is derived from the seed per year, so a restored game deals the same
future as the original. Since format 3 it does not list the moves (the play-by-post service
keeps them in its actions table; :meth:`engine.state.Game.replay` rebuilds a game from them),
only counts them: nothing a view, the rules or a later move needs is read from the log.
"""

from __future__ import annotations

from typing import Any, Final

from engine.cards import CARD_TEXT, parse_card
from engine.data import GameData
from engine.phase import Phase
from engine.rules import Rules

FORMAT = "kolkhoz-game"
#: 3: the moves are counted (``moves``), not listed. 2: RULES.md revision 3
#: (``trump_wins``, ``final_year_short``, ``reveal``; the year's tricks). Versions 1 and 2 still
#: load, with their logs (a restored game then has its whole log); version 1's rules lack the
#: new options, which then take the values the game started with (trump wins, no short year,
#: reveal matching). Format 3 snapshots stored before the house rule ``pass_cards`` lack
#: ``pass_pending`` and ``passes``: they load with no pass under way.
FORMAT_VERSION = 3
_READABLE = (1, 2, 3)
#: Card ids by their canonical text, as snapshots write them (a dict lookup, not a parse).
_CARD_ID: Final = {t: i for i, t in enumerate(CARD_TEXT)}
#: ``Rules.to_dict()`` (``dataclasses.asdict``) and ``Rules.from_dict`` (which validates) cost
#: more than the rest of a snapshot; a game server sees a handful of distinct rule sets, so
#: both directions are remembered (rules are immutable; the dicts handed out are copies).
_RULES_JSON: dict[Rules, dict[str, Any]] = {}
_RULES_OF: dict[tuple[Any, ...], Rules] = {}
_RULES_CACHED = 256


def _rules_to_json(rules: Rules) -> dict[str, Any]:
    data = _RULES_JSON.get(rules)
    if data is None:
        if len(_RULES_JSON) >= _RULES_CACHED:
            _RULES_JSON.clear()
        data = _RULES_JSON[rules] = rules.to_dict()
    return dict(data)


def _rules_from_json(data: dict[str, Any]) -> Rules:
    # With the types: 1 == True and 40 == 40.0, but only the bool and the int are valid.
    key = (*data.items(), *map(type, data.values()))
    rules = _RULES_OF.get(key)
    if rules is None:
        rules = Rules.from_dict(data)  # raises ValueError for unknown or bad options
        if len(_RULES_OF) >= _RULES_CACHED:
            _RULES_OF.clear()
        _RULES_OF[key] = rules
    return rules


def _enc(cards: list[int] | set[int]) -> list[str]:
    return [CARD_TEXT[c] for c in (sorted(cards) if isinstance(cards, set) else cards)]


def _dec(texts: list[str]) -> list[int]:
    try:
        return [_CARD_ID[t] for t in texts]
    except (KeyError, TypeError):  # not the canonical text: parse it, or say why not
        return [parse_card(t) for t in texts]


def _card(text: str) -> int:
    card = _CARD_ID.get(text)
    return parse_card(text) if card is None else card


def _dec_played(pairs: list[list[Any]]) -> list[tuple[int, int]]:
    return [(int(s), _card(c)) for s, c in pairs]


def game_to_json(g: GameData) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "rules": _rules_to_json(g.rules),
        "players": g.n,
        "seed": g.seed,
        "first_planner": g.planner0,
        "moves": g._log_start + len(g._log),
        "state": {
            "year": g.year,
            "planner": g.planner,
            "phase": g.phase.value,
            "hand_size": g.hand_size,
            "lean": g.lean,
            "famine": g.famine,
            "short": g.short,
            "trump": g.trump,
            "trump_played": g.trump_played,
            "hands": [_enc(h) for h in g.hands],
            "plots": [_enc(p) for p in g.plots],
            "face_up": _enc(g.face_up),
            "stacks": [[_enc(st) for st in stacks] for stacks in g.stacks],
            "deck": _enc(g.deck),
            "north": _enc(g.north),
            "hours": list(g.hours),
            "completed_by": list(g.completed_by),
            "workers": [_enc(w) for w in g.workers],
            "rewards": [_enc(r) for r in g.rewards],
            "reward_piles": [_enc(p) for p in g.reward_piles],
            "discarded": _enc(g.discarded),
            "trick": [[s, CARD_TEXT[c]] for s, c in g.trick],
            "tricks": [
                [[[s, CARD_TEXT[c]] for s, c in trick], winner] for trick, winner in g.tricks
            ],
            "pending": _enc(g.pending),
            "brigadier": g.brigadier,
            "last_trick": [[s, CARD_TEXT[c]] for s, c in g.last_trick],
            "last_trick_winner": g.last_trick_winner,
            "lead": g.lead,
            "turn": g.turn,
            "tricks_done": g.tricks_done,
            "medals": list(g.medals),
            "brigadier_year": list(g.brigadier_year),
            "completed_year": list(g.completed_year),
            "swap_pending": list(g.swap_pending),
            "pass_pending": list(g.pass_pending),
            "passes": [None if c is None else CARD_TEXT[c] for c in g.passes],
            "ended_early": g.ended_early,
        },
    }


def game_from_json(g: GameData, data: dict[str, Any]) -> None:
    """Fill the fresh instance ``g`` from a snapshot; raises :class:`ValueError` if it is not
    one this version reads."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError("not a Kolkhoz game snapshot")
    if data.get("version") not in _READABLE:
        raise ValueError(f"unsupported snapshot version {data.get('version')!r}")
    try:
        rules = _rules_from_json(data["rules"])
        g._init_empty(rules, int(data["players"]), data["seed"])
        g.planner0 = int(data["first_planner"])
        log = data.get("log")
        if log is not None:  # formats 1 and 2: the whole log, kept
            g._log = [(int(s), str(t)) for s, t in log]
        else:
            g._log_start = int(data["moves"])
        st = data["state"]
        g.year = st["year"]
        g.planner = st["planner"]
        g.phase = Phase(st["phase"])
        g.hand_size = st["hand_size"]
        g.lean = st["lean"]
        g.famine = st["famine"]
        g.short = st.get("short", False)
        g.trump = st["trump"]
        g.trump_played = st["trump_played"]
        g.hands = [_dec(h) for h in st["hands"]]
        g.plots = [_dec(p) for p in st["plots"]]
        g.face_up = set(_dec(st["face_up"]))
        g.stacks = [[_dec(x) for x in stacks] for stacks in st["stacks"]]
        g.deck = _dec(st["deck"])
        g.north = _dec(st["north"])
        g.hours = list(st["hours"])
        g.completed_by = list(st["completed_by"])
        g.workers = [_dec(w) for w in st["workers"]]
        g.rewards = [_dec(r) for r in st["rewards"]]
        g.reward_piles = [_dec(p) for p in st["reward_piles"]]
        g.discarded = _dec(st["discarded"])
        g.trick = _dec_played(st["trick"])
        g.tricks = [(_dec_played(trick), int(winner)) for trick, winner in st.get("tricks", [])]
        g.pending = _dec(st["pending"])
        g.brigadier = st["brigadier"]
        g.last_trick = _dec_played(st["last_trick"])
        g.last_trick_winner = st["last_trick_winner"]
        g.lead = st["lead"]
        g.turn = st["turn"]
        g.tricks_done = st["tricks_done"]
        g.medals = list(st["medals"])
        g.brigadier_year = list(st["brigadier_year"])
        g.completed_year = list(st["completed_year"])
        g.swap_pending = list(st["swap_pending"])
        # pass_cards (RULES.md revision 4): a snapshot stored before it has neither key.
        g.pass_pending = [int(s) for s in st.get("pass_pending", ())]
        g.passes = [None if c is None else _card(c) for c in st.get("passes", ())]
        g.ended_early = st["ended_early"]
    except (KeyError, TypeError, IndexError, AttributeError) as exc:
        raise ValueError(f"malformed game snapshot: {exc!r}") from None
