"""The steps a delivery plan is made of (:func:`kolkhoz_tg.bot.plan.plan` decides them, the
:class:`~kolkhoz_tg.bot.delivery.Deliverer` carries them out), and the keys of the game
meta the bot keeps about its messages. No Telegram types here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kolkhoz_tg import present

#: Game meta keys the bot keeps: the board message, and per player their game message, whether
#: it carries move buttons, and the version they were last mentioned in the group for.
BOARD_KEY = "board"
#: How the board message now in the group shows the game: ``text`` or ``picture``.
BOARD_STYLE_KEY = "board:style"
#: Set on a game whose forum topic the bot opened for it: the topic is closed at the end.
TOPIC_OWN_KEY = "topic:own"
#: Set on a game paused because its forum topic was deleted (the topic's id): the game
#: moved to "General" and goes on, there or in another topic, with /resume.
TOPIC_LOST_KEY = "paused:topic_lost"


def pm_key(user_id: int) -> str:
    return f"pm:{user_id}"


def live_key(user_id: int) -> str:
    return f"pml:{user_id}"


def mention_key(user_id: int) -> str:
    return f"mention:{user_id}"


def eph_key(user_id: int) -> str:
    """The player's hand shown in the group to them alone (an ephemeral message): its id."""
    return f"eph:{user_id}"


@dataclass(frozen=True, slots=True)
class Acting:
    """The private message a player just tapped: their next decision edits it in place."""

    user_id: int
    chat_id: int
    message_id: int


# ---------------------------------------------------------------------- steps


@dataclass(frozen=True, slots=True)
class Board:
    """Edit the group's board (send it when there is none, or when ``resend``); ``pin``
    it (the game has just started)."""

    chat_id: int
    message_id: int | None
    text: str
    keyboard: present.Keyboard
    pin: bool = False
    resend: bool = False
    notes: tuple[int, ...] = ()
    #: The board as a picture (``/settings board picture``): ``text`` is its caption.
    photo: bool = False
    #: The forum topic to send it to (None: "General", or a chat without topics).
    topic_id: int | None = None
    #: The board as a rich message (``/settings board rich``: its HTML): ``text`` is then
    #: the text board, shown instead on a server without rich messages, and
    #: ``text_resend`` says whether that text board would be sent anew.
    rich: str | None = None
    text_resend: bool = False


@dataclass(frozen=True, slots=True)
class GroupPost:
    """A new message in the group (HTML when ``html``); ``once``: a meta key and value
    stored after it is sent (and checked by the planner, so it goes out once)."""

    chat_id: int
    text: str
    keyboard: present.Keyboard = field(default_factory=list)
    html: bool = False
    once: tuple[str, Any] | None = None
    notes: tuple[int, ...] = ()
    #: The forum topic to post in (None: "General", or a chat without topics).
    topic_id: int | None = None
    #: A record of the game (the year's summary, the final table): when the topic turns
    #: out to be gone it is posted where the game goes on, not dropped like a mention.
    record: bool = False


@dataclass(frozen=True, slots=True)
class Private:
    """A player's game message: edit ``edit`` in place, or send a new one (deleting
    ``replaces`` when it still carried move buttons). ``live``: this one carries move
    buttons. ``mention``: what to post in the group when the bot cannot write to them."""

    user_id: int
    text: str
    keyboard: present.Keyboard
    edit: int | None
    replaces: int | None
    live: bool
    mention: GroupPost | None = None
    notes: tuple[int, ...] = ()
    #: The message this one supersedes, kept as a record of the player's last move: it
    #: loses its buttons (its cards are no longer theirs to tap), so that each chat has one
    #: message per game with buttons.
    strips: int | None = None


@dataclass(frozen=True, slots=True)
class PrivateNote:
    """A one-off private message (a reminder, a move played for them, a stand-in)."""

    user_id: int
    text: str
    mention: GroupPost | None = None
    notes: tuple[int, ...] = ()
    keyboard: present.Keyboard = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class CloseTopic:
    """Close the forum topic the bot opened for a game that is over (errors ignored)."""

    chat_id: int
    topic_id: int
    notes: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class GroupHand:
    """Edit the player's hand shown in the group to them alone (an ephemeral message,
    opened by "🃏 My cards") to read as their game message does now."""

    chat_id: int
    user_id: int
    ephemeral_id: int
    text: str
    keyboard: present.Keyboard
    notes: tuple[int, ...] = ()


Step = Board | GroupPost | Private | PrivateNote | CloseTopic | GroupHand


@dataclass
class Plan:
    """The steps for one game, and the notifications that need no step (delivered once
    the plan is carried out)."""

    game_id: int
    steps: list[Step] = field(default_factory=list)
    free: list[int] = field(default_factory=list)
    #: The sends of the notifications that may have reached Telegram already (bits of
    #: :mod:`kolkhoz_tg.bot.once`), by notification.
    sending: dict[int, int] = field(default_factory=dict)
