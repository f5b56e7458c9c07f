"""Rich messages (Bot API 10.1-10.3) in the fake: ``sendRichMessage`` and ``editMessageText``
with ``rich_message``.

The fake reads the ``html`` form of ``InputRichMessage`` (the one this project sends) with
the official limits: the tags of the rich HTML style only, at most 32,768 characters of text,
500 blocks and 20 table columns, tags balanced. It keeps the message's text as a reader
would take it in (a line per block, table cells joined by " | ", the contents of a closed
``<details>`` included: it is one tap away), the HTML itself in ``params``, and answers with
a ``rich_message`` of paragraph blocks only: a simplification, since no test reads the
incoming block tree. ``markdown`` and ``blocks`` are refused as not implemented.
"""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any

from .errors import bad_request

MAX_RICH_TEXT = 32768
MAX_BLOCKS = 500
MAX_COLUMNS = 20
INLINE = {"b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "code", "mark", "sub",
          "sup", "tg-spoiler", "a", "tg-reference", "tg-emoji", "tg-time", "tg-math", "cite",
          "summary", "caption", "th", "td", "input", "tg-button"}
BLOCKS = {"h1", "h2", "h3", "h4", "h5", "h6", "p", "pre", "footer", "hr", "ul", "ol", "li",
          "blockquote", "aside", "table", "tr", "details", "tg-math-block", "figure",
          "figcaption", "tg-button-row", "img", "video", "audio", "tg-document", "tg-map",
          "tg-collage", "tg-slideshow"}
VOID = {"hr", "input", "img", "tg-map"}


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.line: list[str] = []
        self.open: list[str] = []
        self.blocks = 0
        self.columns = 0
        self.error: str | None = None

    def _break(self) -> None:
        text = "".join(self.line).strip()
        if text:
            self.lines.append(text)
        self.line = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in INLINE and tag not in BLOCKS:
            self.error = self.error or f'unsupported start tag "{tag}"'
            return
        if tag in BLOCKS:
            self.blocks += 1
            self._break()
        if tag == "tr":
            self.columns = 0
        if tag in ("td", "th"):
            self.columns += 1
            if self.columns > MAX_COLUMNS:
                self.error = self.error or "too many table columns"
            if self.columns > 1:
                self.line.append(" | ")
        if tag not in VOID:
            self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        if not self.open or self.open[-1] != tag:
            self.error = self.error or f'unmatched end tag "{tag}"'
            return
        self.open.pop()
        if tag in BLOCKS or tag in ("summary", "caption"):
            self._break()

    def handle_data(self, data: str) -> None:
        self.line.append(data)


def read_html(html: str) -> tuple[str, int]:
    """The text a reader sees in ``html`` (a line per block) and its number of blocks.
    Raises a 400 as Telegram would for what it does not accept."""
    reader = _Reader()
    reader.feed(html)
    reader.close()
    reader._break()
    if reader.error is None and reader.open:
        reader.error = f'can\'t find end tag corresponding to start tag "{reader.open[-1]}"'
    if reader.error is not None:
        raise bad_request(f"can't parse rich message: {reader.error}")
    text = "\n".join(reader.lines)
    if not text:
        raise bad_request("rich message is empty")
    if len(text) > MAX_RICH_TEXT:
        raise bad_request("rich message is too long")
    if reader.blocks > MAX_BLOCKS:
        raise bad_request("too many blocks in the rich message")
    return text, reader.blocks


def rich_message(value: Any) -> tuple[str, dict[str, Any]]:
    """An ``InputRichMessage`` read: the reader's text and the ``rich_message`` the answer
    carries."""
    if not isinstance(value, dict):
        raise bad_request("can't parse InputRichMessage JSON object")
    forms = [k for k in ("html", "markdown", "blocks") if k in value]
    if len(forms) != 1:
        raise bad_request("exactly one of html, markdown or blocks must be specified")
    if forms[0] != "html":
        raise bad_request(f"the fake Telegram reads only html rich messages, not {forms[0]}")
    text, _blocks = read_html(str(value["html"]))
    blocks = [{"type": "paragraph", "text": line} for line in text.split("\n")]
    return text, {"blocks": blocks}
