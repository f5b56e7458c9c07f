"""The Babel catalogs: the template matches the code, and every translation fits its message
(same {placeholders}, Russian with its three plural forms)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parent.parent
LOCALES = ROOT / "locales"
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def _ids(catalog_path: Path, locale: str | None = None) -> set[str | tuple[str, ...]]:
    with catalog_path.open("rb") as f:
        return {m.id for m in read_po(f, locale=locale) if m.id}


def test_template_matches_the_code() -> None:
    """Every message the code asks for is in messages.pot, and nothing else (regenerate with
    the command in the template's first line)."""
    keywords = {**DEFAULT_KEYWORDS, "_": None, "N_": None}
    found: set[str | tuple[str, ...]] = set()
    for _file, _line, message, _comments, _context in extract_from_dir(
        str(ROOT / "kolkhoz_tg"), method_map=[("**.py", "python")], keywords=keywords,
    ):
        found.add(message if isinstance(message, str) else tuple(message))
    template = _ids(LOCALES / "messages.pot")
    assert not found - template, f"not in the template: {sorted(map(str, found - template))}"
    assert not template - found, f"no longer used: {sorted(map(str, template - found))}"


@pytest.mark.parametrize("locale", ["en", "ru"])
def test_translations_keep_their_placeholders(locale: str) -> None:
    path = LOCALES / locale / "LC_MESSAGES" / "messages.po"
    with path.open("rb") as f:
        catalog = read_po(f, locale=locale)
    if locale == "ru":
        assert catalog.num_plurals == 3
    for message in catalog:
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        wanted = {p for i in ids for p in PLACEHOLDER.findall(i)}
        for text in strings:
            used = set(PLACEHOLDER.findall(text))
            assert used <= wanted, f"{locale}: {ids[0]!r} → {text!r} uses {used - wanted}"
            if not isinstance(message.id, tuple):
                assert used == wanted, f"{locale}: {ids[0]!r} → {text!r} drops {wanted - used}"
