"""The group's part of a delivery, at the group's pace.

Private messages go out at once; board edits, posts and the closing of a topic wait in the
game's queue for a slot of the group's budget (:class:`~kolkhoz_tg.bot.pace.GroupPace`), and
the boards that queued meanwhile are drawn as one, the newest (:func:`collapse_boards`).
:func:`in_order` orders a plan's steps; :func:`group_part` picks what may wait.
"""

from __future__ import annotations

import asyncio
import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kolkhoz_tg.bot.delivery.claims import Claims
from kolkhoz_tg.bot.pace import BOARD, URGENT
from kolkhoz_tg.bot.steps import (
    Acting,
    Board,
    CloseTopic,
    GroupPost,
    Plan,
    Private,
    PrivateNote,
    Step,
)
from kolkhoz_tg.service import Kind, Notification, Scene

if TYPE_CHECKING:
    from kolkhoz_tg.bot.delivery.deliverer import Deliverer


#: Board notifications that are news in themselves (the game stops, goes on, ends; a bot
#: takes a seat or gives it back): their board edit takes the group's next slot, like a
#: reply, instead of waiting behind the board's pace. (A year's end has its summary, a
#: post of its own, for that.)
URGENT_BOARDS = frozenset({
    Kind.PAUSED, Kind.RESUMED, Kind.ABORTED, Kind.GAME_OVER, Kind.STAND_IN, Kind.PLAYER_BACK,
})



@dataclass
class Waiting:
    """What waits to go to a game's group: the steps in order (the boards among them are
    drawn as one, the newest, when their turn comes), the game as last delivered, and the
    notifications the steps show."""

    scene: Scene
    steps: list[Step]
    notes: list[Notification]

def in_order(steps: list[Step], acting: Acting | None) -> list[Step]:
    """The steps in the order they should go out: the message of the player who tapped
    first (their answer is what they wait for), then the other private messages (no group
    budget to wait for), then what goes to the group. Each chat keeps its own order."""
    def rank(step: Step) -> int:
        if isinstance(step, Private) and acting is not None and step.user_id == acting.user_id:
            return 0
        return 1 if isinstance(step, Private | PrivateNote) else 2
    return sorted(steps, key=rank)


def group_part(steps: Plan) -> list[Step]:
    """The steps of a plan that can go to the group after the rest, at the group's pace:
    board edits, posts and the closing of a topic, unless the plan sends the board anew
    or pins it (the start of a game, /board: those go in order, at once) or a notification
    is shown both there and in a private message."""
    group: list[Step] = [
        s for s in steps.steps if isinstance(s, Board | GroupPost | CloseTopic)]
    if any(isinstance(s, Board) and (s.resend or s.pin or s.message_id is None)
           for s in group):
        return []
    shown = {n for s in group for n in s.notes}
    if any(shown & set(s.notes) for s in steps.steps if s not in group):
        return []
    return group


def collapse_boards(steps: list[Step], notes: list[Notification]) -> list[Step]:
    """One board edit for several queued ones: the newest board, where the first one was
    (the older board notes are superseded in the outbox by the newest one)."""
    boards = [s for s in steps if isinstance(s, Board)]
    if len(boards) < 2:
        return steps
    newest = boards[-1]
    kinds = {n.id: n.kind for n in notes}
    ids = [n for b in boards for n in b.notes
           if kinds.get(n) is not Kind.BOARD or n in newest.notes]
    merged = dataclasses.replace(newest, notes=tuple(dict.fromkeys(ids)))
    out: list[Step] = []
    for step in steps:
        if step is boards[0]:
            out.append(merged)
        elif not isinstance(step, Board):
            out.append(step)
    return out


class GroupQueues:
    """What waits for each game's group, and the painters that send it (see the module
    docstring)."""

    def __init__(self, deliverer: Deliverer) -> None:
        self.deliverer = deliverer
        #: What waits for a slot of the group's budget, per game (see :meth:`paint_board`).
        self.waiting: dict[int, Waiting] = {}
        self.painters: dict[int, asyncio.Task[None]] = {}

    def queue(
        self, game_id: int, scene: Scene, steps: list[Step], notes: list[Notification]
    ) -> None:
        """Queue the group's part of a delivery behind what waits already."""
        d = self.deliverer
        queue = self.waiting.get(game_id)
        if queue is None:
            self.waiting[game_id] = Waiting(scene, list(steps), list(notes))
            return
        if scene.game.version >= queue.scene.game.version:
            queue.scene = scene
        queue.steps.extend(steps)
        queue.notes.extend(notes)
        if d.pace is not None and any(n.kind in URGENT_BOARDS for n in notes):
            # A board waiting as an edit a newer one would replace now carries the end of
            # the game, a pause...: it waits as urgent from now on.
            d.pace.poke(scene.game.chat_id)

    def urgent_waits(self, game_id: int) -> bool:
        """Whether what waits for the game's group holds something urgent."""
        queue = self.waiting.get(game_id)
        return queue is not None and (
            any(n.kind in URGENT_BOARDS for n in queue.notes)
            or any(isinstance(step, GroupPost) for step in queue.steps))

    async def start_painter(self, game_id: int) -> None:
        """Send what waits for the group now when its budget has room (or is not kept),
        else in the background once it has: boards queued by then are drawn as one."""
        d = self.deliverer
        if game_id in self.painters:
            return
        queue = self.waiting.get(game_id)
        if queue is None:
            return
        chat = queue.scene.game.chat_id
        if d.pace is None or d.pace.board_wait(chat) <= 0:
            await self.paint_board(game_id)
            return
        task = d.spawn(self.paint_board(game_id))
        self.painters[game_id] = task
        task.add_done_callback(lambda _t: self.painters.pop(game_id, None))

    async def paint_board(self, game_id: int) -> None:
        """Send what waits for the game's group, in order, each step once a slot of the
        group's budget is free (a board's taken *before* the board is chosen: the newest
        queued goes), then settle the notifications they show. Loops while more arrives
        meanwhile. The game's lock is not held while a slot is awaited, so the players'
        private messages never wait for the group."""
        d = self.deliverer
        while (waiting := self.waiting.get(game_id)) is not None:
            # The first step's slot before the batch is taken: boards queued meanwhile
            # join it, and the newest is drawn.
            first = waiting.steps[0]
            paid = False
            if d.pace is not None and isinstance(first, Board | GroupPost):
                urgent_first = isinstance(first, GroupPost) or bool(
                    {n.id for n in waiting.notes if n.kind in URGENT_BOARDS} & set(first.notes))
                board = d.steps.newest_board(game_id, first) if isinstance(first, Board) else None
                if board is None or not d.steps.unchanged(game_id, board):
                    await d.pace.slot(first.chat_id, URGENT if urgent_first else BOARD,
                                      hurry=lambda: self.urgent_waits(game_id))
                    paid = True
            queue = self.waiting.pop(game_id, None)
            if queue is None:
                return
            steps = collapse_boards(queue.steps, queue.notes)
            shown = {n for step in steps for n in step.notes}
            notes = [n for n in queue.notes if n.id in shown]
            claims = Claims(d.service, d.owner, notes)
            if not await claims.keep():
                # Another relay took some over (this process was too slow): it sends them;
                # the rest goes from here.
                lost = claims.lost
                steps = [s for s in steps if not set(s.notes) & lost]
                notes = [n for n in notes if n.id not in lost]
                if not steps:
                    continue
                claims = Claims(d.service, d.owner, notes)
                claims.until = d.now() + d.service.outbox_lease
            urgent = {n.id for n in notes if n.kind in URGENT_BOARDS}
            sending = {n.id: n.sending for n in notes if n.sending}
            outcome = await d.steps.carry_out(queue.scene, Plan(game_id, steps, sending=sending),
                                              claims, paced=True, urgent=urgent, paid=paid)
            await d.settler.settle(game_id, outcome)
            await d.topic_loss.after(game_id, outcome, notes)

    async def boards_painted(self) -> None:
        """Wait until no board edit is waiting for its group's budget (a drain, a clean
        shutdown)."""
        while self.painters:
            await asyncio.gather(*self.painters.values(), return_exceptions=True)
