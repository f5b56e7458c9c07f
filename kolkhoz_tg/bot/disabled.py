"""Disabled buttons (Bot API 10.3), and today's form on an older server.

A card that may not be played now is a disabled button (``"disabled": {}``: greyed, a tap
does nothing) with the reason on the message's last line. A server older than 10.3 does not
know the field: to it such a button has no type, and it refuses the whole keyboard ("Text
buttons are unallowed in the inline keyboard"). So :func:`~kolkhoz_tg.bot.delivery.markup`
builds a :class:`Markup` that carries the older form too (``·9♥·`` buttons that explain
themselves when tapped, the ``x`` taps), and every Bot API call of the application passes
:meth:`DisabledButtons.wrap` (in :class:`~kolkhoz_tg.bot.retry.RetryingLimiter`): once this
server is known to lack them (the operator's ``KOLKHOZ_BOT_API_VERSION``, or the first
refusal, remembered for the process), the older form goes out in the first place; a call
refused for them is made again at once in the older form, so nothing is lost.
PTB 22 speaks Bot API 10.0: the new fields go through ``api_kwargs``. The calls made with
``Bot.do_api_request`` (the hand shown in the group, the rich board) put the
:class:`Markup` itself in ``api_kwargs["reply_markup"]``, never its JSON, so that
:meth:`DisabledButtons.wrap` finds it there too.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, TypeVar

from telegram import InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import BadRequest

log = logging.getLogger(__name__)

T = TypeVar("T")

#: The Bot API version that has disabled buttons.
SINCE = (10, 3)


class Markup(InlineKeyboardMarkup):
    """An inline keyboard with disabled buttons, and the same keyboard in the older form
    (:attr:`legacy`) for a server without them. Only the new form is sent as is."""

    __slots__ = ("_legacy",)

    def __init__(self, rows: Sequence[Sequence[InlineKeyboardButton]],
                 legacy: InlineKeyboardMarkup) -> None:
        super().__init__(rows)
        self._legacy = legacy

    @property
    def legacy(self) -> InlineKeyboardMarkup:
        return self._legacy


def supported_by(version: str | None) -> bool | None:
    """Whether a server of this Bot API ``version`` (``"10.0"``) has disabled buttons; None
    when the version is not known."""
    if not version:
        return None
    major, _, minor = version.partition(".")
    return (int(major), int(minor or 0)) >= SINCE


def refused(error: BadRequest) -> bool:
    """Whether Telegram refused a keyboard because of a button it cannot parse."""
    return "keyboard button" in error.message.lower()


class DisabledButtons:
    """Whether this Bot API server has disabled buttons: ``supported`` is None until it is
    known (from a setting, or from the first call that sends one), then kept for the
    process."""

    def __init__(self, supported: bool | None = None) -> None:
        self.supported = supported

    def wrap(self, callback: Callable[..., Coroutine[Any, Any, T]],
             data: dict[str, Any]) -> Callable[..., Coroutine[Any, Any, T]]:
        """``callback`` (a Bot API call whose parameters are ``data``, the dict it was
        given) sending the keyboard in the form this server reads."""
        keyboard = data.get("reply_markup")
        if not isinstance(keyboard, Markup):
            return callback

        async def call(*args: Any, **kwargs: Any) -> T:
            if self.supported is False:
                data["reply_markup"] = keyboard.legacy
                return await callback(*args, **kwargs)
            try:
                result = await callback(*args, **kwargs)
            except BadRequest as e:
                if self.supported or not refused(e):
                    raise
                if self.supported is None:  # (two calls refused at once: one line)
                    log.warning("this Bot API server has no disabled buttons (older than "
                                "10.3): cards that may not be played are sent as ·9♥· buttons")
                self.supported = False
                data["reply_markup"] = keyboard.legacy
                return await callback(*args, **kwargs)
            self.supported = True
            return result

        return call
