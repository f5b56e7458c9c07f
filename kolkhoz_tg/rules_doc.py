"""The players' rules (docs/RULES.md, docs/RULES.ru.md) as plain text, for every front end:
the bot's /rules in private (a chapter at a time) and the terminal's ``rules`` command."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

DOCS_DIR = Path(__file__).resolve().parent.parent / "docs"
_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_EMPHASIS = re.compile(r"(\*\*|\*|`)")
_ITEM = re.compile(r"\s*([-*•]|\d+\.|▪️)\s")
#: A chapter's heading: the title (``#``) or a section (``##``); a ``###`` stays inside.
_CHAPTER = re.compile(r"#{1,2}\s")


@dataclass(frozen=True, slots=True)
class Chapter:
    """A chapter of the rules: its title, and its plain text (the heading first, marked
    with ▪️, as in :func:`plain_rules`)."""

    title: str
    text: str


def rules_path(locale: str) -> Path:
    """The players' rules file in ``locale`` (English for any language but Russian)."""
    return DOCS_DIR / ("RULES.ru.md" if locale == "ru" else "RULES.md")


def _markdown(locale: str) -> str | None:
    try:
        return rules_path(locale).read_text(encoding="utf-8")
    except OSError:
        return None


def plain_rules(locale: str) -> str | None:
    """The players' rules in ``locale`` as plain text: headings marked with ▪️, table rows
    joined with ·, no Markdown emphasis or links, soft-wrapped lines joined into paragraphs.
    None where the docs are not installed."""
    markdown = _markdown(locale)
    return None if markdown is None else _plain(markdown)


def rules_chapters(locale: str) -> list[Chapter] | None:
    """The players' rules in ``locale`` cut at the title and each ``##`` section (the
    first chapter is the introduction under the title), each as plain text like
    :func:`plain_rules`; None where the docs are not installed."""
    markdown = _markdown(locale)
    if markdown is None:
        return None
    chunks: list[list[str]] = []
    for line in markdown.splitlines():
        if _CHAPTER.match(line) or not chunks:
            chunks.append([])
        chunks[-1].append(line)
    chapters = []
    for chunk in chunks:
        heading = chunk[0].lstrip("#").strip()
        text = _plain("\n".join(chunk))
        if text:
            chapters.append(Chapter(_EMPHASIS.sub("", _LINK.sub(r"\1", heading)), text))
    return chapters


def pages(text: str, limit: int) -> list[str]:
    """``text`` cut into pages of at most ``limit`` characters: before a ▪️ heading where it
    can, else between paragraphs (a paragraph longer than a page is cut where it ends)."""
    out: list[str] = []
    current = ""
    for block in re.split(r"\n\n(?=▪️)", text):
        if current and len(current) + len(block) + 2 > limit:
            out.append(current)
            current = ""
        for paragraph in block.split("\n\n"):
            while len(paragraph) > limit:
                if current:
                    out.append(current)
                    current = ""
                out.append(paragraph[:limit])
                paragraph = paragraph[limit:]
            if current and len(current) + len(paragraph) + 2 > limit:
                out.append(current)
                current = ""
            current = f"{current}\n\n{paragraph}" if current else paragraph
    if current:
        out.append(current)
    return out


def _plain(markdown: str) -> str:
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
