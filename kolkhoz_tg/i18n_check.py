"""Check the Babel catalogs: every message of the template translated, nothing fuzzy, ru and en.

Exits non-zero with a list of problems; CI runs it before the tests.
"""

from __future__ import annotations

import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

from kolkhoz_tg.i18n_compile import LOCALES_DIR

REQUIRED_LOCALES = ("en", "ru")
DOMAIN = "messages"


def _read(path: Path, locale: str | None = None) -> Catalog:
    with path.open("rb") as f:
        return read_po(f, locale=locale)


def check_catalogs(locales_dir: Path = LOCALES_DIR) -> list[str]:
    """Return a list of human-readable problems (empty when the catalogs are complete)."""
    problems: list[str] = []
    pot_path = locales_dir / f"{DOMAIN}.pot"
    if not pot_path.exists():
        return [f"missing template {pot_path}"]
    template = _read(pot_path)
    wanted = {m.id for m in template if m.id}
    for locale in REQUIRED_LOCALES:
        po_path = locales_dir / locale / "LC_MESSAGES" / f"{DOMAIN}.po"
        if not po_path.exists():
            problems.append(f"{locale}: missing {po_path}")
            continue
        catalog = _read(po_path, locale)
        have = {m.id: m for m in catalog if m.id}
        for msgid in sorted(wanted, key=str):
            message = have.get(msgid)
            label = msgid if isinstance(msgid, str) else msgid[0]
            if message is None:
                problems.append(f"{locale}: not in catalog: {label!r}")
                continue
            if message.fuzzy:
                problems.append(f"{locale}: fuzzy: {label!r}")
            strings = message.string if isinstance(message.string, tuple) else (message.string,)
            if not all(strings):
                problems.append(f"{locale}: untranslated: {label!r}")
            if isinstance(msgid, tuple) and len(strings) != catalog.num_plurals:
                problems.append(f"{locale}: wrong number of plural forms: {label!r}")
        for msgid in have:
            if msgid not in wanted:
                label = msgid if isinstance(msgid, str) else msgid[0]
                problems.append(f"{locale}: obsolete (not in template): {label!r}")
    return problems


def main() -> None:
    problems = check_catalogs()
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        sys.exit(1)
    print("catalogs complete: " + ", ".join(REQUIRED_LOCALES))


if __name__ == "__main__":
    main()
