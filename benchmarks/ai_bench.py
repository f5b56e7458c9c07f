"""Strength and speed of the AI levels (engine.ai.AIPlayer), with 95% confidence intervals.

One seat of the level under test (the hero) against AI players of another level in every other seat;
the hero's seat moves round the table from game to game (game ``i`` puts it in seat
``i % players``), every AI player sees only its seat's view, and a win shared by k seats counts 1/k.
Game ``i`` of a preset has seed ``i`` in every match-up, so match-ups play the same deals.

For each match-up and preset it prints: games, the hero's win share with a Wilson 95%
interval (the interval of a proportion; a shared win counts as its share), the mean score
margin (hero minus the mean of the others) with a normal 95% interval, and the hero's CPU time
per decision (p50 / p99 / max, forced moves excluded: they return at once). The pooled row
weighs every game alike.

Run (the published table, docs/ai.md)::

    python benchmarks/ai_bench.py --table --games 200 --hard-games 40 --workers 2

or one match-up: ``--hero strong --opponents normal --presets classic zone --games 50``.
``--iterations`` replaces the search budget by that many playouts (quick checks only).
``--define NAME=BASE;field=value;...`` adds a variant of a search level for an experiment:
the base level's :class:`~engine.ai.search.SearchParams` with those fields changed (values are
Python literals; they win over ``--iterations``), for instance::

    --define "half=strong;moves=5000" \\
    --define "careful=strong;moves=5000;opponent_noise=(0.0, 0.05, 0.15)" \\
    --hero careful --opponents half

Against three copies of its base at the same budget, a variant that plays no better scores
0.25 (the variant's name seeds its decisions, as a level's name does).
``--agreement LEVEL`` plays ``--games`` games a preset with that level in every seat and prints
how often its move (not forced) is the heuristic's, and ``refined_action``'s, by phase: how far
the playouts' model of a player is from the level itself.
``--duplicate`` plays every deal once with the hero in each seat against the same opponents
(the same cards, the seats rotated), so the luck of the deal cancels, as bridge and Skat
programs are compared: ``--games`` then counts deals, the table counts complete deals only and
gives the hero's mean win share and margin with normal 95% intervals over the deals.
``--out results.jsonl`` appends every game as it ends (a long run stopped early still
counts), with the settings of each search player; ``--report results.jsonl [more.jsonl.gz
...]`` prints the table of such files without playing (a game found in several files, by
match-up, settings, preset and seed, counts once, as the first file listed has it: a deal
played again by a changed player replaces the old one when its file comes first; games of
other settings get a table of their own; duplicate runs of two heroes against the same
opponents are also compared deal by deal, on the deals both played). ``--rename h25=hard``
with ``--report`` counts a variant's games as a level's, pooled where the recorded settings
are the same (play the two at different seeds: a game of each at the same seed would count
once). The runs behind docs/ai.md's
figures are kept in ``benchmarks/results/``.
``--replay results.jsonl`` plays the recorded games again (same match-ups, presets, seeds,
budgets and variants) and checks every one has the same moves, win and margin: a refactoring
of the players must leave their decisions exactly as they were (exit status 1 otherwise).
Games are played round the presets (game 0 of each, then game 1, ...), so a run stopped early
has every preset about equally.
``--compiled`` plays on the engine compiled with mypyc (``benchmarks/compiled.py``): the same
decisions in about 0.4 of the CPU time; each game records it, and reports keep its times, which
the levels' time goals are about (the bot thinks with it), apart from the plain engine's.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import gzip
import hashlib
import json
import math
import multiprocessing
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import compiled

if "--compiled" in sys.argv[1:]:  # before anything imports the engine
    compiled.activate()

from engine import PRESETS, Action, Game, Phase, preset
from engine.ai import LEVELS, AIPlayer, Level, default_action, refined_action
from engine.ai.search import SearchParams

TABLE = [("strong", "normal"), ("strong", "random"), ("hard", "normal"), ("hard", "strong")]


# A variant level: its name, the level it changes and the SearchParams fields it sets.
Define = tuple[str, str, tuple[tuple[str, Any], ...]]
_FIELDS = {f.name for f in dataclasses.fields(SearchParams)}


def parse_define(text: str) -> Define:
    """``NAME=BASE;field=value;...`` (see the module's docstring) as a :data:`Define`.
    Raises :class:`argparse.ArgumentTypeError` for anything else."""
    name, sep, rest = text.partition("=")
    name = name.strip()
    parts = [p.strip() for p in rest.split(";")]
    if not sep or not name.isidentifier() or name in LEVELS or not parts[0]:
        raise argparse.ArgumentTypeError(
            f"expected NEW_NAME=LEVEL;field=value;... (a new name, letters and digits): {text!r}")
    base, changes = parts[0], []
    if base not in LEVELS or base in ("random", "normal"):
        raise argparse.ArgumentTypeError(f"{base!r} is not a search level")
    for part in filter(None, parts[1:]):
        key, eq, value = part.partition("=")
        key = key.strip()
        if not eq or key not in _FIELDS:
            raise argparse.ArgumentTypeError(
                f"{part!r}: expected field=value, a field of {', '.join(sorted(_FIELDS))}")
        try:
            literal = ast.literal_eval(value.strip())
        except (SyntaxError, ValueError) as e:
            raise argparse.ArgumentTypeError(f"{part!r}: {e}") from None
        changes.append((key, _checked(key, literal, part)))
    return name, base, tuple(changes)


def _checked(key: str, value: Any, part: str) -> Any:
    """``value`` as the type of the field's default (a bool is True or False, an int stays
    an int, a float may be written as an int, a tuple holds numbers), never negative."""
    default = getattr(SearchParams(), key)
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise argparse.ArgumentTypeError(f"{part!r}: {key} is True or False")
        return value
    numbers = value if isinstance(value, tuple) else (value,)
    ok = all(isinstance(v, int | float) and not isinstance(v, bool) and v >= 0
             for v in numbers)
    if isinstance(default, tuple):
        ok = ok and isinstance(value, tuple) and len(value) > 0
        value = tuple(float(v) for v in value) if ok else value
    elif isinstance(default, int):
        ok = ok and isinstance(value, int)
    else:
        ok = ok and not isinstance(value, tuple)
        value = float(value) if ok else value
    if not ok:
        kind = ("a tuple of numbers" if isinstance(default, tuple)
                else "a whole number" if isinstance(default, int) else "a number")
        raise argparse.ArgumentTypeError(f"{part!r}: {key} is {kind}, 0 or more")
    return value


def make_ai(level: str, seed: str, iterations: int | None, defines: tuple[Define, ...]) -> AIPlayer:
    """An AI player of ``level``: one of LEVELS, or a variant named by ``--define``."""
    for name, base, changes in defines:
        if name == level:
            ai = AIPlayer(base, seed=seed, iterations=iterations)
            assert ai.params is not None
            ai.params = dataclasses.replace(ai.params, **dict(changes))
            # The variant's own name seeds its decisions, as a level's name does.
            ai.level = Level(name, ai.params, ai.level.seconds)
            return ai
    return AIPlayer(level, seed=seed, iterations=iterations)


#: One game to play: hero level, opponents' level, preset, seed, players, budget, variants
#: and the hero's seat (None: seat ``seed % players``, the rotation of a plain run).
Task = tuple[str, str, str, int, int, int | None, tuple[Define, ...], int | None]


def play_one(task: Task) -> dict[str, Any]:
    """One game: the hero's share of the win, score margin and decision times."""
    hero_level, opp_level, name, i, players, iterations, defines, seat_of_hero = task
    g = Game.new(preset(name), players, seed=i)
    hero = i % players if seat_of_hero is None else seat_of_hero
    ais = [
        make_ai(hero_level if s == hero else opp_level, f"{i}/{s}", iterations, defines)
        for s in range(players)
    ]
    times: list[float] = []
    moves = hashlib.blake2b(digest_size=16)  # every action of the game, in order
    clock = time.process_time
    while not g.is_over:
        seat = g.to_act[0]
        view = g.view(seat)
        if seat == hero and g.forced_action(seat) is None:
            start = clock()
            action = ais[seat].choose(view)
            times.append(clock() - start)
        else:
            action = ais[seat].choose(view)
        moves.update(f"{seat}:{action};".encode())
        g.apply(seat, action)
    winners = g.winners()
    scores = g.scores()
    others = [v for s, v in enumerate(scores) if s != hero]
    used = {d[0]: {"level": d[1], **dict(d[2])} for d in defines
            if d[0] in (hero_level, opp_level)}
    return {
        "match": (hero_level, opp_level),
        **({"defines": used} if used else {}),
        **({"settings": settings(ais[hero], ais[(hero + 1) % players])}
           if iterations is None else {}),
        **({"iterations": iterations} if iterations is not None else {}),
        "preset": name,
        "seed": i,
        **({"hero_seat": hero} if seat_of_hero is not None else {}),
        "players": players,
        "moves": moves.hexdigest(),
        "win": 1 / len(winners) if hero in winners else 0.0,
        "margin": scores[hero] - sum(others) / len(others),
        "times": times,
        **({"engine": "compiled"} if compiled.is_compiled() else {}),
    }


def replay_task(r: dict[str, Any]) -> Task:
    """The task of :func:`play_one` that played the recorded game ``r`` (a row of ``--out``):
    its match-up, preset, seed, table size, budget and variants."""
    defines = tuple(
        (name, fields["level"], tuple((k, v if not isinstance(v, list) else tuple(v))
                                      for k, v in fields.items() if k != "level"))
        for name, fields in r.get("defines", {}).items()
    )
    hero, opp = r["match"]
    return (hero, opp, r["preset"], r["seed"], r.get("players", 4), r.get("iterations"),
            defines, r.get("hero_seat"))


def replay(paths: list[str], workers: int = 1) -> int:
    """Play every game of ``--out`` files again and compare it with the record: the same
    moves (where recorded), win and margin. Prints each difference and the count; returns the
    number of games that differ (0: the players decided exactly as when recorded)."""
    rows = read_results(paths)
    differ = 0
    with multiprocessing.Pool(workers) as pool:
        again_all = pool.imap(play_one, [replay_task(r) for r in rows])
        for r, again in zip(rows, again_all, strict=True):
            keys = [k for k in ("moves", "win", "margin") if k in r]
            if any(r[k] != again[k] for k in keys):
                differ += 1
                print(f"differs: {r['match']} {r['preset']} seed {r['seed']}: "
                      + ", ".join(f"{k} {r[k]!r} -> {again[k]!r}" for k in keys), flush=True)
    print(f"{len(rows)} games replayed, {differ} differ", flush=True)
    return differ


def parse_rename(text: str) -> tuple[str, str]:
    old, sep, new = text.partition("=")
    if not sep or not old.strip() or not new.strip():
        raise argparse.ArgumentTypeError(f"{text!r}: expected VARIANT=LEVEL")
    return old.strip(), new.strip()


def settings(*ais: AIPlayer) -> dict[str, dict[str, Any]]:
    """What each search player of a game was: its level's name and the fields of its
    :class:`SearchParams` that differ from the defaults. Recorded with every game, so a report
    never pools games of a level whose settings have changed since (``hard`` did)."""
    default = dataclasses.asdict(SearchParams())
    out: dict[str, dict[str, Any]] = {}
    for ai in ais:
        if ai.params is not None:
            fields = dataclasses.asdict(ai.params)
            out[ai.level.name] = {k: v for k, v in fields.items() if v != default[k]}
    return out


def read_results(
    paths: list[str], rename: dict[str, str] | None = None,
) -> list[dict[str, Any]]:
    """The games of ``--out`` files (plain, or gzip-compressed when the name ends in .gz), a
    game found in several counted once (the first file's). ``rename`` counts a variant's
    games under another name (``{"h25": "hard"}``): they pool with that name's games where
    the recorded settings are the same, and stay in a table of their own where they are
    not."""
    rename = rename or {}
    rows: list[dict[str, Any]] = []
    seen = set()
    for path in paths:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                r = json.loads(line)
                r["match"] = tuple(rename.get(m, m) for m in r["match"])
                if rename and "settings" in r:  # a renamed variant's settings say what it was
                    r["settings"] = {rename.get(k, k): v for k, v in r["settings"].items()}
                    defines = {k: v for k, v in r.pop("defines", {}).items() if k not in rename}
                    if defines:
                        r["defines"] = defines
                # A run resumed with --first may repeat a game; older files have no seed.
                # A variant counts as itself: the same name defined otherwise is another.
                key = (r["match"], setup(r), r["preset"], r.get("seed", len(rows)),
                       r.get("hero_seat"))
                if key not in seen:
                    seen.add(key)
                    rows.append(r)
    return rows


def setup(r: dict[str, Any]) -> str:
    """What a game's players were beyond the match's names (variants, budgets, settings),
    and whether it belongs to a duplicate run (its deals played from every seat)."""
    return json.dumps([r.get("defines"), r.get("iterations"), r.get("settings"),
                       "hero_seat" in r], sort_keys=True)


def wilson(p: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_ci(values: list[float]) -> tuple[float, float]:
    n = len(values)
    m = sum(values) / n
    if n < 2:
        return m, float("inf")
    var = sum((v - m) ** 2 for v in values) / (n - 1)
    return m, 1.96 * math.sqrt(var / n)


def pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def timed(rs: list[dict[str, Any]]) -> tuple[list[float], str]:
    """The hero's decision times for a table's time columns, and a note on them: the
    compiled engine's where any game ran on it (``--compiled``: what the bot and the image
    think with, and what the levels' time goals are about), else the plain engine's."""
    fast = [t for r in rs if r.get("engine") == "compiled" for t in r["times"]]
    plain = sum(r.get("engine") != "compiled" for r in rs)
    if fast:
        return fast, ("  (times of the compiled engine" +
                      (f" only; {plain} of the games ran plain)" if plain else ")"))
    return [t for r in rs for t in r["times"]], "  (times of the plain engine)" if rs else ""


def report(results: list[dict[str, Any]]) -> None:
    groups: dict[tuple[tuple[str, str], str], dict[str, list[dict[str, Any]]]] = (
        defaultdict(lambda: defaultdict(list))
    )
    for r in results:
        groups[r["match"], setup(r)][r["preset"]].append(r)
    header = (
        f"{'preset':<11} {'games':>5} {'win':>6} {'95% CI':>15} {'margin':>14} "
        f"{'p50 s':>7} {'p99 s':>7} {'max s':>7}"
    )
    runs: list[tuple[str, str, list[dict[str, Any]]]] = []
    for (match, _), by_preset in groups.items():
        print(f"\n{match[0]} (one seat) against {match[1]} (the others)")
        first = next(iter(by_preset.values()))[0]
        for name, fields in {**first.get("defines", {}), **first.get("settings", {})}.items():
            told = ", ".join(f"{k}={v!r}" for k, v in fields.items()) or "the defaults"
            print(f"  {name}: {told}")
        rows = [(name, by_preset[name]) for name in PRESETS if name in by_preset]
        everything = [r for _, rs in rows for r in rs]
        if "hero_seat" in first:
            duplicate_report(rows, everything)
            runs.append((match[0], match[1], everything))
            continue
        print(header)
        for name, rs in [*rows, ("pooled", everything)]:
            n = len(rs)
            p = sum(r["win"] for r in rs) / n
            lo, hi = wilson(p, n)
            m, half = mean_ci([r["margin"] for r in rs])
            times, note = timed(rs)
            print(
                f"{name:<11} {n:>5} {p:>6.3f} [{lo:.3f}, {hi:.3f}] {m:>+7.1f} ±{half:>4.1f} "
                f"{pct(times, 0.5):>7.3f} {pct(times, 0.99):>7.3f} {max(times or [0]):>7.3f}"
                f"{note if name == 'pooled' else ''}"
            )
    paired_report(runs)
    sys.stdout.flush()


def deals(rs: list[dict[str, Any]]) -> tuple[list[tuple[float, float]], int]:
    """The complete deals of a duplicate run's games (every seat played by the hero once):
    each deal's mean win share and mean margin over its rotations, and how many games
    belong to deals not (yet) complete, which count for nothing."""
    complete, partial = deals_by_key(rs)
    return list(complete.values()), partial


def deals_by_key(
    rs: list[dict[str, Any]],
) -> tuple[dict[tuple[str, int], tuple[float, float]], int]:
    """:func:`deals` by (preset, seed)."""
    by_deal: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    for r in rs:
        by_deal[r["preset"], r["seed"]].append(r)
    out, partial = {}, 0
    for key, games in by_deal.items():
        if len({g["hero_seat"] for g in games}) < games[0].get("players", 4):
            partial += len(games)
            continue
        out[key] = (sum(g["win"] for g in games) / len(games),
                    sum(g["margin"] for g in games) / len(games))
    return out, partial


def paired_report(runs: list[tuple[str, str, list[dict[str, Any]]]]) -> None:
    """Duplicate runs of two heroes against the same opponents, compared deal by deal on the
    deals both played from every seat: the mean difference of their win shares and of their
    margins, with normal 95% intervals over the deals (the same cards, so most of the luck
    cancels from the difference too). ``runs``: (hero, opponents, games) per run."""
    for i, (hero_a, opp_a, games_a) in enumerate(runs):
        for hero_b, opp_b, games_b in runs[i + 1:]:
            if opp_a != opp_b:
                continue
            a, _ = deals_by_key(games_a)
            b, _ = deals_by_key(games_b)
            common = sorted(a.keys() & b.keys())
            if not common:
                continue
            print(f"\n{hero_a} minus {hero_b}, each (one seat) against {opp_a}, "
                  "on the deals both played")
            print(f"{'preset':<11} {'deals':>5} {'win':>7} {'95% CI':>17} {'margin':>14}")
            for name in [*(p for p in PRESETS if any(k[0] == p for k in common)), "pooled"]:
                keys = [k for k in common if name in ("pooled", k[0])]
                w, w_half = mean_ci([a[k][0] - b[k][0] for k in keys])
                m, m_half = mean_ci([a[k][1] - b[k][1] for k in keys])
                print(f"{name:<11} {len(keys):>5} {w:>+7.3f} [{w - w_half:+.3f}, "
                      f"{w + w_half:+.3f}] {m:>+7.1f} ±{m_half:>4.1f}")


def duplicate_report(rows: list[tuple[str, list[dict[str, Any]]]],
                     everything: list[dict[str, Any]]) -> None:
    """The table of a duplicate run: per preset, the deals played from every seat, the hero's
    mean win share over them and its mean margin, each with a normal 95% interval over the
    deals (the luck of the cards cancels within a deal, so the deals are what vary)."""
    print(f"{'preset':<11} {'deals':>5} {'games':>5} {'win':>6} {'95% CI':>15} "
          f"{'margin':>14} {'p50 s':>7} {'p99 s':>7} {'max s':>7}")
    for name, rs in [*rows, ("pooled", everything)]:
        complete, partial = deals(rs)
        times, told = timed(rs)
        if not complete:
            print(f"{name:<11} no complete deal yet ({partial} games)")
            continue
        p, p_half = mean_ci([w for w, _ in complete])
        m, half = mean_ci([margin for _, margin in complete])
        note = f"  (+{partial} games of deals not complete)" if partial else ""
        if name == "pooled":
            note += told
        print(
            f"{name:<11} {len(complete):>5} {len(rs) - partial:>5} {p:>6.3f} "
            f"[{max(0.0, p - p_half):.3f}, {min(1.0, p + p_half):.3f}] {m:>+7.1f} ±{half:>4.1f} "
            f"{pct(times, 0.5):>7.3f} {pct(times, 0.99):>7.3f} {max(times or [0]):>7.3f}{note}"
        )


def _allocation(
    g: Game, seat: int, policy: Callable[[Game, int], Action] = default_action
) -> frozenset[str]:
    """Where ``policy`` would put every card of the trick ``seat`` is to assign now."""
    h = g.copy()
    out = set()
    while h.phase is Phase.ASSIGN and h.to_act == [seat] and h.pending:
        action = policy(h, seat)
        out.add(str(action))
        h.apply(seat, action)
    return frozenset(out)


def agreement(
    level: str, games: int, presets: list[str], first: int, players: int,
    iterations: int | None, defines: tuple[Define, ...],
) -> None:
    """Print the share of a level's decisions (not forced) that are the heuristic's move,
    and of the tricks it assigned with a choice, those it placed as the heuristic would
    (the order in which a trick's cards are placed makes no difference); and the same for
    ``refined_action``, the playouts' policy of ``hard``."""
    same: dict[str, int] = defaultdict(int)
    refined: dict[str, int] = defaultdict(int)
    total: dict[str, int] = defaultdict(int)
    tricks = tricks_same = tricks_refined = 0
    for name in presets:
        for i in range(first, first + games):
            g = Game.new(preset(name), players, seed=i)
            ais = [make_ai(level, f"{i}/{s}", iterations, defines) for s in range(players)]
            # A trick being assigned: the heuristic's placement, refined_action's, the
            # level's so far, and whether it had a choice.
            trick: tuple[frozenset[str], frozenset[str], set[str], list[bool]] | None = None
            while not g.is_over:
                seat = g.to_act[0]
                if trick is None and g.phase is Phase.ASSIGN and len(g.pending) == len(g.trick):
                    trick = (_allocation(g, seat), _allocation(g, seat, refined_action),
                             set(), [False])
                action = ais[seat].choose(g.view(seat))
                if g.forced_action(seat) is None:
                    phase = str(g.phase)
                    total[phase] += 1
                    same[phase] += action == default_action(g, seat)
                    refined[phase] += action == refined_action(g, seat)
                    if trick is not None:
                        trick[3][0] = True
                if trick is not None:
                    trick[2].add(str(action))
                g.apply(seat, action)
                if trick is not None and (g.phase is not Phase.ASSIGN or not g.pending
                                          or len(g.pending) == len(g.trick)):
                    if trick[3][0]:
                        tricks += 1
                        tricks_same += trick[0] == trick[2]
                        tricks_refined += trick[1] == trick[2]
                    trick = None
    print(f"{level} in every seat, {games} games a preset: its move is the heuristic's in")
    if not total:
        print("  no decision that was not forced")
        return
    for phase in [*sorted(total), "all"]:
        n = sum(total.values()) if phase == "all" else total[phase]
        k = sum(same.values()) if phase == "all" else same[phase]
        r = (sum(refined.values()) if phase == "all" else refined[phase]) / n
        lo, hi = wilson(k / n, n)
        print(f"  {phase:<7} {k:>6} of {n:>6} decisions: {k / n:.2f} [{lo:.2f}, {hi:.2f}]; "
              f"refined_action's: {r:.2f}")
    if tricks:
        lo, hi = wilson(tricks_same / tricks, tricks)
        print(f"  and it placed {tricks_same} of {tricks} tricks it assigned with a choice as the "
              f"heuristic would: {tricks_same / tricks:.2f} [{lo:.2f}, {hi:.2f}]; as "
              f"refined_action would: {tricks_refined / tricks:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--table", action="store_true", help="every match-up of docs/ai.md")
    parser.add_argument("--hero", default="strong")
    parser.add_argument("--opponents", default="normal")
    parser.add_argument("--games", type=int, default=100, help="games per preset and match-up")
    parser.add_argument("--presets", nargs="*", default=list(PRESETS))
    parser.add_argument(
        "--hard-games", type=int, default=None,
        help="games per preset when the level hard itself is the hero"
    )
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--iterations", type=int, default=None)
    parser.add_argument("--first", type=int, default=0, help="seed of the first game")
    parser.add_argument(
        "--duplicate", action="store_true",
        help="duplicate deals: every deal (seed) is played once with the hero in each seat "
        "against the same opponents; --games counts deals",
    )
    parser.add_argument("--out", default=None, help="append each game to this JSON-lines file")
    parser.add_argument(
        "--define", type=parse_define, action="append", default=[], metavar="NAME=LEVEL;f=v",
        help="a variant of a search level to use as --hero or --opponents (see above)",
    )
    parser.add_argument(
        "--agreement", default=None, metavar="LEVEL",
        help="how often LEVEL (in every seat) plays the heuristic's move; uses --games, "
        "--presets, --first, --players, --iterations and --define only",
    )
    parser.add_argument(
        "--rename", action="append", default=[], type=parse_rename, metavar="VARIANT=LEVEL",
        help="with --report: count a variant's games as the level's (pooled where the "
        "recorded settings are the same)",
    )
    parser.add_argument(
        "--replay", nargs="+", default=None, metavar="FILE",
        help="play the games of --out files again and check the same moves, win and margin "
        "(exit status 1 if any differs); uses --workers only",
    )
    parser.add_argument(
        "--compiled", action="store_true",
        help="play on the engine compiled with mypyc (benchmarks/compiled.py): the same "
        "decisions, about 2.5 times as fast; the records say so and reports keep its times apart",
    )
    parser.add_argument(
        "--report", nargs="+", default=None,
        help="only print the table of such files (a game in several counts once)",
    )
    args = parser.parse_args()
    if args.replay:
        sys.exit(1 if replay(args.replay, args.workers) else 0)
    if args.report:
        report(read_results(args.report, dict(args.rename)))
        return
    matches = TABLE if args.table else [(args.hero, args.opponents)]
    defines = tuple(args.define)
    names = [d[0] for d in defines]
    for name in {n for n in names if names.count(n) > 1}:
        parser.error(f"--define names {name!r} more than once")
    known = set(LEVELS) | set(names)
    if args.agreement:
        if args.agreement not in known:
            parser.error(f"unknown level {args.agreement!r}")
        agreement(args.agreement, args.games, args.presets, args.first, args.players,
                  args.iterations, defines)
        return
    for level in {lv for m in matches for lv in m} - known:
        parser.error(f"unknown level {level!r}: one of {', '.join(sorted(known))}")
    keyed = []
    for hero, opp in matches:
        games = args.hard_games if hero == "hard" and args.hard_games else args.games
        for i in range(args.first, args.first + games):
            for name in args.presets:
                # Match-ups advance together, each at its own pace: a run stopped early has
                # about the same share of every one.
                key = (i - args.first + 0.5) / games
                seats: list[int | None] = (list(range(args.players)) if args.duplicate
                                           else [None])
                keyed += [(key, (hero, opp, name, i, args.players, args.iterations, defines,
                                 seat)) for seat in seats]
    keyed.sort(key=lambda kt: kt[0])
    tasks = [t for _, t in keyed]
    start = time.perf_counter()
    print(f"{len(tasks)} games on {args.workers} worker(s), {args.players} players", flush=True)
    out = open(args.out, "a", encoding="utf-8") if args.out else None  # noqa: SIM115
    results = []
    with multiprocessing.Pool(args.workers) as pool:
        for r in pool.imap_unordered(play_one, tasks, chunksize=1):
            results.append(r)
            if out is not None:
                out.write(json.dumps(r) + "\n")
                out.flush()
    if out is not None:
        out.close()
    report(results)
    print(f"\n{time.perf_counter() - start:.0f} s wall", flush=True)


if __name__ == "__main__":
    main()
