"""Entity parsing as Telegram does it: parse_mode text -> plain text + entities.

Telegram validates formatted text strictly and rejects it with
``Bad Request: can't parse entities: ...``; lengths (the 4096 limit) are checked on the
text *after* parsing. Entity offsets and lengths are in UTF-16 code units.

Supported: HTML (the tags of the Bot API), MarkdownV2 and legacy Markdown (the common
subset: bold, italic, underline, strikethrough, spoiler, code, pre, links).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .errors import ApiError, bad_request


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


@dataclass
class _Open:
    tag: str
    start: int  # UTF-16 offset in the output text
    entity: dict[str, Any] = field(default_factory=dict)


_HTML_TAGS: dict[str, str] = {
    "b": "bold",
    "strong": "bold",
    "i": "italic",
    "em": "italic",
    "u": "underline",
    "ins": "underline",
    "s": "strikethrough",
    "strike": "strikethrough",
    "del": "strikethrough",
    "tg-spoiler": "spoiler",
    "span": "spoiler",
    "a": "text_link",
    "code": "code",
    "pre": "pre",
    "blockquote": "blockquote",
    "tg-emoji": "custom_emoji",
}
_NAMED_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
_ATTR_RE = re.compile(
    r"""\s*([a-zA-Z_:-][\w:.-]*)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?"""
)


def _parse_error(text: str) -> ApiError:
    return bad_request(f"can't parse entities: {text}")


class _Builder:
    def __init__(self) -> None:
        self.parts: list[str] = []
        self.pos = 0  # UTF-16 length so far
        self.entities: list[dict[str, Any]] = []

    def add(self, text: str) -> None:
        self.parts.append(text)
        self.pos += utf16_len(text)

    def close(self, opened: _Open) -> None:
        length = self.pos - opened.start
        if length > 0:
            entity = {"type": _HTML_TAGS.get(opened.tag, opened.tag), **opened.entity}
            entity["offset"] = opened.start
            entity["length"] = length
            self.entities.append(entity)

    @property
    def text(self) -> str:
        return "".join(self.parts)


def parse_html(source: str) -> tuple[str, list[dict[str, Any]]]:
    out = _Builder()
    stack: list[_Open] = []
    i = 0
    n = len(source)

    def byte_offset(index: int) -> int:
        return len(source[:index].encode("utf-8"))

    while i < n:
        ch = source[i]
        if ch == "&":
            m = re.match(r"&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);", source[i:])
            if m:
                name = m.group(1)
                if name.startswith("#x"):
                    out.add(chr(int(name[2:], 16)))
                    i += m.end()
                    continue
                if name.startswith("#"):
                    out.add(chr(int(name[1:])))
                    i += m.end()
                    continue
                if name in _NAMED_ENTITIES:
                    out.add(_NAMED_ENTITIES[name])
                    i += m.end()
                    continue
            out.add("&")  # Telegram keeps unknown entities verbatim
            i += 1
            continue
        if ch != "<":
            j = i
            while j < n and source[j] not in "<&":
                j += 1
            out.add(source[i:j])
            i = j
            continue
        # a tag, scanned like tdlib's parse_html
        begin = byte_offset(i)
        if source.startswith("</", i):
            if not stack:
                raise _parse_error(f"Unexpected end tag at byte offset {begin}")
            j = i + 2
            while j < n and not source[j].isspace() and source[j] != ">":
                j += 1
            name = source[i + 2 : j].lower()
            while j < n and source[j].isspace():
                j += 1
            if j >= n or source[j] != ">":
                raise _parse_error(f"Unclosed end tag at byte offset {begin}")
            if name and name != stack[-1].tag:
                raise _parse_error(
                    f'Unmatched end tag at byte offset {begin}, expected "</'
                    f'{stack[-1].tag}>", found "</{name}>"'
                )
            out.close(stack.pop())
            i = j + 1
            continue
        j = i + 1
        while j < n and not source[j].isspace() and source[j] != ">":
            j += 1
        if j >= n:
            raise _parse_error(f"Unclosed start tag at byte offset {begin}")
        name = source[i + 1 : j].lower()
        if name not in _HTML_TAGS:
            raise _parse_error(f'Unsupported start tag "{name}" at byte offset {begin}')
        end = j
        quote = ""
        while end < n and (quote or source[end] != ">"):
            if source[end] in "\"'" and (not quote or quote == source[end]):
                quote = "" if quote else source[end]
            end += 1
        if end >= n:
            raise _parse_error(
                f"Unclosed end of attribute value at byte offset {begin}"
                if quote
                else f"Unclosed start tag at byte offset {begin}"
            )
        attrs: dict[str, str] = {}
        for am in _ATTR_RE.finditer(source[j:end]):
            if am.group(1):
                value = am.group(2) or am.group(3) or am.group(4) or ""
                attrs[am.group(1).lower()] = value
        opened = _Open(name, out.pos)
        if name == "span":
            if attrs.get("class") != "tg-spoiler":
                raise _parse_error(
                    f'Tag "span" must have class "tg-spoiler" at byte offset {begin}'
                )
        elif name == "a":
            href = attrs.get("href", "")
            if href.startswith("tg://user?id="):
                user_id = int(href[13:]) if href[13:].isdigit() else 0
                opened.entity = {
                    "type": "text_mention",
                    "user": {"id": user_id, "is_bot": False, "first_name": ""},
                }
            else:
                opened.entity = {"url": href}
        elif name == "tg-emoji":
            if "emoji-id" not in attrs:
                raise _parse_error(
                    f'Tag "tg-emoji" must have attribute "emoji-id" at byte offset {begin}'
                )
            opened.entity = {"custom_emoji_id": attrs["emoji-id"]}
        elif name == "code" and stack and stack[-1].tag == "pre":
            cls = attrs.get("class", "")
            if cls.startswith("language-"):
                stack[-1].entity = {"language": cls[len("language-") :]}
        elif name == "blockquote" and "expandable" in attrs:
            opened.entity = {"type": "expandable_blockquote"}
        stack.append(opened)
        i = end + 1
    if stack:
        raise _parse_error(f'Can\'t find end tag corresponding to start tag "{stack[-1].tag}"')
    entities = [e for e in out.entities if not (e["type"] == "code" and _inside_pre(e, out))]
    return out.text, sorted(entities, key=lambda e: (e["offset"], -e["length"]))


def _inside_pre(entity: dict[str, Any], out: _Builder) -> bool:
    return any(
        e["type"] == "pre" and e["offset"] == entity["offset"] and e["length"] == entity["length"]
        for e in out.entities
    )


_MDV2_RESERVED = set("_*[]()~`>#+-=|{}.!")
_MDV2_MARKS = [
    ("||", "spoiler"),
    ("__", "underline"),
    ("*", "bold"),
    ("_", "italic"),
    ("~", "strikethrough"),
]


def parse_markdown_v2(source: str) -> tuple[str, list[dict[str, Any]]]:
    out = _Builder()
    stack: list[_Open] = []
    i = 0
    n = len(source)

    def byte_offset(index: int) -> int:
        return len(source[:index].encode("utf-8"))

    while i < n:
        ch = source[i]
        if ch == "\\":
            if i + 1 < n and 1 <= ord(source[i + 1]) <= 126:
                out.add(source[i + 1])
                i += 2
                continue
            raise _parse_error(
                "Character '\\' is reserved and must be escaped with the preceding '\\'"
            )
        if source.startswith("```", i):
            end = source.find("```", i + 3)
            if end < 0:
                raise _parse_error(f"Can't find end of Pre entity at byte offset {byte_offset(i)}")
            body = source[i + 3 : end]
            language = ""
            if "\n" in body:
                first, rest = body.split("\n", 1)
                if first and re.fullmatch(r"[\w+-]+", first):
                    language, body = first, rest
            body = re.sub(r"\\([\\`])", r"\1", body)
            start = out.pos
            out.add(body)
            entity: dict[str, Any] = {"type": "pre", "offset": start, "length": out.pos - start}
            if language:
                entity["language"] = language
            if entity["length"]:
                out.entities.append(entity)
            i = end + 3
            continue
        if ch == "`":
            end = source.find("`", i + 1)
            if end < 0:
                raise _parse_error(f"Can't find end of Code entity at byte offset {byte_offset(i)}")
            body = re.sub(r"\\([\\`])", r"\1", source[i + 1 : end])
            start = out.pos
            out.add(body)
            if out.pos > start:
                out.entities.append({"type": "code", "offset": start, "length": out.pos - start})
            i = end + 1
            continue
        if ch == "[":
            stack.append(_Open("[", out.pos))
            i += 1
            continue
        if ch == "]" and stack and stack[-1].tag == "[":
            m = re.match(r"\]\(((?:\\.|[^)\\])*)\)", source[i:])
            if not m:
                raise _parse_error(f"Can't find end of a url at byte offset {byte_offset(i)}")
            opened = stack.pop()
            opened.tag = "text_link"
            opened.entity = {"url": re.sub(r"\\(.)", r"\1", m.group(1))}
            out.close(opened)
            i += m.end()
            continue
        if ch == ">" and (i == 0 or source[i - 1] == "\n"):
            end = source.find("\n", i)
            end = n if end < 0 else end
            inner_text, inner_entities = parse_markdown_v2(source[i + 1 : end])
            start = out.pos
            for e in inner_entities:
                out.entities.append({**e, "offset": e["offset"] + start})
            out.add(inner_text)
            if out.pos > start:
                out.entities.append(
                    {"type": "blockquote", "offset": start, "length": out.pos - start}
                )
            i = end
            continue
        for mark, kind in _MDV2_MARKS:
            if source.startswith(mark, i):
                if stack and stack[-1].tag == kind:
                    out.close(stack.pop())
                else:
                    stack.append(_Open(kind, out.pos))
                i += len(mark)
                break
        else:
            if ch in _MDV2_RESERVED:
                raise _parse_error(
                    f"Character '{ch}' is reserved and must be escaped with the preceding '\\'"
                )
            out.add(ch)
            i += 1
    if stack:
        kind = stack[-1].tag
        label = {"[": "TextUrl"}.get(kind, kind.capitalize())
        raise _parse_error(f"Can't find end of {label} entity at byte offset {len(source)}")
    return out.text, sorted(out.entities, key=lambda e: (e["offset"], -e["length"]))


def parse_markdown(source: str) -> tuple[str, list[dict[str, Any]]]:
    """Legacy Markdown: *bold* _italic_ `code` ```pre``` [text](url), no nesting."""
    out = _Builder()
    i = 0
    n = len(source)
    marks = {"*": "bold", "_": "italic", "`": "code"}
    while i < n:
        ch = source[i]
        if ch == "\\" and i + 1 < n and source[i + 1] in "*_`[":
            out.add(source[i + 1])
            i += 2
            continue
        if source.startswith("```", i):
            end = source.find("```", i + 3)
            if end < 0:
                raise _parse_error(
                    "Can't find end of the entity starting at byte offset "
                    f"{len(source[:i].encode())}"
                )
            start = out.pos
            out.add(source[i + 3 : end])
            if out.pos > start:
                out.entities.append({"type": "pre", "offset": start, "length": out.pos - start})
            i = end + 3
            continue
        if ch in marks:
            end = source.find(ch, i + 1)
            if end < 0:
                raise _parse_error(
                    "Can't find end of the entity starting at byte offset "
                    f"{len(source[:i].encode())}"
                )
            start = out.pos
            out.add(source[i + 1 : end])
            if out.pos > start:
                out.entities.append({"type": marks[ch], "offset": start, "length": out.pos - start})
            i = end + 1
            continue
        if ch == "[":
            m = re.match(r"\[([^\]]*)\]\(([^)]*)\)", source[i:])
            if m:
                start = out.pos
                out.add(m.group(1))
                if out.pos > start:
                    out.entities.append(
                        {
                            "type": "text_link",
                            "offset": start,
                            "length": out.pos - start,
                            "url": m.group(2),
                        }
                    )
                i += m.end()
                continue
        out.add(ch)
        i += 1
    return out.text, out.entities


_COMMAND_RE = re.compile(r"(?<![\w/])/[a-zA-Z0-9_]{1,32}(?:@[a-zA-Z0-9_]{3,32})?")
_URL_RE = re.compile(r"\bhttps?://[^\s<>\"]+")
_MENTION_RE = re.compile(r"(?<![\w@])@[a-zA-Z0-9_]{5,32}")


def auto_entities(text: str) -> list[dict[str, Any]]:
    """Entities Telegram detects by itself: bot_command, url, mention."""
    found: list[dict[str, Any]] = []
    for regex, kind in ((_COMMAND_RE, "bot_command"), (_URL_RE, "url"), (_MENTION_RE, "mention")):
        for m in regex.finditer(text):
            found.append(
                {
                    "type": kind,
                    "offset": utf16_len(text[: m.start()]),
                    "length": utf16_len(m.group(0)),
                }
            )
    return sorted(found, key=lambda e: e["offset"])


def strip_text(text: str, entities: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """Telegram trims leading and trailing whitespace; entities are shifted and clipped."""
    stripped_left = text.lstrip()
    shift = utf16_len(text) - utf16_len(stripped_left)
    result = stripped_left.rstrip()
    limit = utf16_len(result)
    clipped: list[dict[str, Any]] = []
    for e in entities:
        start = max(e["offset"] - shift, 0)
        end = min(e["offset"] + e["length"] - shift, limit)
        if end > start:
            clipped.append({**e, "offset": start, "length": end - start})
    return result, clipped


def parse_text(
    text: str, parse_mode: str | None, entities: list[dict[str, Any]] | None = None
) -> tuple[str, list[dict[str, Any]]]:
    """Parse according to ``parse_mode`` (explicit ``entities`` win), then trim."""
    if entities is not None:
        parsed_text, parsed = text, list(entities)
    elif not parse_mode:
        parsed_text, parsed = text, []
    else:
        mode = parse_mode.lower()
        if mode == "html":
            parsed_text, parsed = parse_html(text)
        elif mode == "markdownv2":
            parsed_text, parsed = parse_markdown_v2(text)
        elif mode == "markdown":
            parsed_text, parsed = parse_markdown(text)
        else:
            raise bad_request(f"unsupported parse_mode {parse_mode}")
    return strip_text(parsed_text, parsed)
