""""🃏 My cards" on the group board: the player's hand and their move's buttons in the group,
shown to them alone (an ephemeral message, Bot API 10.3), in place of the board they tapped.

The message reads exactly as their private game message (:func:`~kolkhoz_tg.bot.plan.
private_step`), a card tapped there is played like one tapped in private, and the plan edits
it whenever the game moves on (:class:`~kolkhoz_tg.bot.steps.GroupHand`), so it never offers
a stale move; its id is kept in the game's meta (:func:`~kolkhoz_tg.bot.steps.eph_key`). The
private chat stays the durable path: "your turn", reminders and whatever the outbox must
deliver still go there, because Telegram does not promise an ephemeral message arrives. When
this server cannot show one (older than Bot API 10.3, an error), the tap opens the private
chat instead (the deep link), as before: one log line, no traceback.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kolkhoz_tg import present
from kolkhoz_tg.bot.context import answer_quietly, call, topic_of
from kolkhoz_tg.bot.delivery import markup
from kolkhoz_tg.bot.ephemeral import EphemeralRef
from kolkhoz_tg.bot.plan import private_step
from kolkhoz_tg.bot.steps import eph_key
from kolkhoz_tg.present import taps
from kolkhoz_tg.service import ServiceError

if TYPE_CHECKING:
    from kolkhoz_tg.bot.buttons import Tap

#: The ``v`` tap's payload.
CARDS = "cards"


async def cards_tap(tap: Tap) -> None:
    """Show the tapper their hand in the group, or open the private chat where that
    cannot be done."""
    d, cb, query, message = tap.d, tap.cb, tap.query, tap.message
    bot = tap.context.bot
    link = present.deep_link(bot.username, cb.game_id)
    if tap.in_private or message is None or not message.is_accessible:
        await answer_quietly(query, url=link)
        return
    try:
        scene = await call(d.service.scene, cb.game_id)
    except ServiceError:
        await answer_quietly(query, taps.no_such_game(tap.tr), show_alert=True)
        return
    step = private_step(scene, tap.user_id, d.service.clock.now(), bot.username, new=False)
    if step is None:
        await answer_quietly(query, taps.not_playing(tap.tr), show_alert=True)
        return
    keyboard = present.group_keyboard(step.keyboard)
    ref = await d.deliverer.ephemeral.open(
        bot, chat_id=message.chat.id, topic_id=topic_of(message), user_id=tap.user_id,
        query_id=query.id, placeholder="🃏 …", text=step.text, markup=markup(keyboard),
        in_place=True)
    if ref is None:
        await answer_quietly(query, url=link)
        return
    await answer_quietly(query)
    old = scene.game.meta.get(eph_key(tap.user_id))
    await call(d.service.set_meta, cb.game_id, eph_key(tap.user_id), ref.ephemeral_id)
    d.deliverer.shown.put(ref.chat_id, -ref.ephemeral_id, step.text, keyboard)
    if old and int(old) != ref.ephemeral_id:
        await d.deliverer.ephemeral.delete(bot, EphemeralRef(ref.chat_id, tap.user_id,
                                                             int(old)))
