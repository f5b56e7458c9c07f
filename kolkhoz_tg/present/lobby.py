"""The lobby: who sits where, the rules it opens with, the buttons to join, start and
change the settings, and its rules and level menus.
"""

from __future__ import annotations

from kolkhoz_tg.aiplay import PLAYER_LEVELS
from kolkhoz_tg.bot.callbacks import lobby_button
from kolkhoz_tg.i18n import Translator
from kolkhoz_tg.present.keyboard import Button, Keyboard, Message
from kolkhoz_tg.present.rules import PRESET_ORDER, preset_button, preset_description, rules_line
from kolkhoz_tg.present.words import deep_link, level_name, seat_name
from kolkhoz_tg.service.records import GameInfo


def lobby_seat(tr: Translator, game: GameInfo, seat: int) -> str:
    """A seat in the lobby: the player, a bot with its level, a rematch's player still to
    answer (⏳), or a dash."""
    kept = next((i.name for i in game.invitations if i.seat == seat), None)
    if kept is not None:
        return f"{kept} ⏳"
    if seat in game.free_seats:
        return "—"
    name = seat_name(tr, game, seat)
    info = next((s for s in game.seats if s.seat == seat), None)
    if info is not None and info.is_ai:
        name += f" ({level_name(tr, info.level).lower()})"
    return name


def lobby_message(
    tr: Translator, game: GameInfo, unreachable: list[str] | None = None,
    bot_username: str | None = None, standin_level: str | None = None,
) -> Message:
    """The lobby message: rules (with a line on the chosen preset), seats (bots with their
    level), who the bot cannot write to yet (with the button that opens the private chat),
    and the buttons (``standin_level``: the chat's level for stand-ins, when known)."""
    _ = tr.gettext
    seats = "  ".join(f"{i + 1}. {lobby_seat(tr, game, i)}" for i in range(game.players))
    lines = [
        "🌾 " + _("Kolkhoz — a new five-year plan"),
        rules_line(tr, game),
    ]
    about = preset_description(tr, game.preset)
    if about:
        lines.append("📜 " + about)
    lines.append(_("Seats: {seats}", seats=seats))
    if game.status == "aborted":
        lines.append(_("The game was called off."))
        return Message("\n".join(lines), [])
    again = rematch_line(tr, game)
    if again:
        lines.append(again)
    if unreachable:
        lines.append("✉️ " + _("I cannot write to {names} yet: open a private chat with me "
                              "(the button below), or your cards cannot reach you.",
                              names=", ".join(unreachable)))
    lines.append(_("Join, add bots, then start. Your cards come to you in a private chat."))
    gid, ver = game.id, game.version
    keyboard = [
        [
            Button(_("Join"), lobby_button(gid, ver, "join")),
            Button(_("Leave"), lobby_button(gid, ver, "leave")),
            Button(_("+ Bot"), lobby_button(gid, ver, "bot")),
        ],
        [
            Button(_("Rules ▾"), lobby_button(gid, ver, "rules")),
            Button("⚙ " + _("House rules"), lobby_button(gid, ver, "house")),
        ],
        [
            Button(_("Players: {n}", n=game.players), lobby_button(gid, ver, "players")),
            Button(_("Turn: {time}", time=tr.duration(game.turn_timeout)),
                   lobby_button(gid, ver, "timeout")),
        ],
        [
            Button(("✅ " if game.rules.medals_score else "▫️ ") + _("Medals score"),
                   lobby_button(gid, ver, "medals")),
        ],
    ]
    start = Button(_("Start ▶"), lobby_button(gid, ver, "start"))
    if standin_level is not None:
        keyboard[3].append(Button(
            "🤖 " + _("Stand-in: {level}", level=level_name(tr, standin_level).lower()),
            lobby_button(gid, ver, "standin")))
    if unreachable and bot_username:
        keyboard.append([Button("✉️ " + _("Private chat"),
                                url=deep_link(bot_username, gid))])
    keyboard.append([notify_button(tr, game)])
    # Start last, on a row of its own when the row above is full (two wide buttons are
    # what a phone's row holds).
    if standin_level is not None or unreachable:
        keyboard.append([start])
    else:
        keyboard[3].append(start)
    return Message("\n".join(lines), keyboard)


def lobby_rules_menu(tr: Translator, game: GameInfo) -> Keyboard:
    """The lobby's keyboard while "Rules ▾" is open: the five presets (the chosen one
    ticked), two a row, and the way back."""
    gid, ver = game.id, game.version
    buttons = [
        Button(("✅ " if name == game.preset else "") + preset_button(tr, name),
               lobby_button(gid, ver, f"set.{name}"))
        for name in PRESET_ORDER
    ]
    buttons.append(Button("« " + tr.gettext("Back"), lobby_button(gid, ver, "menu")))
    return [buttons[i:i + 2] for i in range(0, len(buttons), 2)]


def lobby_level_menu(
    tr: Translator, game: GameInfo, op: str, chosen: str | None = None
) -> Keyboard:
    """The levels to pick after "+ Bot" (``op`` ``bot``) or "Stand-in" (``standin``, the
    chat's level ticked), and the way back."""
    gid, ver = game.id, game.version
    return [
        [Button(("✅ " if level == chosen else "") + level_name(tr, level),
                lobby_button(gid, ver, f"{op}.{level}")) for level in PLAYER_LEVELS],
        [Button("« " + tr.gettext("Back"), lobby_button(gid, ver, "menu"))],
    ]


def rematch_line(tr: Translator, game: GameInfo) -> str | None:
    """A rematch lobby's line on the players of the last game still to answer, or None."""
    names = [i.name for i in game.invitations]
    if not names:
        return None
    return "🔁 " + tr.gettext(
        "A rematch! Waiting for {names}: Join to play again, Leave to sit this one out. "
        "Their seats are kept until they answer or the time per move runs out (at most a "
        "day).", names=", ".join(names))


def notify_button(tr: Translator, game: GameInfo) -> Button:
    """The lobby's 🔔 button: tell the tapper of every new game in this chat (or stop)."""
    return Button("🔔 " + tr.gettext("Tell me about new games here"),
                  lobby_button(game.id, game.version, "notify"))
