"""The groups' budget (kolkhoz_tg.bot.pace): Telegram's limit kept in every window, urgent
calls served before board edits, a cancelled wait leaves nothing behind."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time

from kolkhoz_tg.bot.pace import BOARD, URGENT, GroupPace

#: A minute shrunk to 0.6 s: the same rule, quick to watch.
WINDOW = 0.6


def most_in_a_window(times: list[float], window: float) -> int:
    times = sorted(times)
    return max(sum(1 for t in times[i:] if t - start < window)
               for i, start in enumerate(times))


async def test_no_window_holds_more_than_the_limit_whatever_the_mix() -> None:
    read: list[float] = [0.0]

    def clock() -> float:
        read[0] = time.monotonic()
        return read[0]

    pace = GroupPace(per_minute=20, window=WINDOW, clock=clock)
    granted: list[float] = []

    async def call(urgency: int) -> None:
        await pace.slot(-1, urgency)
        # The time the slot was granted at (the pace's last reading, with no await since):
        # a reading taken now could come late on a loaded machine and crowd a window.
        granted.append(read[0])

    await asyncio.gather(*(call(URGENT if i % 3 else BOARD) for i in range(45)))
    assert len(granted) == 45
    assert most_in_a_window(granted, WINDOW) <= 20
    # A quiet group's first calls go at once.
    assert granted[3] - granted[0] < 0.05


async def test_board_edits_come_at_once_in_a_quiet_group_then_one_a_gap() -> None:
    pace = GroupPace(per_minute=20, window=6.0, reserve=3, quiet=2)
    assert pace.gap == 6.0 / 17
    started = time.monotonic()
    await pace.slot(-1, BOARD)
    await pace.slot(-1, BOARD)
    assert time.monotonic() - started < 0.05
    # A busy group: the next one waits a gap after the last ...
    assert 0.3 < pace.board_wait(-1) <= pace.gap
    await pace.slot(-1, BOARD)
    assert time.monotonic() - started >= 0.3
    # ... and after a gap's quiet it goes at once.
    await asyncio.sleep(pace.gap + 0.01)
    assert pace.board_wait(-1) == 0


async def test_a_busy_group_never_stalls_for_a_window() -> None:
    """Edits asked for all the time: they come at a steady pace, the window never full."""
    pace = GroupPace(per_minute=20, window=1.2, reserve=3)
    granted: list[float] = []
    for _ in range(40):
        await pace.slot(-1, BOARD)
        granted.append(time.monotonic())
    gaps = [b - a for a, b in itertools.pairwise(granted)]
    assert max(gaps) < 1.2 / 3  # never a stall of a third of the window
    assert most_in_a_window(granted, 1.2) <= 17


async def test_urgent_calls_pass_waiting_board_edits_and_keep_a_reserve() -> None:
    pace = GroupPace(per_minute=6, window=WINDOW, reserve=2)
    order: list[str] = []

    async def call(name: str, urgency: int) -> None:
        await pace.slot(-1, urgency)
        order.append(name)

    # Board edits take what the reserve leaves of the window (4 of 6), then wait ...
    await asyncio.gather(*(call(f"b{i}", BOARD) for i in range(4)))
    assert pace.board_wait(-1) > 0
    boards = asyncio.gather(*(call(f"b{i}", BOARD) for i in range(4, 6)))
    await asyncio.sleep(0)
    # ... while a reply to a command goes at once, out of the reserve, and before them.
    started = time.monotonic()
    await call("reply", URGENT)
    assert time.monotonic() - started < WINDOW / 4
    await boards
    assert order.index("reply") < order.index("b4")


async def test_a_cancelled_wait_does_not_hold_the_queue() -> None:
    pace = GroupPace(per_minute=2, window=WINDOW, reserve=0)
    await pace.slot(-1, URGENT)
    await pace.slot(-1, URGENT)
    waiting = asyncio.create_task(pace.slot(-1, URGENT))
    await asyncio.sleep(0)
    waiting.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await waiting
    assert waiting.cancelled()
    # The next call waits for the budget, not for the cancelled one.
    await asyncio.wait_for(pace.slot(-1, URGENT), WINDOW * 2)


async def test_groups_have_budgets_of_their_own() -> None:
    pace = GroupPace(per_minute=3, window=60.0, reserve=1)
    for _ in range(3):
        await pace.slot(-1)
    assert pace.board_wait(-1) > 1
    assert pace.board_wait(-2) == 0
    await asyncio.wait_for(pace.slot(-2, BOARD), 0.1)


async def test_a_waiting_board_edit_hurries_once_it_carries_something_urgent() -> None:
    """A board edit waiting for a board's slot becomes urgent when what it will show
    becomes so (the end of the game, a pause): it takes the reserve at once."""
    pace = GroupPace(per_minute=6, window=WINDOW * 4, reserve=2)
    for _ in range(4):
        await pace.slot(-1, URGENT)
    assert pace.board_wait(-1) > WINDOW
    urgent = False
    started = time.monotonic()
    board = asyncio.create_task(pace.slot(-1, BOARD, hurry=lambda: urgent))
    await asyncio.sleep(0.05)
    assert not board.done()
    urgent = True
    pace.poke(-1)
    await asyncio.wait_for(board, WINDOW / 2)
    assert time.monotonic() - started < WINDOW
    # It took one of the reserve's slots: one is left for the next urgent call.
    await asyncio.wait_for(pace.slot(-1, URGENT), 0.05)
