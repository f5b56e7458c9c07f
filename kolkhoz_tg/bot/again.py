"""One-tap rematch and new-game notices (issue #31).

*🔁 Play again* on a finished game's board opens a lobby in the same chat and forum topic
with the same rules, clock, bots and seats (:meth:`GameService.rematch`): the tapper opens
it and sits; the other players confirm with Join or decline with Leave on the lobby. A
second tap, or a tap on an older board, opens nothing more.

*🔔 Tell me about new games here* on a lobby, or ``/notify on|off`` in a group, subscribes
the user to the chat's new lobbies: the service writes one private notice per lobby and
subscriber to the outbox, held until the end of their quiet hours; the relay sends it with
a Join button (:func:`kolkhoz_tg.present.notices.lobby_notice`).
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from telegram import Update
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from kolkhoz_tg import present
from kolkhoz_tg.bot.callbacks import Callback
from kolkhoz_tg.bot.context import Deps, answer_quietly, call, command, service_error_text
from kolkhoz_tg.bot.steps import TOPIC_OWN_KEY
from kolkhoz_tg.present import notices as say
from kolkhoz_tg.present.words import start_link
from kolkhoz_tg.service import GameInfo, ServiceError
from kolkhoz_tg.service.notices import NOTIFY_KEY

if TYPE_CHECKING:
    from kolkhoz_tg.bot.buttons import Tap

#: ``/notify``'s words for on and off, in both languages.
ON = frozenset({"on", "yes", "1", "вкл", "да"})
OFF = frozenset({"off", "no", "0", "выкл", "нет"})


async def rematch_tap(tap: Tap) -> None:
    """*🔁 Play again*: the rematch lobby, posted where the game was played."""
    d = tap.d
    try:
        old = await call(d.service.game_info, tap.cb.game_id)
        # The topic the bot opened for the last game, closed at its end, is this one's too
        # (closed again at its end).
        own = {TOPIC_OWN_KEY: True} if old.meta.get(TOPIC_OWN_KEY) else None
        game = await call(d.service.rematch, tap.cb.game_id, tap.user_id, own)
    except ServiceError as e:
        await answer_quietly(tap.query, service_error_text(tap.tr, e), show_alert=True)
        return
    await answer_quietly(tap.query)
    if own and game.topic_id is not None:
        with contextlib.suppress(TelegramError):
            await tap.context.bot.reopen_forum_topic(game.chat_id, game.topic_id)
    await d.deliverer.refresh_board(game.id, resend=True)


async def joins_from_notice(
    d: Deps, cb: Callback, game: GameInfo, user_id: int, in_private: bool
) -> bool:
    """Whether a lobby button tapped away from the game's chat is Join on the private
    notice of a new game, by someone the chat tells of its new games (no one else may
    join from afar)."""
    if not (in_private and cb.kind == "l" and cb.payload == "join"):
        return False
    chat = await call(d.service.chat, game.chat_id)
    told = chat.settings.get(NOTIFY_KEY) if chat is not None else None
    return isinstance(told, list) and user_id in told


async def notify_tap(tap: Tap) -> None:
    """*🔔* on a lobby: the tapper hears of new games in this chat from now on (a second
    tap stops it); one who has no private chat with the bot yet is sent there."""
    d, user = tap.d, tap.update.effective_user
    assert user is not None
    chat_id = tap.message.chat.id if tap.message is not None else None
    if chat_id is None:
        await answer_quietly(tap.query)
        return
    on = await call(d.service.set_notify, chat_id, tap.user_id, None, user.full_name)
    info = await call(d.service.user, tap.user_id)
    can_pm = info is not None and info.can_pm
    if on and not can_pm:
        await answer_quietly(tap.query, url=present.deep_link(tap.context.bot.username,
                                                              tap.cb.game_id))
        return
    await answer_quietly(tap.query, say.notify_answer(tap.tr, on, can_pm).text,
                         show_alert=True)


async def cmd_notify(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/notify on|off`` in a group (``/notify`` alone switches it): a private message when
    a new game opens here. In private: where to send it."""
    c = await command(update, context)
    if not c.in_group:
        await c.reply(say.notify_in_private(c.tr))
        return
    args = [a.lower() for a in c.args]
    if len(args) > 1 or (args and args[0] not in ON | OFF):
        await c.reply(say.notify_usage(c.tr))
        return
    wanted = None if not args else args[0] in ON
    on = await call(c.d.service.set_notify, c.place.chat_id, c.user.id, wanted,
                    c.user.full_name)
    info = await call(c.d.service.user, c.user.id)
    can_pm = info is not None and info.can_pm
    msg = say.notify_answer(c.tr, on, can_pm, start_link(context.bot.username, "notify"))
    await c.reply(msg.text, msg.keyboard)
