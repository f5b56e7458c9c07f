"""The typed contract holds (issue #30), like ``test_layering.py`` keeps the layers: the
records the service returns carry typed fields (JSON only in their codecs, at the database
and outbox edge), and the presentation code reads views, events and payloads by attribute,
never by a string key.

Each check has a ledger of what is still allowed, each entry with its reason. An entry that
no longer matches anything fails too, so the ledgers only shrink.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Record files whose dataclass fields must not be ``dict[str, Any]``.
RECORDS = ("kolkhoz_tg/service/records.py", "kolkhoz_tg/service/payloads.py")

#: Fields still ``dict[str, Any]``: (file, "Class.field") -> why.
FIELD_LEDGER: dict[tuple[str, str], str] = {
    ("kolkhoz_tg/service/records.py", "GameInfo.meta"):
        "the front end's own keys on a game (its message ids, the practice flag): stored "
        "JSON the service hands back as it was given (GameService.set_meta), not game data",
}

#: Presentation code that must not read a record by string key.
PRESENTATION = (*sorted(str(p.relative_to(ROOT)) for folder in ("present", "picture")
                        for p in (ROOT / "kolkhoz_tg" / folder).glob("*.py")),
                "kolkhoz_tg/bot/plan.py")

#: Functions still reading string keys: (file, function) -> why.
KEY_LEDGER: dict[tuple[str, str], str] = {}


def _is_dict_str_any(node: ast.expr | None) -> bool:
    """An untyped JSON field: ``dict[str, Any]``, or the stored-JSON alias ``JsonObject``
    (which only a codec's argument or result may be)."""
    return node is not None and ("dict[str, Any]" in ast.unparse(node)
                                 or "JsonObject" in ast.unparse(node))


def _dict_fields(path: str) -> set[str]:
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    found = set()
    for cls in tree.body:
        if isinstance(cls, ast.ClassDef):
            for item in cls.body:
                if (isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
                        and _is_dict_str_any(item.annotation)):
                    found.add(f"{cls.name}.{item.target.id}")
    return found


def _string_key(node: ast.AST) -> bool:
    """``x["key"]`` or ``x.get("key", …)``."""
    if isinstance(node, ast.Subscript):
        return isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get" and bool(node.args)
            and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str))


def _keyed_functions(path: str) -> dict[str, int]:
    """Function name -> how many string-key reads it makes (a nested function's reads
    count for it and for the functions around it)."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    out: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            hits = sum(_string_key(n) for n in ast.walk(node))
            if hits:
                out[node.name] = hits
    return out


def test_records_carry_no_json_dicts() -> None:
    found = {(path, field) for path in RECORDS if (ROOT / path).exists()
             for field in _dict_fields(path)}
    assert found - FIELD_LEDGER.keys() == set(), "a record field is dict[str, Any]"
    stale = {k for k in FIELD_LEDGER if (ROOT / k[0]).exists()} - found
    assert not stale, f"typed now: drop from FIELD_LEDGER {sorted(stale)}"


def test_presentation_reads_no_record_by_string_key() -> None:
    found = {(path, name) for path in PRESENTATION for name in _keyed_functions(path)}
    new = found - KEY_LEDGER.keys()
    assert not new, f"string-key reads of a view, event or payload: {sorted(new)}"
    stale = KEY_LEDGER.keys() - found
    assert not stale, f"no string keys any more: drop from KEY_LEDGER {sorted(stale)}"


def test_a_stored_result_decodes_and_encodes_back_identically() -> None:
    """``games.result`` as every version of the service stored it: scores and winners, then
    ``early``, ``plots`` and ``last_jobs``."""
    from kolkhoz_tg.service.records import GameResult

    shapes = [
        {"scores": [10, 20, 5], "winners": [1]},
        {"scores": [10, 20, 20], "winners": [1, 2], "early": False},
        {"scores": [3, 4, 4, 1], "winners": [1, 2], "early": True,
         "plots": [["10H", "QS"], [], ["AH"], ["7C", "8D"]]},
        {"scores": [3, 4], "winners": [1], "early": False, "plots": [["10H"], ["QS"]],
         "last_jobs": {"10H": "S", "QS": "H"}},
    ]
    for stored in shapes:
        result = GameResult.from_json(stored)
        assert result.to_json() == stored
        assert GameResult.from_json(result.to_json()) == result
