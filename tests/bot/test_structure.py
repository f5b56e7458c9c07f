"""The shape of the handlers: a tap goes to a small handler of its kind, and the commands
share one preamble instead of copying it."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from kolkhoz_tg.bot import buttons
from kolkhoz_tg.bot.callbacks import KINDS

#: About a screenful: a handler longer than this is doing more than one thing.
SMALL = 30


def lines_of(fn: Callable[..., Any]) -> int:
    return len(inspect.getsourcelines(fn)[0])


def test_every_kind_of_button_has_a_small_handler() -> None:
    assert set(buttons.TAP_HANDLERS) == KINDS
    for kind, handler in buttons.TAP_HANDLERS.items():
        assert lines_of(handler) <= SMALL, kind
    assert lines_of(buttons.on_callback) <= 2 * SMALL
