"""Managing a game: the lobby's menus (house rules, years, time per move), the /abort
confirmation and /kick's seats, with what is said about them (:mod:`kolkhoz_tg.bot.lobby`)."""

from __future__ import annotations

from kolkhoz_tg import house_rules
from kolkhoz_tg.bot.callbacks import lobby_button
from kolkhoz_tg.i18n import Translator
from kolkhoz_tg.present.keyboard import Button, Keyboard, Message
from kolkhoz_tg.present.rules import preset_title
from kolkhoz_tg.present.words import seat_name
from kolkhoz_tg.service.records import GameInfo

#: The times per move the lobby's *Turn* menu offers (seconds); ``/settings timeout``
#: takes any other.
TIMEOUT_CHOICES = (3600, 4 * 3600, 12 * 3600, 24 * 3600, 48 * 3600, 72 * 3600)

#: Longest name on a /kick button (the seat number goes in front).
KICK_NAME = 16


def house_menu(tr: Translator, game: GameInfo) -> Keyboard:
    """The lobby's keyboard while *House rules* is open: every option of the rules, two a
    row (yes-or-no options as switches, the others showing their value; a tap sets the
    next value, "Years" opens the years), those changed from the preset marked, the way
    back to the preset as it is, and back to the lobby."""
    gid, ver = game.id, game.version
    changed = {field for field, _value in house_rules.changes(game.preset, game.rules)}
    buttons = [
        Button(house_rules.option_button(tr, option, game.rules,
                                                option.field in changed),
                      lobby_button(gid, ver, "years" if option.field == "years"
                                   else f"opt.{i}"))
        for i, option in enumerate(house_rules.OPTIONS)
    ]
    rows = [buttons[i:i + 2] for i in range(0, len(buttons), 2)]
    last = [Button("« " + tr.gettext("Back"), lobby_button(gid, ver, "menu"))]
    if changed and game.preset is not None:
        last.insert(0, Button(
            "↺ " + tr.gettext("As in {preset}", preset=preset_title(tr, game.preset)),
            lobby_button(gid, ver, "preset_as_is")))
    rows.append(last)
    return rows


def years_menu(tr: Translator, game: GameInfo) -> Keyboard:
    """The years a table may choose (the chosen one ticked), five a row, and the way back
    to the house rules."""
    gid, ver = game.id, game.version
    chosen = game.rules.years
    buttons = [Button(("✅ " if n == chosen else "") + str(n),
                             lobby_button(gid, ver, f"yr.{n}"))
               for n in house_rules.YEARS]
    rows = [buttons[i:i + 5] for i in range(0, len(buttons), 5)]
    rows.append([Button("« " + tr.gettext("House rules"),
                               lobby_button(gid, ver, "house"))])
    return rows


def timeout_menu(tr: Translator, game: GameInfo) -> Keyboard:
    """The lobby's keyboard while *Turn* is open: the times per move (the chosen one
    ticked), three a row, and the way back."""
    gid, ver = game.id, game.version
    buttons = [
        Button(("✅ " if seconds == game.turn_timeout else "") + tr.duration(seconds),
                      lobby_button(gid, ver, f"time.{seconds}"))
        for seconds in TIMEOUT_CHOICES
    ]
    rows = [buttons[i:i + 3] for i in range(0, len(buttons), 3)]
    rows.append([Button("« " + tr.gettext("Back"), lobby_button(gid, ver, "menu"))])
    return rows


def kick_keyboard(tr: Translator, game: GameInfo, by_user: int) -> Keyboard:
    """One button per seat that /kick (sent by ``by_user``) can act on: in the lobby every
    taken seat but the creator's, in a running game every player no bot stands in for yet;
    never the sender's own (see :func:`_spared`)."""
    buttons = []
    for s in game.seats:
        if kick_spared(game, s.seat, by_user) or (
                game.status != "lobby" and (s.is_ai or s.standin)):
            continue
        name = seat_name(tr, game, s.seat)
        if len(name) > KICK_NAME:
            name = name[: KICK_NAME - 1] + "…"
        buttons.append(Button(f"{s.seat + 1}. {name}",
                                     lobby_button(game.id, game.version, f"kick.{s.seat}")))
    return [buttons[i:i + 2] for i in range(0, len(buttons), 2)]


def kick_spared(game: GameInfo, seat: int, by_user: int) -> bool:
    """Whether the /kick buttons shown to ``by_user`` leave ``seat`` out: their own seat
    (they /leave, or have a bot play for them with /away), and in the lobby the creator's
    (the game is theirs). ``/kick N`` typed still acts on it."""
    user_id = next((s.user_id for s in game.seats if s.seat == seat), None)
    return user_id is not None and (
        user_id == by_user or (user_id == game.creator_id and game.status == "lobby"))


def kicked_text(tr: Translator, game: GameInfo, seat: int) -> str:
    """/kick done: the lobby seat is free, or a bot plays the running game's seat."""
    name = seat_name(tr, game, seat)
    if game.status == "lobby":
        return tr.gettext("Seat {n} is free again ({name} left it).", n=seat + 1, name=name)
    return tr.gettext("A bot now plays for {name} until they are back.", name=name)


def only_creator_timeout(tr: Translator) -> str:
    return tr.gettext("Only the game's creator may change the time per move.")


def only_creator_rules(tr: Translator) -> str:
    return tr.gettext("Only the game's creator may change the rules.")


def already_started(tr: Translator) -> str:
    return tr.gettext("The game has already started.")


def abort_question(tr: Translator, game: GameInfo, kind: str) -> Message:
    """/abort: the confirmation, its buttons naming the state (``kind``) it was asked in."""
    return Message(tr.gettext("Call the game off for everyone? This cannot be undone."), [[
        Button(tr.gettext("Yes, call it off"),
               lobby_button(game.id, game.version, f"abort.{kind}")),
        Button(tr.gettext("No, play on"), lobby_button(game.id, game.version, "abort.n")),
    ]])


def abort_declined(tr: Translator) -> str:
    return tr.gettext("The game goes on.")


def abort_stale(tr: Translator) -> str:
    """A confirmation tapped after the game changed: what the tapper is told."""
    return tr.gettext("The game has changed since: send /abort again if you still want to.")


def abort_stale_done(tr: Translator) -> str:
    """What the stale confirmation message then says."""
    return tr.gettext("Not called off: the game had changed.")


def aborted(tr: Translator) -> str:
    return tr.gettext("The game was called off.")


def kick_usage(tr: Translator, players: int) -> str:
    return tr.gettext("Usage: /kick N, where N is the seat number (1-{n}).", n=players)


def nobody_to_kick(tr: Translator) -> str:
    return tr.gettext("There is nobody to kick.")


def whose_seat(tr: Translator) -> str:
    return tr.gettext("Whose seat? Tap a name:")


def kick_stale(tr: Translator) -> str:
    return tr.gettext("The game has changed since: send /kick again.")
