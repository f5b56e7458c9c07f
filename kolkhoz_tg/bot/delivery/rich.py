"""The board as a rich message (Bot API 10.1): ``sendRichMessage`` for a new board,
``editMessageText`` with ``rich_message`` to edit it in place.

python-telegram-bot 22 speaks Bot API 10.0, so both calls go through ``Bot.do_api_request``
(with the same ``rate_limit_args`` as the text board's, so the group's budget and pace
apply to them alike). A server older than 10.1 answers ``sendRichMessage`` with 404 and
takes an ``editMessageText`` without ``text`` for an empty edit: :class:`RichBoards` then
logs one line, remembers (per process) that this server has no rich messages, and the
caller shows the text board instead. The chat's setting stays ``rich``: a process started
against a newer server sends the rich board again.
"""

from __future__ import annotations

import json
import logging
import warnings
from typing import Any

from telegram import InlineKeyboardMarkup, Message
from telegram.error import BadRequest, EndPointNotFound
from telegram.ext import ExtBot
from telegram.warnings import PTBUserWarning

log = logging.getLogger(__name__)
# PTB's own edit_message_text has no rich_message yet (and insists on a text): the edit
# goes through do_api_request, which would warn that the method exists.
warnings.filterwarnings("ignore", message="Please use 'Bot.editMessageText'",
                        category=PTBUserWarning)


class NoRich(Exception):
    """This Bot API server has no rich messages (older than 10.1)."""


def _no_text(e: BadRequest) -> bool:
    """An older server's answer to an edit that carries ``rich_message`` and no ``text``."""
    message = e.message.lower()
    return "text must be non-empty" in message or "text is empty" in message


class RichBoards:
    """Sends and edits rich boards, and remembers whether this server has rich messages:
    ``supported`` is None until the first call tells."""

    def __init__(self) -> None:
        self.supported: bool | None = None

    def usable(self) -> bool:
        return self.supported is not False

    def _unsupported(self, why: object) -> None:
        if self.supported is not False:  # (once a process: False stays)
            log.warning("this Bot API server has no rich messages (older than 10.1): "
                        "boards are shown as text (%s)", why)
        self.supported = False

    @staticmethod
    def _params(html: str, markup: InlineKeyboardMarkup | None) -> dict[str, Any]:
        params: dict[str, Any] = {"rich_message": json.dumps({"html": html})}
        if markup is not None:
            # The markup itself, not its JSON: a keyboard with disabled buttons then goes
            # in the form this server reads (DisabledButtons.wrap sees the Markup).
            params["reply_markup"] = markup
        return params

    async def send(
        self, bot: ExtBot[Any], chat_id: int, topic_id: int | None, html: str,
        markup: InlineKeyboardMarkup | None, rate_limit_args: Any = None,
    ) -> Message:
        """Post the board; raises :class:`NoRich` on a server without rich messages."""
        params = {"chat_id": chat_id, **self._params(html, markup)}
        if topic_id is not None:
            params["message_thread_id"] = topic_id
        try:
            sent = await bot.do_api_request("sendRichMessage", api_kwargs=params,
                                            return_type=Message,
                                            rate_limit_args=rate_limit_args)
        except EndPointNotFound as e:
            self._unsupported(e)
            raise NoRich from e
        self.supported = True
        assert isinstance(sent, Message)
        return sent

    async def edit(
        self, bot: ExtBot[Any], chat_id: int, message_id: int, html: str,
        markup: InlineKeyboardMarkup | None, rate_limit_args: Any = None,
    ) -> None:
        """Edit the board message in place; raises :class:`NoRich` on a server without rich
        messages, Telegram's errors otherwise (not modified, gone...)."""
        params = {"chat_id": chat_id, "message_id": message_id, **self._params(html, markup)}
        try:
            await bot.do_api_request("editMessageText", api_kwargs=params,
                                     rate_limit_args=rate_limit_args)
        except BadRequest as e:
            if _no_text(e):  # (the board's rich message is never empty)
                self._unsupported(e)
                raise NoRich from e
            raise
        self.supported = True
