"""The records the service hands the screens stay typed (issue #30), as ``test_layering.py``
keeps the layers apart: no ``dict[str, Any]`` in the records and payloads, and no
string-key subscript (``x["..."]``, ``x.get("...")``) in the presentation code or the
delivery plan, which read views, events and payloads by attribute. JSON exists only at the
database and outbox edge (:mod:`kolkhoz_tg.service.jsontypes` names it for the codecs)."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAYLOADS = ROOT / "kolkhoz_tg" / "service" / "payloads.py"
RECORDS = ROOT / "kolkhoz_tg" / "service" / "records.py"
SCREENS = [*sorted((ROOT / "kolkhoz_tg" / "present").glob("*.py")),
           ROOT / "kolkhoz_tg" / "bot" / "plan.py"]

#: String-key subscripts that are no record: (file, the subscripted expression) -> why.
NOT_RECORDS: dict[tuple[str, str], str] = {
    ("hints.py", "advice"): "the AI player's explanation (engine.ai's explain), a free-form "
                            "dict the hint only words",
    ("words.py", "s"): "seat_name of a plain seat dict (tests' and old callers' games)",
    ("words.py", "game"): "seat_name of a plain game dict (tests' and old callers' games)",
    ("board.py", "game"): "winners_line / the final board of a plain dict: final_table builds "
                          "{'result': ...} from its typed rows",
    ("board.py", "result"): "the stored result's scores and winners (GameInfo.result; P2)",
}

#: Views and game headers still read as dicts: helper P2 types them (SeatView.view: View,
#: GameInfo.rules / result), and the lead empties this at the merge. Counted per file and
#: expression so that no new one creeps in meanwhile.
PENDING_P2: Counter[tuple[str, str]] = Counter({
    ("plan.py", "seat.view"): 1,
    ("board.py", "job"): 9,
    ("board.py", "p"): 5,
    ("board.py", "trick"): 4,
    ("board.py", "view"): 40,
    ("board.py", "view['rules']"): 1,
    ("errors.py", "view"): 2,
    ("hand.py", "game.result"): 1,
    ("hand.py", "me"): 5,
    ("hand.py", "result"): 2,
    ("hand.py", "view"): 30,
    ("hand.py", "view['players'][sv.seat]"): 2,
    ("lobby.py", "game.rules"): 1,
    ("manage.py", "game.rules"): 1,
    ("stats.py", "game.result"): 1,
    ("stats.py", "game.result or {}"): 1,
    ("stats.py", "game.rules"): 1,
    ("stats.py", "view"): 1,
})

#: Names that hold a notification, its payload, an event or a move: never subscripted.
RECORD_NAMES = frozenset({"note", "notes", "payload", "data", "e", "event", "events", "move",
                          "moves", "board", "summary", "over", "timed_out"})

#: Fields of records.py still typed as JSON: helper P2 types them; the lead empties this.
RECORD_FIELDS_P2 = frozenset({"GameInfo.rules", "GameInfo.meta", "GameInfo.result",
                              "SeatView.view", "BoardView.view"})


def _string_keys(path: Path) -> list[tuple[str, str, int]]:
    """(subscripted expression, key, line) of every ``x["key"]`` and ``x.get("key")``."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant)
                and isinstance(node.slice.value, str)):
            out.append((ast.unparse(node.value), node.slice.value, node.lineno))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr == "get" and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            out.append((ast.unparse(node.func.value), node.args[0].value, node.lineno))
    return out


def test_no_event_payload_or_notification_is_read_by_string_key() -> None:
    bad = []
    for path in SCREENS:
        for base, key, line in _string_keys(path):
            root = base.split(".")[0].split("[")[0]
            last = base.split(".")[-1].split("[")[0]
            if {root, last} & RECORD_NAMES or base.endswith((".payload", ".data")):
                bad.append(f"{path.name}:{line}: {base}[{key!r}]")
    assert not bad, "read these records by attribute:\n" + "\n".join(bad)


def test_the_screens_read_records_by_attribute() -> None:
    seen: Counter[tuple[str, str]] = Counter()
    for path in SCREENS:
        for base, _key, _line in _string_keys(path):
            seen[(path.name, base)] += 1
    unexplained = {k: n for k, n in seen.items() if k not in NOT_RECORDS
                   and n > PENDING_P2.get(k, 0)}
    assert not unexplained, (
        "string-key subscripts of a view, event or payload (read attributes instead, or "
        f"allow a genuinely free-form dict in NOT_RECORDS with its reason): {unexplained}")
    stale = [k for k in NOT_RECORDS if k not in seen]
    assert not stale, f"NOT_RECORDS entries no longer needed: {stale}"


def _fields(path: Path) -> dict[str, str]:
    """``Class.field`` -> its annotation, for every class-level annotated name."""
    out = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    out[f"{node.name}.{item.target.id}"] = ast.unparse(item.annotation)
    return out


def test_payloads_hold_no_untyped_json() -> None:
    text = PAYLOADS.read_text(encoding="utf-8")
    assert "dict[str, Any]" not in text
    assert not [f for f, t in _fields(PAYLOADS).items() if "Any" in t or "JsonObject" in t]


def test_records_hold_no_untyped_json() -> None:
    untyped = {f for f, t in _fields(RECORDS).items()
               if "dict[str, Any]" in t or t == "Any"} - RECORD_FIELDS_P2
    assert not untyped, f"type these record fields: {sorted(untyped)}"
