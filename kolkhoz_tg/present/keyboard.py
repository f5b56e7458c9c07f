"""Neutral message types: a :class:`Button`, rows of them (:data:`Keyboard`) and a
:class:`Message` (text plus keyboard), free of Telegram types and easy to test;
:mod:`kolkhoz_tg.bot.app` turns them into markup.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Telegram's limit on a photo's caption.
MAX_CAPTION = 1024


MAX_TEXT = 4096


@dataclass(frozen=True, slots=True)
class Button:
    """An inline button: callback data, or a URL, or an inline query in the current chat.

    ``disabled``: shown greyed and doing nothing (Bot API 10.3), e.g. a card that may not be
    played now; ``data`` is then what it does on an older server, where it is shown as
    ``·text·`` (see :func:`kolkhoz_tg.bot.delivery.markup`). ``style``: its colour (Bot API
    9.4: ``success`` green, ``primary`` blue, ``danger`` red), never the only cue.
    """

    text: str
    data: str | None = None
    url: str | None = None
    inline_query: str | None = None
    disabled: bool = False
    style: str | None = None


Keyboard = list[list[Button]]


@dataclass(frozen=True, slots=True)
class Message:
    text: str
    keyboard: Keyboard

    def __post_init__(self) -> None:
        if len(self.text) > MAX_TEXT:
            object.__setattr__(self, "text", self.text[: MAX_TEXT - 1] + "…")
