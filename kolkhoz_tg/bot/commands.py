"""Command handlers: start, help and rules, practice, the lobby, the game's commands and typed
moves (settings: :mod:`.chat_settings`; stats and logs: :mod:`.history`)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from telegram import Update
from telegram.ext import ContextTypes
from telegram.helpers import create_deep_linked_url

from engine import PRESETS
from engine.views import View
from kolkhoz_tg import house_rules, present
from kolkhoz_tg.bot import history, practice
from kolkhoz_tg.bot.callbacks import practice_button
from kolkhoz_tg.bot.context import (
    Cmd,
    act_later,
    call,
    command,
    current_game,
    deps,
    group_tr,
    is_admin,
    perform,
    service_error_text,
)
from kolkhoz_tg.bot.delivery import ABSENT_KEY, TOPIC_LOST_KEY, Acting, pm_key
from kolkhoz_tg.bot.mygames import MY_GAMES_PAYLOAD, list_button, show_my_games
from kolkhoz_tg.bot.practice import PRACTICE_PAYLOAD
from kolkhoz_tg.bot.topics import (
    HERE,
    TOPIC_CLOSED_KEY,
    bring_here,
    game_in_new_topic,
    game_to_resume,
    may_open_topics,
    open_topic,
    topic_link,
)
from kolkhoz_tg.i18n import Translator, translator
from kolkhoz_tg.moves import TypedError, parse_typed
from kolkhoz_tg.present import commands as say
from kolkhoz_tg.present import practice as lessons
from kolkhoz_tg.present import taps
from kolkhoz_tg.service import (
    ActStatus,
    Busy,
    GameInfo,
    NotAllowed,
    ServiceError,
)

log = logging.getLogger(__name__)

# ---------------------------------------------------------------------- commands

RULES_PAYLOAD = "rules"
#: The ``startgroup`` payload of the "Add me to a group" link (the group's /start then
#: answers with /help, which begins with /newgame).
GROUP_PAYLOAD = "newgame"
#: The numbers of players a game may have, in the order the lobby's button steps through.
PLAYER_COUNTS = (3, 4, 5)


async def cmd_start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    c = await command(update, context)
    d, user = c.d, c.user
    if c.in_group:
        await cmd_help(update, context)
        return
    await call(d.service.set_can_pm, user.id, True)
    payload = c.args[0] if c.args else ""
    if payload == RULES_PAYLOAD:
        await cmd_rules(update, context)
        return
    if payload == PRACTICE_PAYLOAD:
        await practice.offer(update, context, c.tr, "classic", practice.DEFAULT_PLAYERS)
        return
    if await history.start_log(c, payload):
        return
    if payload == MY_GAMES_PAYLOAD:
        await show_my_games(c)
        return
    games = await call(d.service.games_of_user, user.id)
    for game in games:
        if game.status == "lobby":  # the lobby stops naming them as out of reach
            await d.deliverer.refresh_board(game.id)
    wanted = [g for g in games if payload == f"g{g.id}"] or games
    if not wanted:
        msg = say.welcome(
            c.tr, create_deep_linked_url(context.bot.username, GROUP_PAYLOAD, group=True),
            practice_button(0, 0, "menu"))
        msg.keyboard.append(list_button(c.tr))
        await c.reply(msg.text, msg.keyboard)
        return
    for game in wanted[:5]:
        if game.status == "lobby":
            await c.reply(say.lobby_not_started(c.tr))
            continue
        await d.deliverer.refresh_private(game.id, user.id, new=True)


async def cmd_help(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """The commands, in a group with the group's first, in private with the private ones
    first (some, like /settings and /stats, mean one thing here and another there)."""
    c = await command(update, context, group_language=True, remember=False)
    await c.reply(say.help_text(c.tr, c.in_group))


async def cmd_rules(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """In a group, the rules in brief with a button to the full rules in private (several
    long messages would flood the chat); in private, the full rules for players as a table
    of contents (:func:`kolkhoz_tg.present.practice.rules_contents`)."""
    c = await command(update, context, group_language=True, remember=False)
    # Reading is one way to learn; playing is the other: a practice game, in private.
    username = context.bot.username
    if c.in_group:
        try_it = say.practice_button(
            c.tr, url=create_deep_linked_url(username, PRACTICE_PAYLOAD))
    else:
        try_it = say.practice_button(c.tr, data=practice_button(0, 0, "menu"))
        # The full rules are six long messages: one short one with the chapters as
        # buttons instead, each opening in that message.
        contents = lessons.rules_contents(c.tr)
        if contents is not None:
            await c.reply(contents.text, contents.keyboard)
            return
    summary = say.rules_text(c.tr)
    if c.in_group:
        # The game of this place, if its table changed the preset: the rules it is
        # played by, not only the preset's.
        games = await call(c.d.service.games_in_chat, c.place.chat_id, c.place.topic_id)
        if games and house_rules.changes(games[0].preset, games[0].rules):
            summary.append(present.house_rules_text(c.tr, games[0]))
    buttons = [[try_it]]
    if c.in_group:
        buttons.insert(0, [say.full_rules_button(
            c.tr, create_deep_linked_url(username, RULES_PAYLOAD))])
    for i, part in enumerate(summary):
        await c.reply(part, buttons if i == len(summary) - 1 else None)


async def cmd_practice(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/practice [rules] [players]``: in private, the level buttons of a new practice game
    (or, with one open, the choice to go on with it or start afresh:
    :mod:`kolkhoz_tg.bot.practice`); in a group, a polite pointer to the private chat."""
    c = await command(update, context)
    if c.in_group:
        msg = say.practice_in_private(
            c.tr, create_deep_linked_url(context.bot.username, PRACTICE_PAYLOAD))
        await c.reply(msg.text, msg.keyboard)
        return
    await call(c.d.service.set_can_pm, c.user.id, True)
    parsed = practice.parse_args(c.args)
    if isinstance(parsed, str):
        await c.reply(lessons.bad_args_text(c.tr, parsed))
        return
    await practice.offer(update, context, c.tr, *parsed)


async def cmd_newgame(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/newgame [preset] [players] [house rules]``: a lobby here (house rules typed as
    ``pass``, ``hero``, ``medals``, ``years=4``, any option as ``name=value``); in a
    forum's "General", in a topic of its own when the bot may open one (``/newgame
    here``: in "General" all the same)."""
    c = await command(update, context)
    d, chat, user, place = c.d, c.chat, c.user, c.place
    if not c.in_group:
        await c.reply(say.newgame_in_private(c.tr))
        return
    args = [a.lower() for a in c.args]
    general = bool(chat.is_forum) and place.topic_id is None
    own_topic = general and not HERE.intersection(args) and await may_open_topics(
        context, chat)
    preset_name, players, options, bad = _newgame_args(args)
    # The chat recorded, its language settled (the creator's when it has none), the place's
    # open game looked up, and unless there is one (or an argument is a typo) the lobby.
    opening = await call(d.service.open_lobby, place.chat_id, user.id, title=chat.title,
                         creator_name=user.full_name, creator_locale=user.language_code,
                         topic_id=place.topic_id, preset=preset_name, players=players,
                         options=options or None, create=bad is None)
    tr = translator(opening.locale)  # the chat's language, settled just now
    if opening.raced:
        # Someone opened a game here a moment ago.
        if opening.existing is not None:
            await _has_a_game(c, tr, opening.existing)
        return
    if opening.existing is not None and not own_topic:
        await _has_a_game(c, tr, opening.existing)
        return
    if bad is not None:
        # A typo must not open a game of other rules (or players) than asked for.
        await c.reply(lessons.bad_args_text(tr, bad, "newgame"))
        return
    if opening.error is not None:
        await c.reply(service_error_text(tr, opening.error))
        return

    async def create(topic_id: int | None) -> GameInfo:
        return await call(d.service.create_game, chat.id, user.id, topic_id=topic_id,
                          creator_name=user.full_name, preset=preset_name, players=players,
                          options=options or None)

    try:
        if opening.existing is not None:
            # "General" has a game already (one game a place): the new one begins in a
            # topic of its own, or not at all.
            made = await game_in_new_topic(context, tr, chat.id, create)
            if made is None:
                await c.reply(say.no_topic_for_newgame(tr))
                return
            game = made
        else:
            assert opening.game is not None
            game = opening.game
            if own_topic:
                game = await open_topic(context, d, tr, game)
    except ServiceError as e:
        if e.code != "place_taken":
            await c.reply(service_error_text(tr, e))
            return
        # Someone opened a game here a moment ago.
        games = await call(d.service.games_in_chat, place.chat_id, place.topic_id)
        if games:
            await _has_a_game(c, tr, games[0])
        return
    await d.deliverer.refresh_board(game.id, resend=True)
    if game.topic_id is not None and game.topic_id != place.topic_id:
        link = topic_link(game.chat_id, game.topic_id)
        msg = say.game_in_own_topic(tr, game.id, link)
        await c.reply(msg.text, msg.keyboard)
    elif general and not own_topic and not HERE.intersection(args):
        await c.reply(say.topics_tip(tr))


def _newgame_args(args: list[str]) -> tuple[str | None, int, dict[str, Any], str | None]:
    """``/newgame``'s arguments: (preset, players, house rules, the first argument that is
    none of them, or None)."""
    preset_name: str | None = None
    players = 4
    options: dict[str, Any] = {}
    for arg in args:
        option = house_rules.parse_option(arg)
        if arg in PRESETS:
            preset_name = arg
        elif arg.isdecimal() and int(arg) in PLAYER_COUNTS:
            players = int(arg)
        elif option is not None:
            options[option[0]] = option[1]
        elif arg not in HERE:
            return preset_name, players, options, arg
    return preset_name, players, options, None


async def _has_a_game(c: Cmd, tr: Translator, game: GameInfo) -> None:
    """The answer to /newgame where a game is open: there is one, and its board again."""
    await c.reply(say.has_a_game(tr, game))
    await c.d.deliverer.refresh_board(game.id, resend=True)


async def lobby_op(
    update: Update, context: ContextTypes.DEFAULT_TYPE, game_id: int, op: str,
    version: int | None = None,
) -> str | None:
    """Do a lobby operation for the updating user; returns an error text or None.
    ``version``: the game's version the button was drawn at; the operations that a second
    tap would repeat (another bot, the next player count, medals back off) are refused on
    any other, so a double tap acts once."""
    d = deps(context)
    user = update.effective_user
    assert user is not None
    tr = await group_tr(update, d)
    svc = d.service
    try:
        if op == "join":
            await call(svc.join, game_id, user.id, user.full_name)
        elif op == "leave":
            await call(svc.leave, game_id, user.id)
        elif op == "bot":
            await call(svc.add_ai_player, game_id, user.id, version=version)
        elif op == "start":
            result = await call(svc.start, game_id, user.id, True)
            await d.deliverer.deliver(result.notifications)
            return None
        elif op == "players":
            info = await call(svc.game_info, game_id)
            players = next_player_count(info)
            if players is None and user.id == info.creator_id:
                return say.seats_in_the_way_text(tr, info)
            await call(svc.configure_lobby, game_id, user.id,
                       players=players or info.players, version=version)
        elif op == "medals":
            info = await call(svc.game_info, game_id)
            await call(svc.configure_lobby, game_id, user.id,
                       options={"medals_score": not info.rules.medals_score},
                       version=version)
        else:
            return taps.not_my_button(tr)
    except ServiceError as e:
        return service_error_text(tr, e)
    await d.deliverer.refresh_board(game_id)
    return None


def next_player_count(game: GameInfo) -> int | None:
    """The number of players the lobby's button steps to from ``game``'s (3, 4, 5, 3 …),
    skipping those that would drop a taken seat; None when no other number leaves every
    player their seat."""
    needed = max((s.seat + 1 for s in game.seats), default=0)
    at = PLAYER_COUNTS.index(game.players) if game.players in PLAYER_COUNTS else -1
    later = PLAYER_COUNTS[at + 1:] + PLAYER_COUNTS[:at + 1]
    return next((n for n in later if n >= needed and n != game.players), None)


async def group_game_command(
    update: Update, context: ContextTypes.DEFAULT_TYPE, op: str
) -> None:
    c = await command(update, context, group_language=True)
    game = await c.open_game()
    if game is None:
        return
    error = await lobby_op(update, context, game.id, op)
    if error:
        await c.reply(error)
    elif op == "join":
        user = await call(c.d.service.user, c.user.id)
        if user is None or not user.can_pm:  # as a tap on Join: the way to the cards
            msg = say.joined_open_private(
                c.tr, present.deep_link(context.bot.username, game.id))
            await c.reply(msg.text, msg.keyboard)


async def cmd_board(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """The board sent anew (in a group pinned, the old one deleted); after the game, in a
    group, the final board of the last game finished here, as a reply (the board message
    itself stays where it is)."""
    c = await command(update, context, group_language=True)
    d = c.d
    if c.in_group and await current_game(update, d) is None:
        done = await _finished_here(c)
        if done is not None:
            bv = await call(d.service.board, done.id)
            await c.reply(present.board_message(c.tr, bv, d.service.clock.now(),
                                       context.bot.username).text)
            return
    game = await c.open_game(group_only=False)
    if game is None:
        return
    if c.in_group:
        # A board sent anew is pinned like the first one (a lobby is not: it is not a board).
        await d.deliverer.refresh_board(game.id, resend=True, pin=game.status != "lobby")
    elif game.practice and game.chat_id == c.chat.id:
        # A practice game's board lives here: sent anew at the bottom, the old one goes.
        await d.deliverer.refresh_board(game.id, resend=True)
    else:
        bv = await call(d.service.board, game.id)
        msg = present.board_message(c.tr, bv, d.service.clock.now(), context.bot.username)
        await c.reply(msg.text)


async def _finished_here(c: Cmd) -> GameInfo | None:
    """The last game finished in the place (chat and topic) of the command, if any."""
    place = c.place
    games = await call(c.d.service.games_in_chat, place.chat_id, place.topic_id, False)
    return next((g for g in games if g.status == "finished"), None)


async def cmd_hand(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    c = await command(update, context)
    game = await c.game_in_play(seated=True)
    if game is None:
        return
    tr = c.tr
    sent = await c.d.deliverer.refresh_private(game.id, c.user.id, new=True)
    if c.in_group and sent:
        await c.reply(say.hand_sent(tr))
    elif c.in_group:
        msg = say.open_private_first(tr, present.deep_link(context.bot.username, game.id))
        await c.reply(msg.text, msg.keyboard)


async def _public_reply(
    update: Update, context: ContextTypes.DEFAULT_TYPE,
    text: Callable[[Translator, GameInfo, View], str],
) -> None:
    """Answer with something made from the public view of the game here: the one in play,
    or else the chat's last finished game (its final state stays readable)."""
    c = await command(update, context, group_language=True, remember=False)
    game = await c.game_in_play(seated=False, finished=True)
    if game is None:
        return
    bv = await call(c.d.service.board, game.id)
    assert bv.view is not None
    await c.reply(text(c.tr, bv.game, bv.view))


async def cmd_last(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    await _public_reply(update, context, present.last_trick)


async def cmd_score(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    await _public_reply(update, context, present.visible_score)


async def cmd_back(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    c = await command(update, context)
    d, tr, user = c.d, c.tr, c.user
    games = await call(d.service.games_of_user, user.id)
    if c.in_group:
        games = [g for g in games if c.place.holds(g)]
    back = False
    for game in games:
        result = await call(d.service.back, game.id, user.id)
        if result.status is ActStatus.APPLIED:
            back = True
            await d.deliverer.deliver(result.notifications)
    await c.reply(taps.back_text(tr, back))


async def creator_command(
    update: Update, context: ContextTypes.DEFAULT_TYPE, what: str
) -> None:
    c = await command(update, context, group_language=True)
    if what == "resume" and c.in_group:
        # A game whose topic was deleted goes on wherever /resume is sent.
        game = await game_to_resume(c.d, c.place, c.user.id)
        if game is None:
            game = await c.open_game()
    else:
        game = await c.open_game()
    if game is None:
        return
    d, tr, user = c.d, c.tr, c.user
    admin = await is_admin(update, context)
    if what == "resume" and c.in_group and not c.place.holds(game):
        # A game whose topic is gone comes here first (if nothing else is open here).
        if user.id != game.creator_id and not admin:
            await c.reply(service_error_text(tr, NotAllowed("", "not_creator")))
            return
        try:
            await bring_here(d, game, c.place)
        except ServiceError as e:
            await c.reply(service_error_text(tr, e))
            return
        if game.status == "lobby":
            await d.deliverer.refresh_board(game.id, resend=True)
            await c.reply(say.lobby_moved(tr, game.id))
            return
    method = {"pause": d.service.pause, "resume": d.service.resume}
    # A pause or resume by hand is the creator's: the game no longer waits for the bot's
    # return to the group (if it ever did) to go on by itself.
    try:
        result = await call(method[what], game.id, user.id, admin,
                            meta={ABSENT_KEY: None, TOPIC_LOST_KEY: None,
                                  TOPIC_CLOSED_KEY: None})
    except ServiceError as e:
        await c.reply(service_error_text(tr, e))
        return
    await d.deliverer.deliver(result.notifications)
    await d.deliverer.refresh_board(game.id)
    await c.reply(say.paused_or_resumed(tr, what))


TYPED = ("play", "assign", "trump", "swap", "pass")


async def _private_game_for(c: Cmd, action: str) -> GameInfo | None:
    """The game a move typed in private is for: the one of the sender's running games where
    it is legal now; with none, the game that waits for them (which then says why not);
    with several, None after asking them to use the game's own buttons."""
    fits = [game for game, sv in await c.running_seats() if action in sv.legal]
    if len(fits) == 1:
        return fits[0]
    if fits:
        await c.reply(say.move_in_several_games(c.tr))
        return None
    return await c.game_in_play(seated=True, started=False)


async def cmd_typed(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/play 10H``, ``/assign 10H S``, ``/trump ♠``, ``/swap 9H KC``, ``/pass 9H``."""
    c = await command(update, context)
    message = update.effective_message
    assert message is not None and message.text is not None
    name = message.text.split()[0].lstrip("/").split("@")[0].lower()
    args = message.text.partition(" ")[2]
    secret = say.secret_in_group(c.tr, name) if c.in_group else None
    if secret is not None:
        await c.reply(secret)
        return
    try:
        action = parse_typed(name, args)
    except TypedError as e:
        await c.reply(say.typed_error(c.tr, name, e.code, e.text))
        return
    # In the lobby too: the service then says the game is not running yet.
    game = (await c.game_in_play(seated=True, started=False) if c.in_group
            else await _private_game_for(c, action))
    if game is None:
        return
    user = c.user
    acting = None
    pm = game.meta.get(pm_key(user.id))
    if not c.in_group and pm:
        # The private game message shows the new state, as after a tap.
        acting = Acting(user.id, user.id, int(pm))
    try:
        result = await perform(update, context, game.id, action, None, acting)
    except Busy:
        # Another process holds the database: as for a tap, say so once and make the move
        # in the background (at the version current then).
        await c.reply(taps.saving_slow(c.tr))
        context.application.create_task(
            act_later(update, context, game.id, action, None, acting), update=update)
        return
    if not result.ok:
        text = present.result_text(c.tr, result)
        if c.in_group and result.reason in present.HAND_REASONS:
            # Why the move was refused would tell the group about the hand ("you must
            # follow the led suit" says it holds one): that goes to the player alone.
            told = await c.d.deliverer.say_privately(user.id, text)
            text = say.refused_in_group(c.tr, told)
        await c.reply(text)
