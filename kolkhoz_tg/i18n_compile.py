"""Compile the Babel catalogs in ``locales/`` to ``.mo`` files (run at set-up and before tests)."""

from __future__ import annotations

from pathlib import Path

LOCALES_DIR = Path(__file__).resolve().parent.parent / "locales"


def compile_catalogs(locales_dir: Path = LOCALES_DIR) -> list[Path]:
    """Compile every ``*.po`` below ``locales_dir`` whose ``.mo`` is missing or older.

    Returns the paths of the ``.mo`` files written.
    """
    written: list[Path] = []
    for po_path in sorted(locales_dir.glob("*/LC_MESSAGES/*.po")):
        mo_path = po_path.with_suffix(".mo")
        if mo_path.exists() and mo_path.stat().st_mtime >= po_path.stat().st_mtime:
            continue
        # Babel's catalog code only when a catalog is (re)compiled: not at every start.
        from babel.messages.mofile import write_mo
        from babel.messages.pofile import read_po

        with po_path.open("rb") as f:
            catalog = read_po(f, locale=po_path.parent.parent.name)
        with mo_path.open("wb") as f:
            write_mo(f, catalog, use_fuzzy=False)
        written.append(mo_path)
    return written


def main() -> None:
    compile_catalogs()


if __name__ == "__main__":
    main()
