"""New-game notices: the private notice of a new lobby, the answers to ``/notify`` and to
the lobby's 🔔 button (the button itself, and the rematch lobby's line: present/lobby.py).
"""

from __future__ import annotations

from kolkhoz_tg.bot.callbacks import lobby_button
from kolkhoz_tg.i18n import Translator, translator
from kolkhoz_tg.present.hand import where
from kolkhoz_tg.present.keyboard import Button, Message
from kolkhoz_tg.present.lobby import lobby_seat
from kolkhoz_tg.present.rules import rules_line
from kolkhoz_tg.service.payloads import NewLobby
from kolkhoz_tg.service.records import Notification, Scene
from kolkhoz_tg.storage.models import GameStatus


def lobby_notice(note: Notification, scene: Scene) -> Message | None:
    """The private notice of a new lobby to someone who asked for it (``/notify on``), with
    its Join button; None when it no longer holds as it goes out (after their quiet hours,
    say): the game started or was called off, they sit in it, or no seat is left."""
    game, user = scene.game, note.user_id
    if (game.status != GameStatus.LOBBY or user is None or game.seat_of(user) is not None
            or not isinstance(note.payload, NewLobby)):
        return None
    kept = {i.seat for i in game.invitations}
    if not [s for s in game.free_seats if s not in kept]:
        return None
    tr = translator(note.payload.locale or scene.chat_locale)
    _ = tr.gettext
    seats = "  ".join(f"{i + 1}. {lobby_seat(tr, game, i)}" for i in range(game.players))
    lines = [
        "🔔 " + _("A new game is open: {where}.", where=where(tr, game, scene.chat_title)),
        rules_line(tr, game),
        _("Seats: {seats}", seats=seats),
        _("Turn: {time}", time=tr.duration(game.turn_timeout)),
    ]
    keyboard = [[Button(_("Join"), lobby_button(game.id, game.version, "join"))]]
    return Message("\n".join(lines), keyboard)


def notify_answer(tr: Translator, on: bool, can_pm: bool, url: str | None = None) -> Message:
    """What ``/notify`` or the 🔔 button did, and whether the bot can write to them yet
    (``url``: the button that opens the private chat, when it cannot)."""
    _ = tr.gettext
    if not on:
        return Message("🔕 " + _("Done: no more messages about new games here."), [])
    text = "🔔 " + _("Done: when a new game opens here, I will tell you in a private message "
                    "(not in your quiet hours). /notify off stops it.")
    if can_pm:
        return Message(text, [])
    text += " " + _("Open a private chat with me first, or I cannot write to you.")
    keyboard = [[Button("✉️ " + _("Private chat"), url=url)]] if url else []
    return Message(text, keyboard)


def notify_in_private(tr: Translator) -> str:
    """``/notify`` in a private chat: it is said in the group."""
    return tr.gettext("Send /notify on in the group whose new games you want to hear of.")


def notify_usage(tr: Translator) -> str:
    return tr.gettext("/notify on: a private message when a new game opens here; "
                      "/notify off: no more.")


def joined_from_notice(tr: Translator) -> str:
    """The answer to Join tapped on a notice: the seat is theirs; the game is in the group."""
    return tr.gettext("You have a seat. The game starts in the group.")
