"""Commands about games played: ``/stats`` (ratings) and ``/log`` (a finished game's log, a
summary in a group and the whole of it in private)."""

from __future__ import annotations

import contextlib

from telegram import Update
from telegram.constants import ChatMemberStatus
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from kolkhoz_tg import present
from kolkhoz_tg.bot.context import OPEN_STATUSES, Cmd, call, command, service_error_text
from kolkhoz_tg.service import GameInfo, ServiceError


async def cmd_stats(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/stats``: in a group, the chat's rating table (rating, games, wins, average place;
    bots per level too); in private, the player's own lines. ``/stats me``: the player's
    rating over all chats and per chat (in a group, only this chat's line besides)."""
    c = await command(update, context, group_language=True, remember=False)
    me = bool(c.args) and c.args[0].lower() in ("me", "я")
    if c.in_group and not me:
        table = await call(c.d.service.chat_ratings, c.chat.id)
        await c.reply(present.chat_ratings(c.tr, table))
        return
    lines = await call(c.d.service.user_ratings, c.user.id)
    games = await call(c.d.service.games_of_user, c.user.id, False)
    if c.in_group:
        # Other groups' names stay out of this one; the group reads of the sender by name.
        lines = [x for x in lines if x.chat_id in (None, c.chat.id)]
        text = present.player_ratings(c.tr, lines, c.user.full_name)
        games = [g for g in games if g.chat_id == c.chat.id]
    else:
        text = present.player_ratings(c.tr, lines)
    # Games played under house rules are not rated, but they are the player's: listed.
    house = present.house_rule_games(c.tr, games, c.user.id)
    await c.reply(text if house is None else f"{text}\n\n{house}")


async def cmd_log(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/log``: the last finished game (``/log N`` for game N). In a group, a few lines
    with a button that opens the full log in private (a log is hundreds of lines) about
    the last game of the place (in a forum topic, that topic's); in private, the full log,
    move by move, of the player's last finished game."""
    c = await command(update, context, group_language=True, remember=False)
    if c.in_group:
        # The game of this place: a forum topic's own, as every command in a topic.
        place = c.place
        games = await call(c.d.service.games_in_chat, place.chat_id, place.topic_id, False)
        if place.topic_id is None and not any(g.status in ("finished", "aborted")
                                              for g in games):
            # None in "General" (or a chat without topics) yet: the chat's last one,
            # whichever topic it was played in ("General" is where the chat meets).
            games = await call(c.d.service.games_in_chat, place.chat_id, open_only=False,
                               all_topics=True)
    else:
        games = await call(c.d.service.games_of_user, c.user.id, False)
    if c.args and c.args[0].isdecimal():
        wanted = int(c.args[0])
        games = [g for g in games if g.id == wanted]
        if not games and not c.in_group:
            # Any finished game of a group the reader belongs to (its log is public there).
            with contextlib.suppress(ServiceError):
                games = [await call(c.d.service.game_info, wanted)]
    else:
        games = [g for g in games if g.status in ("finished", "aborted")]
    if not games:
        await c.reply(present.no_finished_game(c.tr))
        return
    game = games[0]
    if game.status in OPEN_STATUSES:
        await c.reply(present.error_text(c.tr, "not_over"))
        return
    if c.in_group:
        bv = await call(c.d.service.board, game.id)
        msg = present.log_summary(c.tr, game, bv.view, context.bot.username)
        await c.reply(msg.text, msg.keyboard)
        return
    await send_full_log(c, game)


async def send_full_log(c: Cmd, game: GameInfo) -> None:
    """The game's full log in private, in messages of at most 4096 characters; only to a
    player of the game or a member of its group (where its summary was offered)."""
    if game.seat_of(c.user.id) is None and not await _member_of(c, game.chat_id):
        await c.reply(present.log_not_yours(c.tr))
        return
    try:
        moves = await call(c.d.service.history, game.id)
    except ServiceError as e:
        await c.reply(service_error_text(c.tr, e))
        return
    for part in present.game_log(c.tr, game, moves):
        await c.reply(part)


async def _member_of(c: Cmd, chat_id: int) -> bool:
    """Whether the sender is in that group now (Telegram asked; False if it cannot say)."""
    try:
        member = await c.context.bot.get_chat_member(chat_id, c.user.id)
    except TelegramError:
        return False
    return member.status in (ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR,
                             ChatMemberStatus.MEMBER) or (
        member.status == ChatMemberStatus.RESTRICTED and bool(getattr(member, "is_member", False)))


async def start_log(c: Cmd, payload: str) -> bool:
    """``/start log<id>`` (the button under a group's ``/log``): that game's full log.
    False if the payload is not a log link."""
    number = payload.removeprefix("log")
    if not payload.startswith("log") or not number.isdecimal():
        return False
    try:
        game = await call(c.d.service.game_info, int(number))
    except ServiceError:
        await c.reply(present.no_finished_game(c.tr))
        return True
    if game.status in OPEN_STATUSES:
        await c.reply(present.error_text(c.tr, "not_over"))
        return True
    await send_full_log(c, game)
    return True
