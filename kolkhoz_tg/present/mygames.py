"""``/mygames``: every open game of the reader, those where it is their move first (the
longest wait first), then those where others are to move, paused games and lobbies; each
with its place, whose move it is and since when, and the deadline on the reader's clock.
The buttons open each game's board and send the reader's hand message anew.

What only the bot knows (a link to the board message, the callback data of the hand
button, the name of a topic it opened itself) comes in as a :class:`Listing` per game;
nothing here knows Telegram, and nothing here shows a card."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from engine import Phase
from kolkhoz_tg.i18n import Translator
from kolkhoz_tg.present.hand import where
from kolkhoz_tg.present.keyboard import Button, Keyboard, Message
from kolkhoz_tg.present.words import and_list, seat_name
from kolkhoz_tg.service.records import MyGame, MyGames
from kolkhoz_tg.storage.models import GameStatus

#: How many games the list shows at most (each has a row of buttons).
MAX_LISTED = 20


@dataclass(frozen=True, slots=True)
class Listing:
    """What the bot adds to a listed game: a link that opens its board message (None: the
    chat has no such links, or there is no board message), the data of the button that
    sends the reader's hand message anew (None: no hand yet) and the name of the game's
    topic when the service does not know it (a topic the bot opened)."""

    board_url: str | None = None
    hand_data: str | None = None
    topic_name: str | None = None


def my_games(
    tr: Translator, mine: MyGames, now: datetime, listings: Mapping[int, Listing],
) -> Message:
    """The list (see the module's docstring); an empty list says how to begin."""
    _ = tr.gettext
    if not mine.mine and not mine.others:
        return Message(_("You have no open games. Send /newgame in a group to open one, or "
                         "/practice here for a practice game."), [])
    lines: list[str] = []
    keyboard: Keyboard = []
    shown = 0
    if not mine.mine:
        lines.append("👉 " + _("No game waits for your move."))
    for title, games in (
        (tr.ngettext("👉 Your move in {n} game:", "👉 Your move in {n} games:",
                     len(mine.mine)), mine.mine),
        (tr.ngettext("⏳ {n} more game:", "⏳ {n} more games:", len(mine.others))
         if mine.mine else tr.ngettext("⏳ Your game:", "⏳ Your {n} games:",
                                       len(mine.others)), mine.others),
    ):
        if not games:
            continue
        if lines:
            lines.append("")
        lines.append(title)
        for game in games:
            shown += 1
            if shown > MAX_LISTED:
                continue
            listing = listings.get(game.game.id, Listing())
            lines += _game_lines(tr, game, shown, now, mine.zone, listing)
            row = _buttons(tr, game, shown, listing)
            if row:
                keyboard.append(row)
    if shown > MAX_LISTED:
        lines.append(_("… and {n} more.", n=shown - MAX_LISTED))
    return Message("\n".join(lines), keyboard)


def _place(tr: Translator, game: MyGame, listing: Listing) -> str:
    """Where the game is: its chat, and its forum topic by name where known."""
    topic = game.topic_name or listing.topic_name
    if game.game.topic_id is None or game.game.practice or not topic:
        return where(tr, game.game, game.chat_title)
    return tr.gettext('Kolkhoz #{id} in "{chat}", topic "{topic}"', id=game.game.id,
                      chat=game.chat_title or str(game.game.chat_id), topic=topic)


def _game_lines(
    tr: Translator, game: MyGame, number: int, now: datetime, zone: str | None,
    listing: Listing,
) -> list[str]:
    _ = tr.gettext
    lines = [f"{number}. {_place(tr, game, listing)}"]
    info = game.game
    if info.status == GameStatus.LOBBY:
        lines.append("🪑 " + _("Not started yet: {seated} of {players} seats taken.",
                              seated=len(info.seats), players=info.players))
        return lines
    if info.status == GameStatus.PAUSED:
        lines.append("⏸ " + _("The game is paused; the clock has stopped."))
        return lines
    since = tr.relative(game.since, now) if game.since is not None else None
    if game.to_act:
        what = _phase_words(tr, game.phase)
        lines.append("👉 " + (_("Your move ({what}); it came to you {when}.", what=what,
                                when=since) if since else
                              _("Your move ({what}).", what=what)))
        if any(s.seat == game.seat and s.standin for s in info.seats):
            lines.append("🤖 " + _("A bot is playing for you until you are back (/back)."))
        if game.deadline is not None and zone is not None:
            lines.append("⏰ " + _("Time runs out {time} ({when}).",
                                  time=tr.clock(game.deadline, now, zone),
                                  when=tr.relative(game.deadline, now)))
        elif game.deadline is not None:
            lines.append("⏰ " + _("Time runs out {when}.",
                                  when=tr.relative(game.deadline, now)))
        return lines
    names = and_list(tr, [seat_name(tr, info, s) for s in game.waiting])
    if names:
        lines.append("⏳ " + (_("{names} to move; the turn began {when}.", names=names,
                                                when=since)
                             if since else _("{names} to move.", names=names)))
    return lines


def _phase_words(tr: Translator, phase: str | None) -> str:
    """What the reader's move is, in a few words."""
    _ = tr.gettext
    words = {
        Phase.TRUMP.value: _("declare trump"),
        Phase.PASS.value: _("pass a card"),
        Phase.SWAP.value: _("swap with your plot or keep"),
        Phase.ASSIGN.value: _("assign the trick's cards"),
    }
    return words.get(phase or "", _("play a card"))


def _buttons(tr: Translator, game: MyGame, number: int, listing: Listing) -> list[Button]:
    _ = tr.gettext
    row = []
    if listing.board_url is not None:
        row.append(Button("🔗 " + _("{number}: the board", number=number),
                          url=listing.board_url))
    if listing.hand_data is not None:
        row.append(Button("🃏 " + _("{number}: my hand", number=number), listing.hand_data))
    return row


def open_private_for_list(tr: Translator, url: str) -> Message:
    """``/mygames`` in a group from someone the bot cannot write to: the list is private,
    so first the private chat (the button opens it on the list)."""
    return Message(
        tr.gettext("Your games are listed in our private chat: open it with the button, "
                   "then I will send the list."),
        [[Button("📋 " + tr.gettext("My games"), url=url)]])


def my_games_button(tr: Translator, data: str) -> Button:
    """The welcome's button to the list."""
    return Button("📋 " + tr.gettext("My games"), data)


def hand_refused(tr: Translator, reason: str) -> str:
    """Why the list's hand button sends nothing: the game is over (``over``), the reader
    no longer plays in it (``not_seated``) or it has not started (``lobby``)."""
    _ = tr.gettext
    if reason == "lobby":
        return _("That game has not started yet: there is no hand to send. /mygames shows "
                 "your games as they are now.")
    if reason == "not_seated":
        return _("You no longer play in that game. /mygames shows your games as they are "
                 "now.")
    return _("That game is over. /mygames shows your games as they are now.")
