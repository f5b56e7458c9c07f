"""Command handlers: the lobby, the game's commands, typed moves, language and settings."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from telegram import Chat, Update, User
from telegram.constants import ChatMemberStatus
from telegram.error import TelegramError
from telegram.ext import ContextTypes
from telegram.helpers import create_deep_linked_url

from engine import PRESETS
from kolkhoz_tg import texts
from kolkhoz_tg.bot import practice, render
from kolkhoz_tg.bot.callbacks import practice_button
from kolkhoz_tg.bot.context import (
    Deps,
    Place,
    act_later,
    call,
    current_game,
    deps,
    group_tr,
    is_admin,
    is_group,
    perform,
    place_of,
    remember_user,
    reply,
    result_text,
    service_error_text,
)
from kolkhoz_tg.bot.delivery import ABSENT_KEY, TOPIC_LOST_KEY, Acting, pm_key
from kolkhoz_tg.bot.practice import PRACTICE_PAYLOAD
from kolkhoz_tg.bot.topics import (
    HERE,
    bring_here,
    game_to_resume,
    may_open_topics,
    open_topic,
    topic_link,
)
from kolkhoz_tg.bot.typed import TypedError, parse_typed
from kolkhoz_tg.botplay import PLAYER_LEVELS
from kolkhoz_tg.config import LOCALES
from kolkhoz_tg.i18n import Translator, translator
from kolkhoz_tg.service import (
    BOARD_STYLES,
    ActStatus,
    Busy,
    GameInfo,
    ServiceError,
)

log = logging.getLogger(__name__)

# ---------------------------------------------------------------------- commands

RULES_PAYLOAD = "rules"
#: Games whose log would still tell hidden cards (swaps, the cards dealt).
OPEN_STATUSES = frozenset({"lobby", "active", "paused"})
TIMEOUT_CHOICES = (3600, 4 * 3600, 12 * 3600, 24 * 3600, 48 * 3600, 72 * 3600)


@dataclass(frozen=True, slots=True)
class Cmd:
    """A command being handled: the application's dependencies, the translator to answer
    in, who sent it and where; what every command starts from (see :func:`command`)."""

    update: Update
    context: ContextTypes.DEFAULT_TYPE
    d: Deps
    tr: Translator
    user: User
    chat: Chat

    @property
    def in_group(self) -> bool:
        return is_group(self.update)

    @property
    def args(self) -> list[str]:
        return self.context.args or []

    @property
    def place(self) -> Place:
        """The chat and forum topic the command was sent in."""
        place = place_of(self.update)
        assert place is not None
        return place

    async def reply(self, text: str, keyboard: render.Keyboard | None = None) -> None:
        await reply(self.update, text, keyboard)

    async def open_game(self, *, group_only: bool = True) -> GameInfo | None:
        """The open game here — the group's; with ``group_only`` off, in private the user's
        game that waits for them — or None after saying there is none."""
        game = (await current_game(self.update, self.d)
                if self.in_group or not group_only else None)
        if game is None:
            await self.reply(self.tr.gettext(
                "There is no open game here. Start one with /newgame."))
        return game

    async def game_in_play(
        self, *, seated: bool, started: bool = True, finished: bool = False
    ) -> GameInfo | None:
        """The game here (:func:`~kolkhoz_tg.bot.context.current_game`) if it has
        ``started`` and, when asked, the sender has a seat in it (with ``finished``, in a
        group with none in play, the chat's last finished game); else None after saying
        they have no game in play here."""
        game = await current_game(self.update, self.d)
        if finished and self.in_group and (game is None or game.status == "lobby"):
            place = self.place
            done = [g for g in await call(self.d.service.games_in_chat, place.chat_id,
                                          place.topic_id, False)
                    if g.status == "finished"]
            game = done[0] if done else game
        if (game is None or (started and game.status == "lobby")
                or (seated and game.seat_of(self.user.id) is None)):
            await self.reply(self.tr.gettext("You have no game in play here."))
            return None
        return game


async def command(
    update: Update, context: ContextTypes.DEFAULT_TYPE, *, group_language: bool = False,
    remember: bool = True,
) -> Cmd:
    """Start handling a command. The answer is in the sender's language, recorded with
    their name first (:func:`~kolkhoz_tg.bot.context.remember_user`); with
    ``group_language``, in a group, in the chat's language instead, and the sender is
    recorded only if ``remember``."""
    d = deps(context)
    if group_language and is_group(update):
        if remember:
            await remember_user(update, d)
        tr = await group_tr(update, d)
    else:
        tr = await remember_user(update, d)
    user, chat = update.effective_user, update.effective_chat
    assert user is not None and chat is not None
    return Cmd(update, context, d, tr, user, chat)


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
    if await _start_log(c, payload):
        return
    games = await call(d.service.games_of_user, user.id)
    for game in games:
        if game.status == "lobby":  # the lobby stops naming them as out of reach
            await d.deliverer.refresh_board(game.id)
    wanted = [g for g in games if payload == f"g{g.id}"] or games
    if not wanted:
        await c.reply(c.tr.gettext(
            "Hello! I run slow games of Kolkhoz in group chats. Add me to a group and "
            "send /newgame there. /help lists the commands, /rules explains the game."
        ))
        return
    for game in wanted[:5]:
        if game.status == "lobby":
            await c.reply(c.tr.gettext(
                "You are in a game that has not started yet. I will send your cards here "
                "when it starts."))
            continue
        await d.deliverer.refresh_private(game.id, user.id, new=True)


async def cmd_help(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    c = await command(update, context, group_language=True, remember=False)
    _ = c.tr.gettext
    lines = [
        "🌾 " + _("Kolkhoz: a slow trick-taking game for 3 to 5 players."),
        _("In the group:"),
        "/newgame — " + _("open a new game (optionally: /newgame zone 3)"),
        "/join, /leave, /addbot, /go — " + _("take a seat, leave, add a bot, start"),
        "/board — " + _("show the board again"),
        "/last — " + _("the last trick"),
        "/score — " + _("points in sight"),
        "/settings — " + _("rules, players, time limit"),
        "/pause, /resume, /abort, /kick — " + _("for the creator and admins"),
        _("Anywhere:"),
        "/play 10H, /play 10ч, /assign 10H S, /trump ♠, /swap 9H KC — " + _("typed moves"),
        "/hand — " + _("your cards (in private)"),
        "/practice — " + _("a practice game against bots, in private, with hints"),
        "/back — " + _("take your seat back from the bot"),
        "/lang ru|en — " + _("language"),
        "/rules — " + _("the rules"),
        "",
        render.levels_help(c.tr),
    ]
    await c.reply("\n".join(lines))


async def cmd_rules(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """In a group, the rules in brief with a button to the full rules in private (several
    long messages would flood the chat); in private, the full rules for players."""
    c = await command(update, context, group_language=True, remember=False)
    # Reading is one way to learn; playing is the other: a practice game, in private.
    username = context.bot.username
    if c.in_group:
        try_it = render.Button("🎓 " + c.tr.gettext("Play a practice game"),
                               url=create_deep_linked_url(username, PRACTICE_PAYLOAD))
    else:
        try_it = render.Button("🎓 " + c.tr.gettext("Play a practice game"),
                               practice_button(0, 0, "menu"))
    full = None if c.in_group else render.full_rules(c.tr.locale)
    if full:
        for i, part in enumerate(full):
            await c.reply(part, [[try_it]] if i == len(full) - 1 else None)
        return
    summary = rules_text(c.tr)
    buttons = [[try_it]]
    if c.in_group:
        buttons.insert(0, [render.Button("📜 " + c.tr.gettext("The full rules"),
                                         url=create_deep_linked_url(username, RULES_PAYLOAD))])
    for i, part in enumerate(summary):
        await c.reply(part, buttons if i == len(summary) - 1 else None)


def rules_text(tr: Translator) -> list[str]:
    """The rules in brief, true for every preset (the full rules are docs/RULES*.md)."""
    _ = tr.gettext
    return [
        "📜 " + _("Kolkhoz in brief") + "\n\n" + _(
            "Five years of the plan. Every year each player gets 5 cards (fewer when the "
            "deck runs low, or in a famine or a short last year: a lean year, without trump). "
            "The Planner names the trump. Follow suit if you can. Who takes the trick depends "
            "on the rules: usually the highest trump, or else the highest card of the led "
            "suit; in the Original rules trump never wins, the highest card of the led suit "
            "always does."
        ) + "\n\n" + _(
            "The trick's winner is the Brigadier: they put each card of the trick on a job "
            "(♥ ♦ ♣ ♠). Workers 6-10 give their value in hours, J 11, Q 12, K 13. A job that "
            "reaches the threshold (40 hours, 36 in the Original rules) is done, and the "
            "Brigadier gets its reward: the reward cards, in some rules the workers "
            "themselves, or nothing at all."
        ) + "\n\n" + _(
            "Your last card of the year goes face-down into your plot. For every job that "
            "failed, the Brigadiers (in some rules everyone) are searched: depending on the "
            "rules they show all their cards of that suit, only the highest one, or their "
            "whole plot. Then each of them loses their highest card of that suit to the "
            "North, or in some rules only the single highest card of all goes. Shown cards "
            "stay face-up to the end. The trump Jack, Queen and King change that: the Jack "
            "is sent north instead, the Queen exposes everyone, the King doubles the loss."
        ) + "\n\n" + _(
            "At the end, the cards in your plot are your points. The full rules for players "
            "are in the project's docs/RULES.md."
        )
    ]


async def cmd_practice(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/practice [rules] [players]``: in private, the level buttons of a new practice game
    (or, with one open, the choice to go on with it or start afresh:
    :mod:`kolkhoz_tg.bot.practice`); in a group, a polite pointer to the private chat."""
    c = await command(update, context)
    if c.in_group:
        await c.reply(
            c.tr.gettext("Practice games are played in our private chat, where nobody "
                         "waits for you and a 💡 hint is at hand."),
            [[render.Button("🎓 " + c.tr.gettext("Practice in private"),
                            url=create_deep_linked_url(context.bot.username,
                                                       PRACTICE_PAYLOAD))]])
        return
    await call(c.d.service.set_can_pm, c.user.id, True)
    parsed = practice.parse_args(c.args)
    if isinstance(parsed, str):
        await c.reply(practice.bad_args_text(c.tr, parsed))
        return
    await practice.offer(update, context, c.tr, *parsed)


async def cmd_newgame(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/newgame [preset] [players]``: a lobby here; in a forum's "General", in a topic of
    its own when the bot may open one (``/newgame here``: in "General" all the same)."""
    c = await command(update, context)
    d, chat, user, place = c.d, c.chat, c.user, c.place
    if not c.in_group:
        await c.reply(c.tr.gettext("Start a game in a group chat: add me there."))
        return
    await call(d.service.ensure_chat, chat.id, chat.title)
    info = await call(d.service.chat, chat.id)
    if info is not None and info.locale is None:
        creator = await call(d.service.locale_for, user.id, None, user.language_code)
        await call(d.service.set_chat_locale, chat.id, creator)
    tr = await group_tr(update, d)  # the chat's language, settled just now
    args = [a.lower() for a in c.args]
    general = bool(chat.is_forum) and place.topic_id is None
    own_topic = general and not HERE.intersection(args) and await may_open_topics(
        context, chat)
    if not own_topic:
        open_games = await call(d.service.games_in_chat, place.chat_id, place.topic_id)
        if open_games:
            await c.reply(tr.gettext("This topic already has a game: see the board below.")
                          if place.topic_id is not None else
                          tr.gettext("This chat already has a game: see the board below."))
            await d.deliverer.refresh_board(open_games[0].id, resend=True)
            return
    preset_name: str | None = None
    players = 4
    for arg in args:
        if arg in PRESETS:
            preset_name = arg
        elif arg.isdigit():
            players = int(arg)
    try:
        game = await call(d.service.create_game, chat.id, user.id, topic_id=place.topic_id,
                          creator_name=user.full_name, preset=preset_name, players=players)
    except ServiceError as e:
        await c.reply(service_error_text(tr, e))
        return
    if own_topic:
        game = await open_topic(context, d, tr, game)
    await d.deliverer.refresh_board(game.id, resend=True)
    if game.topic_id is not None and game.topic_id != place.topic_id:
        link = topic_link(game.chat_id, game.topic_id)
        await c.reply(tr.gettext("Game #{id} has a topic of its own: join it there.",
                                 id=game.id),
                      [[render.Button("🧵 " + tr.gettext("Open the topic"), url=link)]]
                      if link else None)
    elif general and not own_topic and not HERE.intersection(args):
        await c.reply(tr.gettext(
            "Tip: give me the right to manage topics, and each game gets a topic of its "
            "own."))


async def lobby_op(
    update: Update, context: ContextTypes.DEFAULT_TYPE, game_id: int, op: str
) -> str | None:
    """Do a lobby operation for the updating user; returns an error text or None."""
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
            await call(svc.add_bot, game_id, user.id)
        elif op == "start":
            result = await call(svc.start, game_id, user.id, True)
            await d.deliverer.deliver(result.notifications)
            return None
        elif op == "players":
            info = await call(svc.game_info, game_id)
            await call(svc.configure_lobby, game_id, user.id,
                       players=3 + (info.players - 2) % 3)
        elif op == "medals":
            info = await call(svc.game_info, game_id)
            await call(svc.configure_lobby, game_id, user.id,
                       options={"medals_score": not info.rules.get("medals_score")})
        elif op == "timeout":
            info = await call(svc.game_info, game_id)
            later = [t for t in TIMEOUT_CHOICES if t > info.turn_timeout]
            await call(svc.configure, game_id, user.id,
                       turn_timeout=later[0] if later else TIMEOUT_CHOICES[0])
        else:
            return tr.gettext("That button is not mine.")
    except ServiceError as e:
        return service_error_text(tr, e)
    await d.deliverer.refresh_board(game_id)
    return None


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
            await c.reply(c.tr.gettext(
                "You are in. Open a private chat with me, or your cards cannot reach you:"),
                [[render.Button("✉️ " + c.tr.gettext("Private chat"),
                                url=render.deep_link(context.bot.username, game.id))]])


async def cmd_board(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    c = await command(update, context)
    game = await c.open_game(group_only=False)
    if game is None:
        return
    d = c.d
    if c.in_group:
        # A board sent anew is pinned like the first one (a lobby is not: it is not a board).
        await d.deliverer.refresh_board(game.id, resend=True, pin=game.status != "lobby")
    elif game.practice and game.chat_id == c.chat.id:
        # A practice game's board lives here: sent anew at the bottom, the old one goes.
        await d.deliverer.refresh_board(game.id, resend=True)
    else:
        bv = await call(d.service.board, game.id)
        msg = render.board(c.tr, bv, d.service.clock.now(), context.bot.username)
        await c.reply(msg.text)


async def cmd_hand(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    c = await command(update, context)
    game = await c.game_in_play(seated=True)
    if game is None:
        return
    tr = c.tr
    sent = await c.d.deliverer.refresh_private(game.id, c.user.id, new=True)
    if c.in_group and sent:
        await c.reply(tr.gettext("I have sent your cards to our private chat."))
    elif c.in_group:
        await c.reply(tr.gettext("Open a private chat with me first:"),
                      [[render.Button("✉️ " + tr.gettext("Open my cards"),
                                      url=render.deep_link(context.bot.username, game.id))]])


async def _public_reply(
    update: Update, context: ContextTypes.DEFAULT_TYPE,
    text: Callable[[Translator, GameInfo, dict[str, Any]], str],
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
    await _public_reply(update, context, render.last_trick)


async def cmd_score(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    await _public_reply(update, context, render.visible_score)


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
    await c.reply(tr.gettext("Welcome back: your seat is yours again.") if back
                  else tr.gettext("Nobody was playing for you; carry on."))


async def creator_command(
    update: Update, context: ContextTypes.DEFAULT_TYPE, what: str
) -> None:
    c = await command(update, context, group_language=True)
    if what == "resume" and c.in_group:
        # A game whose topic was deleted goes on wherever /resume is sent.
        game = await game_to_resume(c.d, c.place)
        if game is None:
            game = await c.open_game()
    else:
        game = await c.open_game()
    if game is None:
        return
    d, tr, user = c.d, c.tr, c.user
    admin = await is_admin(update, context)
    method = {"pause": d.service.pause, "resume": d.service.resume}
    # A pause or resume by hand is the creator's: the game no longer waits for the bot's
    # return to the group (if it ever did) to go on by itself.
    try:
        result = await call(method[what], game.id, user.id, admin,
                            meta={ABSENT_KEY: None, TOPIC_LOST_KEY: None})
    except ServiceError as e:
        await c.reply(service_error_text(tr, e))
        return
    if c.in_group:
        await bring_here(d, game, c.place)
    await d.deliverer.deliver(result.notifications)
    await d.deliverer.refresh_board(game.id)
    done = {
        "pause": tr.gettext("The game is paused; the clock has stopped."),
        "resume": tr.gettext("The game goes on; the clock runs again."),
    }
    await c.reply(done[what])


async def cmd_lang(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    c = await command(update, context)
    d, user, chat, args = c.d, c.user, c.chat, c.args
    if len(args) != 1 or args[0].lower() not in LOCALES:
        await c.reply(c.tr.gettext("Usage: /lang ru or /lang en"))
        return
    locale = args[0].lower()
    if c.in_group:
        games = await call(d.service.games_in_chat, chat.id, all_topics=True)
        creators = {g.creator_id for g in games}
        if not (await is_admin(update, context) or user.id in creators or not games):
            await c.reply(c.tr.gettext("Only the chat's admins may change its language."))
            return
        await call(d.service.set_chat_locale, chat.id, locale)
        for game in games:
            await d.deliverer.refresh_board(game.id)
    else:
        await call(d.service.set_user_locale, user.id, locale)
        # The private chat's own messages (a practice game's board) follow the user.
        await call(d.service.set_chat_locale, chat.id, locale)
        practice_game = await call(d.service.practice_game, user.id)
        if practice_game is not None:
            await d.deliverer.refresh_board(practice_game.id)
    await c.reply(translator(locale).gettext("Language: English"))


async def cmd_settings(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/settings`` shows the game's settings; ``/settings timeout 12h``,
    ``/settings preset zone``, ``/settings players 3``, ``/settings medals on`` change them."""
    c = await command(update, context, group_language=True, remember=False)
    game = await c.open_game()
    if game is None:
        return
    d, tr, user = c.d, c.tr, c.user
    args = [a.lower() for a in c.args]
    usage = tr.gettext(
        "Change with: /settings preset NAME · players 3-5 · timeout 12h · "
        "medals on|off · reminders 50%,1h · bots normal|strong|hard · board text|picture"
    )
    if not args:
        level = await call(d.service.chat_bot_level, c.chat.id)
        await c.reply(render.rules_line(tr, game) + "\n" + tr.gettext(
            "Stand-ins and the bots that fill empty seats play at the level: {level}.",
            level=render.level_name(tr, level)) + "\n" + usage)
        return
    key, values = args[0], args[1:]
    if key == "bots":
        await _set_bot_level(c, game, values)
        return
    if key == "board":
        await _set_board_style(c, game, values)
        return
    try:
        if key == "timeout" and len(values) == 1:
            await call(d.service.configure, game.id, user.id, turn_timeout=values[0])
        elif key == "reminders" and len(values) == 1:
            await call(d.service.configure, game.id, user.id,
                       reminders=[v for v in values[0].split(",") if v])
        elif key == "preset" and len(values) == 1:
            await call(d.service.configure_lobby, game.id, user.id, preset=values[0],
                       options={"medals_score": bool(game.rules.get("medals_score"))})
        elif key == "players" and len(values) == 1 and values[0].isdigit():
            await call(d.service.configure_lobby, game.id, user.id, players=int(values[0]))
        elif key == "medals" and len(values) == 1 and values[0] in ("on", "off"):
            await call(d.service.configure_lobby, game.id, user.id,
                       options={"medals_score": values[0] == "on"})
        else:
            await c.reply(usage)
            return
    except ServiceError as e:
        await c.reply(service_error_text(tr, e))
        return
    await d.deliverer.refresh_board(game.id)
    info = await call(d.service.game_info, game.id)
    await c.reply(render.rules_line(tr, info))


async def _set_bot_level(c: Cmd, game: GameInfo, values: list[str]) -> None:
    """``/settings bots hard``: the chat's level for stand-ins and for the bots that fill
    empty seats (the game's creator or an admin)."""
    tr = c.tr
    if len(values) != 1 or values[0] not in PLAYER_LEVELS:
        await c.reply(tr.gettext("Usage: /settings bots normal|strong|hard") + "\n"
                      + render.levels_help(tr))
        return
    if c.user.id != game.creator_id and not await is_admin(c.update, c.context):
        await c.reply(tr.gettext("Only the game's creator and the chat's admins may do that."))
        return
    await call(c.d.service.set_chat_bot_level, c.chat.id, values[0])
    if game.status == "lobby":
        await c.d.deliverer.refresh_board(game.id)
    await c.reply(tr.gettext(
        "Stand-ins and the bots that fill empty seats play at the level: {level}.",
        level=render.level_name(tr, values[0])))


async def _set_board_style(c: Cmd, game: GameInfo, values: list[str]) -> None:
    """``/settings board picture``: the chat's games show their board as a picture (or
    ``text``) from now on (the game's creator or an admin); the board is sent again."""
    tr = c.tr
    if len(values) != 1 or values[0] not in BOARD_STYLES:
        await c.reply(tr.gettext("Usage: /settings board text|picture"))
        return
    if c.user.id != game.creator_id and not await is_admin(c.update, c.context):
        await c.reply(tr.gettext("Only the game's creator and the chat's admins may do that."))
        return
    await call(c.d.service.set_board_style, c.chat.id, values[0])
    await c.d.deliverer.refresh_board(game.id)
    if values[0] == "picture":
        await c.reply(tr.gettext("The board is shown as a picture from now on."))
    else:
        await c.reply(tr.gettext("The board is shown as text from now on."))


TYPED = ("play", "assign", "trump", "swap")


async def cmd_typed(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/play 10H``, ``/assign 10H S``, ``/trump ♠``, ``/swap 9H KC``."""
    c = await command(update, context)
    message = update.effective_message
    assert message is not None and message.text is not None
    name = message.text.split()[0].lstrip("/").split("@")[0].lower()
    args = message.text.partition(" ")[2]
    _ = c.tr.gettext
    if name == "swap" and c.in_group:
        # A swap names a face-down plot card: never in the group.
        await c.reply(_("Swaps are secret: send /swap to me in private."))
        return
    try:
        action = parse_typed(name, args)
    except TypedError as e:
        usage = {
            "play": _("Usage: /play 10H (suits: H D C S, ♥ ♦ ♣ ♠ or ч б т п; ranks J Q K A "
                      "or В Д К Т)"),
            "assign": _("Usage: /assign 10H S (card, then the job's suit)"),
            "trump": _("Usage: /trump ♠ (or S, п, пики)"),
            "swap": _("Usage: /swap 9H KC (hand card, then plot card) or /swap pass"),
        }[name]
        if e.code == "bad_card":
            await c.reply(_("I do not know the card «{text}».", text=e.text) + "\n" + usage)
        elif e.code == "bad_suit":
            await c.reply(_("I do not know the suit «{text}».", text=e.text) + "\n" + usage)
        else:
            await c.reply(usage)
        return
    # In the lobby too: the service then says the game is not running yet.
    game = await c.game_in_play(seated=True, started=False)
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
        await c.reply(_("Saving is slow right now: your move will be made in a moment."))
        context.application.create_task(
            act_later(update, context, game.id, action, None, acting), update=update)
        return
    if not result.ok:
        await c.reply(result_text(c.tr, result))


async def cmd_stats(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/stats``: in a group, the chat's rating table (rating, games, wins, average place;
    bots per level too); in private, the player's own lines. ``/stats me``: the player's
    rating over all chats and per chat (in a group, only this chat's line besides)."""
    c = await command(update, context, group_language=True, remember=False)
    me = bool(c.args) and c.args[0].lower() in ("me", "я")
    if c.in_group and not me:
        table = await call(c.d.service.chat_ratings, c.chat.id)
        await c.reply(render.chat_ratings(c.tr, table))
        return
    lines = await call(c.d.service.user_ratings, c.user.id)
    if c.in_group:
        # Other groups' names stay out of this one.
        lines = [x for x in lines if x.chat_id in (None, c.chat.id)]
    await c.reply(render.player_ratings(c.tr, lines, c.user.full_name))


async def cmd_log(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/log``: the last finished game (``/log N`` for game N). In a group, a few lines
    with a button that opens the full log in private (a log is hundreds of lines); in
    private, the full log, move by move, of the player's last finished game."""
    c = await command(update, context, group_language=True, remember=False)
    if c.in_group:
        place = c.place
        games = await call(c.d.service.games_in_chat, place.chat_id, place.topic_id, False)
        if not any(g.status in ("finished", "aborted") for g in games):
            # None here yet: the chat's last one, whichever topic it was played in.
            games = await call(c.d.service.games_in_chat, place.chat_id, open_only=False,
                               all_topics=True)
    else:
        games = await call(c.d.service.games_of_user, c.user.id, False)
    if c.args and c.args[0].isdigit():
        wanted = int(c.args[0])
        games = [g for g in games if g.id == wanted]
        if not games and not c.in_group:
            # Any finished game of a group the reader belongs to (its log is public there).
            with contextlib.suppress(ServiceError):
                games = [await call(c.d.service.game_info, wanted)]
    else:
        games = [g for g in games if g.status in ("finished", "aborted")]
    if not games:
        await c.reply(c.tr.gettext("No finished game here yet."))
        return
    game = games[0]
    if game.status in OPEN_STATUSES:
        await c.reply(texts.error_text(c.tr, "not_over"))
        return
    if c.in_group:
        bv = await call(c.d.service.board, game.id)
        msg = render.log_summary(c.tr, game, bv.view, context.bot.username)
        await c.reply(msg.text, msg.keyboard)
        return
    await send_full_log(c, game)


async def send_full_log(c: Cmd, game: GameInfo) -> None:
    """The game's full log in private, in messages of at most 4096 characters; only to a
    player of the game or a member of its group (where its summary was offered)."""
    if game.seat_of(c.user.id) is None and not await _member_of(c, game.chat_id):
        await c.reply(c.tr.gettext("That log belongs to a group you are not in."))
        return
    try:
        moves = await call(c.d.service.history, game.id)
    except ServiceError as e:
        await c.reply(service_error_text(c.tr, e))
        return
    for part in render.game_log(c.tr, game, moves):
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


async def _start_log(c: Cmd, payload: str) -> bool:
    """``/start log<id>`` (the button under a group's ``/log``): that game's full log.
    False if the payload is not a log link."""
    number = payload.removeprefix("log")
    if not payload.startswith("log") or not number.isdigit():
        return False
    try:
        game = await call(c.d.service.game_info, int(number))
    except ServiceError:
        await c.reply(c.tr.gettext("No finished game here yet."))
        return True
    if game.status in OPEN_STATUSES:
        await c.reply(texts.error_text(c.tr, "not_over"))
        return True
    await send_full_log(c, game)
    return True
