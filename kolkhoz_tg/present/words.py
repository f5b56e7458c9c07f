"""Words the other modules share: cards and suits, job names, seat names, lists, a
computer player's level and the deep link into the private chat.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine.cards import SUITS, Card
from kolkhoz_tg.i18n import Translator
from kolkhoz_tg.service.payloads import GameHeader
from kolkhoz_tg.service.records import GameInfo

SUIT_SYMBOLS = {s.letter: s.symbol for s in SUITS}


def card(tr: Translator, text: Card | str | None) -> str:
    """``10H`` → ``10♥`` (``QS`` → ``Д♠`` in Russian: the reader's rank letters); a card
    hidden from the reader (None in a view) → ``?``."""
    if not text:
        return "?"
    text = str(text)
    rank = text[:-1]
    return tr.rank(rank) + SUIT_SYMBOLS.get(text[-1], text[-1])


def cards(tr: Translator, texts: Sequence[Card | str | None]) -> str:
    return " ".join(card(tr, t) for t in texts) if texts else "—"


def job_name(tr: Translator, theme: str, job: str) -> str:
    """The job of a suit in the preset's theme (``jobs`` or ``fields``)."""
    _ = tr.gettext
    if theme == "fields":
        names = {"H": _("Wheat"), "D": _("Beets"), "C": _("Potatoes"), "S": _("Sunflowers")}
    else:
        names = {"H": _("Plowing"), "D": _("Harvest"), "C": _("Workshop"), "S": _("Grain")}
    return names[job]


def seat_name(tr: Translator, game: GameInfo | GameHeader, seat: int) -> str:
    """The seat's player name; AI players are numbered in the reader's language."""
    for s in game.seats:
        if s.seat == seat:
            if s.is_ai:
                return tr.gettext("Bot {number}", number=s.name.rsplit(" ", 1)[-1])
            return str(s.name)
    return tr.gettext("Seat {number}", number=seat + 1)


def seat_names(tr: Translator, game: GameInfo | GameHeader, n: int) -> list[str]:
    return [seat_name(tr, game, s) for s in range(n)]


def and_list(tr: Translator, items: Sequence[str]) -> str:
    """``A``, ``A and B``, ``A, B and C`` in the reader's language."""
    if len(items) < 2:
        return "".join(items)
    return tr.gettext("{items} and {last}", items=", ".join(items[:-1]), last=items[-1])


def start_link(bot_username: str, payload: str, group: bool = False) -> str:
    """``https://t.me/<bot>?start=<payload>`` (``startgroup`` with ``group``): the link that
    opens the bot with ``/start <payload>``, as Telegram's deep links are made
    (``telegram.helpers.create_deep_linked_url``, here without Telegram's library)."""
    if len(bot_username) <= 3:
        raise ValueError("You must provide a valid bot_username.")
    if len(payload) > 64 or not re.fullmatch(r"[A-Za-z0-9_-]+", payload):
        raise ValueError(f"not a deep-linking payload: {payload!r}")
    return f"https://t.me/{bot_username}?{'startgroup' if group else 'start'}={payload}"


def deep_link(bot_username: str, game_id: int) -> str:
    """``https://t.me/<bot>?start=g<id>``: opens the private chat on that game."""
    return start_link(bot_username, f"g{game_id}")


def level_name(tr: Translator, level: str | None) -> str:
    """A bot level's name for players (None: ``normal``, a bot seated before levels)."""
    _ = tr.gettext
    names = {
        "random": _("Random"),
        "normal": _("Normal"),
        "strong": _("Strong"),
        "hard": _("Hard"),
    }
    return names.get(level or "normal", level or "")
