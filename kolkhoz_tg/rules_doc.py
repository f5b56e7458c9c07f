"""The players' rules (docs/RULES.md, docs/RULES.ru.md) as plain text, for every front end:
the bot's /rules in private and the terminal's ``rules`` command."""

from __future__ import annotations

import re
from pathlib import Path

DOCS_DIR = Path(__file__).resolve().parent.parent / "docs"
_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_EMPHASIS = re.compile(r"(\*\*|\*|`)")
_ITEM = re.compile(r"\s*([-*•]|\d+\.|▪️)\s")


def rules_path(locale: str) -> Path:
    """The players' rules file in ``locale`` (English for any language but Russian)."""
    return DOCS_DIR / ("RULES.ru.md" if locale == "ru" else "RULES.md")


def plain_rules(locale: str) -> str | None:
    """The players' rules in ``locale`` as plain text: headings marked with ▪️, table rows
    joined with ·, no Markdown emphasis or links, soft-wrapped lines joined into paragraphs.
    None where the docs are not installed."""
    try:
        markdown = rules_path(locale).read_text(encoding="utf-8")
    except OSError:
        return None
    lines: list[str] = []
    for raw in markdown.splitlines():
        line = raw.rstrip()
        if re.fullmatch(r"\|?[\s:|-]+\|?", line) and "-" in line:
            continue  # a table's rule line
        if "RULES" in line and ".md" in line:
            continue  # the link to the other language's file
        if line.startswith("#"):
            line = "▪️ " + line.lstrip("#").strip()
        elif line.startswith("|"):
            line = " · ".join(c.strip() for c in line.strip("|").split("|"))
        line = _EMPHASIS.sub("", _LINK.sub(r"\1", line))
        if lines and lines[-1] and line and not _ITEM.match(line) and " · " not in line:
            lines[-1] += " " + line.strip()  # undo the source's soft line wrapping
        else:
            lines.append(line)
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
