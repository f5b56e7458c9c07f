"""Settings commands: ``/lang`` (a chat's or a player's language) and a group's
``/settings`` (the game's rules and clock, the bots' level, the board's style)."""

from __future__ import annotations

from telegram import Update
from telegram.ext import ContextTypes

from kolkhoz_tg import present
from kolkhoz_tg.aiplay import PLAYER_LEVELS
from kolkhoz_tg.bot.context import (
    Cmd,
    Deps,
    call,
    command,
    is_admin,
    service_error_text,
)
from kolkhoz_tg.config import LOCALES
from kolkhoz_tg.i18n import Translator, translator
from kolkhoz_tg.present import settings as say
from kolkhoz_tg.service import BOARD_STYLES, GameInfo, ServiceError


async def cmd_lang(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    c = await command(update, context)
    d, user, chat, args = c.d, c.user, c.chat, c.args
    if len(args) != 1 or args[0].lower() not in LOCALES:
        await c.reply(say.lang_usage(c.tr))
        return
    locale = args[0].lower()
    if c.in_group:
        # The whole chat's language: its admins', or the creator's whose games are the only
        # ones open (never while other people's games are, in their topics or here).
        admin = await is_admin(update, context)
        games = await call(d.service.set_chat_language, chat.id, user.id, locale, admin=admin)
        if games is None:
            await c.reply(say.only_admins_language(c.tr))
            return
        for game in games:
            await d.deliverer.refresh_board(game.id)
    else:
        # The private chat's own messages (a practice game's board) follow the user.
        practice_game = await call(d.service.set_own_language, user.id, chat.id, locale)
        if practice_game is not None:
            await d.deliverer.refresh_board(practice_game.id)
    await c.reply(say.language_set(translator(locale)))


async def cmd_settings(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/settings`` shows the game's settings; ``/settings timeout 12h``,
    ``/settings preset zone``, ``/settings players 3``, ``/settings medals on`` change them."""
    c = await command(update, context, group_language=True, remember=False)
    game = await c.open_game()
    if game is None:
        return
    d, tr, user = c.d, c.tr, c.user
    args = [a.lower() for a in c.args]
    if not args:
        level = await call(d.service.chat_ai_level, c.chat.id)
        await c.reply(say.settings_text(tr, game, level))
        return
    key, values = args[0], args[1:]
    if key == "bots":
        await _set_bot_level(c, game, values)
        return
    if key == "board":
        await _set_board_style(c, game, values)
        return
    if key == "takeback":
        await _set_takeback(c, game, values)
        return
    try:
        if key == "timeout" and len(values) == 1:
            info = await call(d.service.configure, game.id, user.id, turn_timeout=values[0])
        elif key == "reminders" and len(values) == 1:
            info = await call(d.service.configure, game.id, user.id,
                              reminders=[v for v in values[0].split(",") if v])
        elif key == "preset" and len(values) == 1:
            info = await call(d.service.configure_lobby, game.id, user.id, preset=values[0],
                              options={"medals_score": game.rules.medals_score})
        elif key == "players" and len(values) == 1 and values[0].isdecimal():
            info = await call(d.service.configure_lobby, game.id, user.id,
                              players=int(values[0]))
        elif key == "medals" and len(values) == 1 and values[0] in ("on", "off"):
            info = await call(d.service.configure_lobby, game.id, user.id,
                              options={"medals_score": values[0] == "on"})
        else:
            await c.reply(say.settings_usage(tr))
            return
    except ServiceError as e:
        await c.reply(service_error_text(tr, e))
        return
    await d.deliverer.refresh_board(game.id)
    await c.reply(present.rules_line(tr, info))  # the game as the change left it


async def _set_bot_level(c: Cmd, game: GameInfo, values: list[str]) -> None:
    """``/settings bots hard``: the chat's level for stand-ins and for the bots that fill
    empty seats (the game's creator or an admin)."""
    tr = c.tr
    if len(values) != 1 or values[0] not in PLAYER_LEVELS:
        await c.reply(say.bots_usage(tr))
        return
    if not await _may_change_the_chat(c, game):
        return
    await call(c.d.service.set_chat_ai_level, c.chat.id, values[0])
    if game.status == "lobby":
        await c.d.deliverer.refresh_board(game.id)
    await c.reply(say.bots_level(tr, values[0]))


async def _set_board_style(c: Cmd, game: GameInfo, values: list[str]) -> None:
    """``/settings board picture``: the chat's games show their board as a picture (or
    ``text``, or ``rich``: a rich message) from now on (see :func:`_may_change_the_chat`
    for who may); every open game's board is sent again."""
    tr = c.tr
    if len(values) != 1 or values[0] not in BOARD_STYLES:
        await c.reply(say.board_usage(tr))
        return
    if not await _may_change_the_chat(c, game):
        return
    for other in await call(c.d.service.set_board_style, c.chat.id, values[0]):
        await c.d.deliverer.refresh_board(other.id)
    await c.reply(say.board_style_set(tr, values[0]))


async def _set_takeback(c: Cmd, game: GameInfo, values: list[str]) -> None:
    """``/settings takeback off``: no take-backs in the chat's games from now on (``on``
    again: the default); who may, as for the board's style."""
    tr = c.tr
    if len(values) != 1 or values[0] not in ("on", "off"):
        await c.reply(say.takeback_usage(tr))
        return
    if not await _may_change_the_chat(c, game):
        return
    await call(c.d.service.set_chat_takeback, c.chat.id, values[0] == "on")
    await c.reply(say.takeback_set(tr, values[0] == "on"))


async def _may_change_the_chat(c: Cmd, game: GameInfo) -> bool:
    """Whether the sender may change a setting of the whole chat, else False after saying
    why (see :func:`chat_setting_refusal`)."""
    refusal = await chat_setting_refusal(c.update, c.context, c.d, c.tr, game)
    if refusal is not None:
        await c.reply(refusal)
    return refusal is None


async def chat_setting_refusal(
    update: Update, context: ContextTypes.DEFAULT_TYPE, d: Deps, tr: Translator,
    game: GameInfo,
) -> str | None:
    """Why the updating user may not change a setting of the whole chat (the bots' level,
    the board's style) from ``game``, or None if they may. A chat admin may; the creator
    of the game here may while it is the chat's only open game (a forum with several
    games: the change reaches the other games too, so it is the admins')."""
    if await is_admin(update, context):
        return None
    user = update.effective_user
    if user is None or user.id != game.creator_id:
        return present.only_creator_or_admin(tr)
    games = await call(d.service.games_in_chat, game.chat_id, all_topics=True)
    if any(g.id != game.id for g in games):
        return say.whole_chat_setting(tr)
    return None
