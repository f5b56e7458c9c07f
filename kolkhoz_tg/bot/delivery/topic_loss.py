"""A game whose forum topic is gone (deleted, or closed while the bot may not manage
topics: Telegram tells bots nothing of a deletion, a send into it failed with
:class:`~kolkhoz_tg.bot.delivery.sender.TopicGone`).

Nothing is lost: a running game is paused, a note goes to the chat's "General", the game
moves there (unless "General" holds an open game of its own) and its records that could not
go into the topic (a year's summary, the final table) are posted there.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from telegram.constants import ParseMode
from telegram.error import TelegramError

from kolkhoz_tg import present
from kolkhoz_tg.bot import once
from kolkhoz_tg.bot.delivery.claims import Claims
from kolkhoz_tg.bot.delivery.sender import MaybeSent, Passing, TopicGone
from kolkhoz_tg.bot.delivery.settle import Outcome
from kolkhoz_tg.bot.steps import TOPIC_LOST_KEY, TOPIC_OWN_KEY, GroupPost
from kolkhoz_tg.i18n import Translator
from kolkhoz_tg.service import NotAllowed, Notification, ServiceError

if TYPE_CHECKING:
    from kolkhoz_tg.bot.delivery.deliverer import Deliverer

log = logging.getLogger(__name__)


def lost_text(tr: Translator, game_id: int, status: str, paused_now: bool,
               moved: bool) -> str:
    """The note in "General" about a game whose topic is gone (see
    :meth:`TopicLoss.topic_lost`)."""
    if moved:
        if paused_now:
            return tr.gettext(
                "The topic of game #{id} was closed or deleted, so the game is paused and "
                "has moved here; nothing is lost. Its creator or an admin continues it with "
                "/resume: here, or in another topic.", id=game_id)
        if status == "paused":
            return tr.gettext(
                "The topic of game #{id} was closed or deleted, so the paused game has moved "
                "here; nothing is lost. Its creator or an admin continues it with /resume: "
                "here, or in another topic.", id=game_id)
        return tr.gettext(
            "The topic of game #{id} was closed or deleted, so its lobby has moved here.",
            id=game_id)
    if status == "lobby":
        return tr.gettext(
            "The topic of game #{id} was closed or deleted. This chat already has a game "
            "here, so the lobby waits: its creator or an admin brings it into another topic "
            "with /resume there.", id=game_id)
    return tr.gettext(
        "The topic of game #{id} was closed or deleted, so the game is paused; nothing is "
        "lost. This chat already has a game here, so its creator or an admin continues it "
        "in another topic with /resume there.", id=game_id)


class TopicLoss:
    """Moves a :class:`Deliverer`'s games out of their gone topics (see the module
    docstring)."""

    def __init__(self, deliverer: Deliverer) -> None:
        self.deliverer = deliverer

    async def after(
        self, game_id: int, out: Outcome, notes: list[Notification] | None = None
    ) -> bool:
        """What a delivery leaves to do once the game's lock is free: when the game's forum
        topic turned out to be gone, move the game to "General", pause it if it runs, say
        so there and show it there (:meth:`topic_lost`), then post there the records that
        could not go into the topic (``notes``: the delivery's, whose claims they hold).
        Returns whether the topic was gone."""
        if out.topic_gone is None:
            return False
        chat_id, topic_id = out.topic_gone
        try:
            await self.topic_lost(game_id, chat_id, topic_id)
        except (ServiceError, TelegramError):
            log.exception("game %s: could not move it out of its deleted topic", game_id)
        if out.moved:
            await self._post_moved(game_id, out.moved, notes or [])
        return True

    async def _post_moved(
        self, game_id: int, posts: list[GroupPost], notes: list[Notification]
    ) -> None:
        """Post a game's records (a year's summary, the final table) in "General" after its
        topic was found gone, under the game's name unless the game now lives there (it
        could not move: "General" has a game of its own); then settle them (delivered, or
        back to the relay, which plans them where the game is by then)."""
        d = self.deliverer
        ids = {n for post in posts for n in post.notes}
        async with d.locks[game_id]:
            claims = Claims(d.service, d.owner, [n for n in notes if n.id in ids])
            if not await claims.keep():
                posts = [p for p in posts if not set(p.notes) & claims.lost]
            info = await d.call(d.service.game_info, game_id)
            head = ""
            if info.topic_id is not None:
                tr = await d.call(d.tr_chat, info.chat_id)
                head = tr.gettext("Kolkhoz #{id} — {rules}", id=game_id,
                                  rules=present.rules_title(tr, info.preset, info.rules)) + "\n"
            out = Outcome()
            for post in posts:
                try:
                    await d.steps.mark(post.notes, once.policy(post).bit, out)
                    await d.sender.send_group(info.chat_id, (head + post.text)[:present.MAX_TEXT],
                                              post.keyboard,
                                              ParseMode.HTML if post.html else None)
                except MaybeSent:
                    log.info("game %s: a record posted in General may have arrived: not "
                             "posted again", game_id)
                except Passing as e:
                    d.steps.unsent(post, out)
                    out.retry.extend(post.notes)
                    out.not_before = e.until
                    continue
                except (TopicGone, TelegramError):
                    log.exception("game %s: a record could not be posted in General", game_id)
                out.delivered.extend(post.notes)
            await d.settler.settle(game_id, out)

    async def topic_lost(self, game_id: int, chat_id: int, topic_id: int) -> None:
        """The forum topic of a game was deleted, or closed while the bot may not manage
        topics (Telegram tells bots nothing of a deletion: a send into it failed). Nothing
        is lost: a running game is paused (no deadline plays it out unseen) until the creator
        or an admin sends /resume, and a note goes to the chat's "General". The game moves
        there, and its board with it, unless "General" holds an open game of its own (one
        game a place): then it stays where it was, marked lost, and /resume brings it into
        another topic (or into "General" once that is free)."""
        d = self.deliverer
        info = await d.call(d.service.game_info, game_id)
        if info.chat_id != chat_id or info.topic_id != topic_id:
            return  # moved already (two deliveries met the deleted topic)
        if info.meta.get(TOPIC_LOST_KEY) == topic_id:
            return  # known to be lost, and told: it waits for /resume
        if info.status not in ("lobby", "active", "paused"):
            # Over: its final table may have been lost with the topic; it goes to "General".
            await d.call(d.service.move_game, game_id, None, meta={TOPIC_OWN_KEY: None})
            await d.refresh_board(game_id, resend=True)
            return
        lost = {TOPIC_LOST_KEY: topic_id, TOPIC_OWN_KEY: None}
        try:
            await d.call(d.service.move_game, game_id, None, meta=lost)
            moved = True
        except NotAllowed:
            # "General" has an open game: this one stays put, marked lost (its group
            # messages are not tried there any more).
            await d.call(d.service.move_game, game_id, topic_id, meta=lost)
            moved = False
        tr = await d.call(d.tr_chat, chat_id)
        notes: list[Notification] = []
        status = info.status
        if status == "active":
            try:
                result = await d.call(d.service.pause, game_id, info.creator_id or 0, True)
                notes = list(result.notifications)
            except ServiceError:  # paused (or over) meanwhile
                status = (await d.call(d.service.game_info, game_id)).status
        if not notes and status not in ("lobby", "paused"):
            return  # over meanwhile
        await d.say_in_group(chat_id, lost_text(tr, game_id, status, bool(notes), moved))
        if notes:
            await d.deliver(notes)  # the paused board, sent anew in "General"
        elif moved:
            await d.refresh_board(game_id, resend=True)
