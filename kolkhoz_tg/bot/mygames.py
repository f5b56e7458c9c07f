"""``/mygames``: the reader's open games in one private message (:mod:`kolkhoz_tg.present.mygames`
says it), from one service call (:meth:`~kolkhoz_tg.service.GameService.my_games`).

In private it answers there; typed in a group it is answered privately, with a short note
in the group only when the bot cannot write to the sender (a deep link, ``/start mygames``,
opens the private chat on the list). The welcome's *My games* button (``v:0:0:mine``) sends
it too. Each game's row of buttons opens its board message (``t.me/c/<chat>/<message>``,
with the topic's thread in a forum: only supergroups have such links) and sends the reader's
hand message anew (``v:<game>:<version>:resend``; refused, in an alert, once the game is
over or the reader left it). The names of forum topics come from the service messages that
made or renamed them (:func:`on_topic_named`).
"""

from __future__ import annotations

import logging

from telegram import CallbackQuery, Update
from telegram.error import Forbidden, TelegramError
from telegram.ext import ContextTypes
from telegram.helpers import create_deep_linked_url

from kolkhoz_tg.bot.callbacks import Callback, view_button
from kolkhoz_tg.bot.context import Cmd, Deps, answer_quietly, call, command, deps
from kolkhoz_tg.bot.delivery import BOARD_KEY, TOPIC_OWN_KEY, markup
from kolkhoz_tg.i18n import Translator
from kolkhoz_tg.present import mygames as say
from kolkhoz_tg.present import taps
from kolkhoz_tg.present.keyboard import Button, Message
from kolkhoz_tg.present.topics import topic_name
from kolkhoz_tg.service import GameInfo, MyGames, ServiceError

log = logging.getLogger(__name__)

#: ``/start mygames``: the deep link a group's note opens the private chat with.
MY_GAMES_PAYLOAD = "mygames"
#: The ``v`` button payloads handled here: the list (game 0), a game's hand sent anew.
LIST = "mine"
HAND = "resend"
TAPS = frozenset({LIST, HAND})


def board_url(game: GameInfo) -> str | None:
    """A link that opens the game's board message: ``https://t.me/c/<chat>/<message>``,
    ``…/<chat>/<topic>/<message>`` in a forum topic; None where Telegram has no such link
    (a basic group, a private chat) or there is no board message yet."""
    board = game.meta.get(BOARD_KEY)
    digits = str(game.chat_id)
    if not board or not digits.startswith("-100") or game.practice:
        return None
    thread = f"{game.topic_id}/" if game.topic_id is not None else ""
    return f"https://t.me/c/{digits[4:]}/{thread}{int(board)}"


def listings(tr: Translator, mine: MyGames) -> dict[int, say.Listing]:
    """What the bot adds to each listed game (see :class:`~kolkhoz_tg.present.mygames.Listing`)."""
    found = {}
    for g in [*mine.mine, *mine.others]:
        game = g.game
        own = game.topic_id is not None and bool(game.meta.get(TOPIC_OWN_KEY))
        found[game.id] = say.Listing(
            board_url=board_url(game),
            hand_data=None if game.status == "lobby" else view_button(game.id, game.version,
                                                                      HAND),
            topic_name=topic_name(tr, game) if own else None,
        )
    return found


async def list_message(d: Deps, tr: Translator, user_id: int) -> tuple[Message, MyGames]:
    """The list for ``user_id`` in ``tr``'s language, and the record it shows."""
    mine = await call(d.service.my_games, user_id)
    return say.my_games(tr, mine, d.service.clock.now(), listings(tr, mine)), mine


async def cmd_mygames(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/mygames``: the list here in private; from a group, in private (a note in the
    group only when the bot cannot write to the sender)."""
    c = await command(update, context)
    if not c.in_group:
        await show_my_games(c)
        return
    msg, mine = await list_message(c.d, c.tr, c.user.id)
    if mine.can_pm and await _send_private(c.d, context, c.user.id, msg):
        return
    note = say.open_private_for_list(
        c.tr, create_deep_linked_url(context.bot.username, MY_GAMES_PAYLOAD))
    await c.reply(note.text, note.keyboard)


async def show_my_games(c: Cmd) -> None:
    """The list as the answer to a command in private (``/mygames``, ``/start mygames``)."""
    msg, _ = await list_message(c.d, c.tr, c.user.id)
    await c.reply(msg.text, msg.keyboard)


def list_button(tr: Translator) -> list[Button]:
    """The welcome's row with the *My games* button."""
    return [say.my_games_button(tr, view_button(0, 0, LIST))]


async def _send_private(
    d: Deps, context: ContextTypes.DEFAULT_TYPE, user_id: int, msg: Message
) -> bool:
    try:
        await context.bot.send_message(user_id, msg.text, reply_markup=markup(msg.keyboard))
    except Forbidden as e:  # blocked, or never started: the group's note says what to do
        log.info("could not send user %s their games: %s", user_id, e)
        await call(d.service.set_can_pm, user_id, False)
        return False
    except TelegramError as e:
        log.info("could not send user %s their games: %s", user_id, e)
        return False
    return True


async def my_games_tap(
    context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, tr: Translator
) -> None:
    """A ``v`` tap of :data:`TAPS`: the list sent to the tapper in private (``mine``), or
    a game's hand message sent anew (``resend``): the tapper's own seat only, refused
    with a reason when the game is over, not started or no longer theirs."""
    d = deps(context)
    user_id = query.from_user.id
    if cb.payload == LIST:
        await answer_quietly(query)
        msg, _ = await list_message(d, tr, user_id)
        await _send_private(d, context, user_id, msg)
        return
    try:
        info = await call(d.service.game_info, cb.game_id)
    except ServiceError:
        await answer_quietly(query, taps.no_such_game(tr), show_alert=True)
        return
    reason = None
    if info.seat_of(user_id) is None:
        reason = "not_seated"
    elif info.status == "lobby":
        reason = "lobby"
    elif info.status not in ("active", "paused"):
        reason = "over"
    if reason is not None:
        await answer_quietly(query, say.hand_refused(tr, reason), show_alert=True)
        return
    await answer_quietly(query)
    await d.deliverer.refresh_private(info.id, user_id, new=True)


async def on_topic_named(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A forum topic was made or renamed: its name is remembered for the lists."""
    message = update.effective_message
    if message is None or message.message_thread_id is None:
        return
    made, edited = message.forum_topic_created, message.forum_topic_edited
    name = made.name if made is not None else edited.name if edited is not None else None
    if name:
        await call(deps(context).service.name_topic, message.chat.id,
                   message.message_thread_id, name)
