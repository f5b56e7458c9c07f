"""Which outgoing messages may be sent again, declared in one place, and how a send that may
have reached Telegram is settled. No Telegram types here.

A Bot API call whose reply is lost (a read timeout, a connection that broke after the
request went out, a 500 or a 504), or that was in flight when the process died, may have
been carried out. An edit can simply be made again; a new message cannot: it would be a
double (a second "your turn", a second year's summary). So each kind of step declares
(:data:`POLICIES`) one of:

- :attr:`Repeat.IDEMPOTENT`: only edits (the player's hand shown in the group, the closing
  of a topic): made again freely;
- :attr:`Repeat.IN_PLACE`: a message that is sent anew now and then but otherwise edited in
  place (the group's board; the player's game message, sent anew at each turn so that
  Telegram notifies them). A send that may have arrived is settled by editing the message
  the game has stored (the board, or the player's previous game message) to show the game
  as it is now: the player has a current message whichever way it went, and no second
  notification;
- :attr:`Repeat.ONCE`: a record posted once (the year's summary, the final table, a notice
  in the group or in private: a reminder, a missed turn, a new lobby). A send that may have
  arrived counts as delivered: at most once.

Right before a send that must not go out twice, the step's notifications are marked in the
outbox with the step's :attr:`Policy.bit` (``notifications.sending``,
:meth:`~kolkhoz_tg.service.outbox.OutboxService.mark_sending`); a send that provably never
arrived (Telegram refused it, 429, 502/503, no connection) has its bit cleared when it is
settled. A step whose notifications carry its bit (:func:`began`) makes no new message: the
process that takes it over after a crash, or the same process after a lost reply, settles
it as above. Turns still reach the player when a maybe-sent message did not arrive: their
previous game message shows the turn, the group's board names whose turn it is, /mygames
lists it, and the reminder comes as usual.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum

from kolkhoz_tg.bot.steps import (
    Board,
    CloseTopic,
    GroupHand,
    GroupPost,
    Private,
    PrivateNote,
    Step,
)
from kolkhoz_tg.service import Kind


class Repeat(Enum):
    """Whether a step's Bot API calls may be made again (see the module docstring)."""

    IDEMPOTENT = "idempotent"
    IN_PLACE = "edited in place"
    ONCE = "at most once"


@dataclass(frozen=True, slots=True)
class Policy:
    """How a kind of step may be repeated, and its bit in ``notifications.sending`` (0: it
    sends nothing new)."""

    repeat: Repeat
    bit: int


#: Every kind of step, and how it may be repeated.
POLICIES: dict[type[Step], Policy] = {
    Board: Policy(Repeat.IN_PLACE, 1),
    GroupPost: Policy(Repeat.ONCE, 2),
    Private: Policy(Repeat.IN_PLACE, 4),
    PrivateNote: Policy(Repeat.ONCE, 8),
    GroupHand: Policy(Repeat.IDEMPOTENT, 0),
    CloseTopic: Policy(Repeat.IDEMPOTENT, 0),
}

#: Every kind of notification, and how the messages that show it may be repeated (the
#: group's notes are shown on the board, edited in place; some also by a post of their own).
KINDS: dict[Kind, tuple[Repeat, ...]] = {
    Kind.LOBBY: (Repeat.IN_PLACE,),
    Kind.GAME_STARTED: (Repeat.IN_PLACE,),
    Kind.BOARD: (Repeat.IN_PLACE,),
    Kind.PLAYER_BACK: (Repeat.IN_PLACE,),
    Kind.PAUSED: (Repeat.IN_PLACE,),
    Kind.RESUMED: (Repeat.IN_PLACE,),
    Kind.ABORTED: (Repeat.IN_PLACE,),
    Kind.TOOK_BACK: (Repeat.IN_PLACE,),
    Kind.YOUR_TURN: (Repeat.IN_PLACE,),
    Kind.NEW_HAND: (Repeat.IN_PLACE,),
    Kind.YEAR_SUMMARY: (Repeat.IN_PLACE, Repeat.ONCE),
    Kind.GAME_OVER: (Repeat.IN_PLACE, Repeat.ONCE),
    Kind.TIME_EXTENDED: (Repeat.IN_PLACE, Repeat.ONCE),
    Kind.STAND_IN: (Repeat.IN_PLACE, Repeat.ONCE),
    Kind.REMINDER: (Repeat.ONCE,),
    Kind.TIMED_OUT: (Repeat.ONCE,),
    Kind.NEW_LOBBY: (Repeat.ONCE,),
}


def policy(step: Step) -> Policy:
    return POLICIES[type(step)]


def began(step: Step, sending: Mapping[int, int]) -> bool:
    """Whether a send of ``step`` may have reached Telegram already (its bit is set on one
    of its notifications): then it is settled, not sent again."""
    bit = policy(step).bit
    return bool(bit) and any(sending.get(n, 0) & bit for n in step.notes)
