"""Ephemeral messages (Bot API 10.3): a message in a group that only one member sees.

python-telegram-bot 22 speaks Bot API 10.0, so the new parameter goes through ``api_kwargs``
of PTB's own ``send_message`` (whose answer keeps the new fields in ``Message.api_kwargs``)
and the new methods through ``Bot.do_api_request``.

A server older than 10.3 ignores ``ephemeral_message_parameters`` and posts the message for
the whole group to see. So a secret never goes out in the first call: :meth:`Ephemeral.open`
sends a harmless placeholder, checks that Telegram answered with an ephemeral message
(``message_id`` 0 and an ``ephemeral_message_id``), and only then edits the secret into it
with ``editEphemeralMessageText``, a method an older server does not have. If the
placeholder came back as an ordinary message, it is deleted at once, the process remembers
that this server cannot do it, and the caller falls back to the private chat. Telegram does
not promise to deliver an ephemeral message (an offline user may never see it), so anything
that must arrive still goes to the private chat.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass

from telegram import Bot, InlineKeyboardMarkup
from telegram.constants import ParseMode
from telegram.error import BadRequest, TelegramError

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class EphemeralRef:
    """Where an ephemeral message is: its chat, the one member who sees it, and its id
    among the chat's ephemeral messages."""

    chat_id: int
    user_id: int
    ephemeral_id: int

    def ids(self) -> dict[str, int]:
        return {"chat_id": self.chat_id, "receiver_user_id": self.user_id,
                "ephemeral_message_id": self.ephemeral_id}


class Ephemeral:
    """Sends, edits and deletes ephemeral messages, and remembers (per process) whether
    this Bot API server has them: ``supported`` is None until the first try."""

    def __init__(self) -> None:
        self.supported: bool | None = None

    async def open(
        self, bot: Bot, *, chat_id: int, topic_id: int | None, user_id: int, query_id: str,
        placeholder: str, text: str, markup: InlineKeyboardMarkup | None,
        in_place: bool = False,
    ) -> EphemeralRef | None:
        """Show ``text`` (plain) to ``user_id`` alone in the group, in answer to their tap
        ``query_id`` (within Telegram's 15 s), in place of the tapped message when
        ``in_place``. Returns where it is, or None when it could not be done (an older
        server, an error: logged once, never raised); nothing secret was shown then."""
        if self.supported is False:
            return None
        params = {"receiver_user_id": user_id, "callback_query_id": query_id}
        if in_place:
            params["replace_callback_query_message"] = True
        try:
            sent = await bot.send_message(
                chat_id, placeholder, message_thread_id=topic_id,
                api_kwargs={"ephemeral_message_parameters": json.dumps(params)})
        except TelegramError as exc:
            log.info("no ephemeral message in chat %s: %s", chat_id, exc)
            return None
        eid = sent.api_kwargs.get("ephemeral_message_id")
        if sent.message_id != 0 or not isinstance(eid, int):
            await self._unsupported(bot, chat_id, sent.message_id)
            return None
        self.supported = True
        ref = EphemeralRef(chat_id, user_id, eid)
        if not await self.edit(bot, ref, text, markup):
            await self.delete(bot, ref)
            return None
        return ref

    async def _unsupported(self, bot: Bot, chat_id: int, message_id: int) -> None:
        """The server posted the placeholder publicly: it predates ephemeral messages."""
        if self.supported is not False:
            log.warning("this Bot API server has no ephemeral messages (older than 10.3): "
                        "hands stay in private chats")
        self.supported = False
        try:
            await bot.delete_message(chat_id, message_id)
        except TelegramError as exc:
            log.info("could not take back the placeholder in chat %s: %s", chat_id, exc)

    async def edit(self, bot: Bot, ref: EphemeralRef, text: str,
                   markup: InlineKeyboardMarkup | None, *, html: bool = False) -> bool:
        """Replace the message's text (plain, or HTML when ``html``) and buttons; False if
        Telegram refused (it may be gone: expired, or the app restarted)."""
        kwargs: dict[str, object] = {**ref.ids(), "text": text}
        if html:
            kwargs["parse_mode"] = ParseMode.HTML
        if markup is not None:
            # The markup itself, not its JSON: a keyboard with disabled buttons then goes
            # in the form this server reads (DisabledButtons.wrap sees the Markup).
            kwargs["reply_markup"] = markup
        try:
            await bot.do_api_request("editEphemeralMessageText", api_kwargs=kwargs)
        except BadRequest as exc:
            if "not modified" in exc.message.lower():
                return True
            log.info("ephemeral message %s not edited: %s", ref, exc)
            return False
        except TelegramError as exc:
            log.info("ephemeral message %s not edited: %s", ref, exc)
            return False
        return True

    async def delete(self, bot: Bot, ref: EphemeralRef) -> bool:
        """Remove the message (Telegram does not promise the user's app notices)."""
        try:
            await bot.do_api_request("deleteEphemeralMessage", api_kwargs=dict(ref.ids()))
        except TelegramError as exc:
            log.info("ephemeral message %s not deleted: %s", ref, exc)
            return False
        return True
