"""Callback data: compact, ASCII, at most 64 bytes, and nothing foreign decodes."""

from __future__ import annotations

import pytest

from engine.actions import N_CODES, Action
from kolkhoz_tg.bot.callbacks import (
    MAX_ID,
    Callback,
    action_button,
    from_base36,
    to_base36,
)


def test_every_engine_action_fits_with_large_ids() -> None:
    for code in range(N_CODES):
        text = str(Action.from_code(code))
        data = action_button(MAX_ID, MAX_ID, text)
        assert len(data.encode()) <= 64
        back = Callback.decode(data)
        assert (back.kind, back.game_id, back.version, back.payload) == (
            "a", MAX_ID, MAX_ID, text,
        )


@pytest.mark.parametrize("value", [0, 1, 35, 36, 12345, 10**12])
def test_base36_round_trip(value: int) -> None:
    assert from_base36(to_base36(value)) == value


@pytest.mark.parametrize(
    "data",
    [
        None, "", "a", "a:1:2", "z:1:2:play:10H", "a:-1:2:play:10H", "a:1:2:", "a:1:2:play 10H",
        "a:1:2:плей", "a:" + "1" * 20 + ":2:x", "a:1:2:" + "x" * 70, "a:1:2:play:10H\n",
        "a:1:2:<script>alert(1)</script>",
        # Beyond PostgreSQL's INTEGER: no game or version of ours can be that large.
        "a:" + to_base36(2**31) + ":0:play:10H", "l:1:" + to_base36(2**31) + ":join",
        "v:zzzzzzzzzzzz:0:board",
    ],
)
def test_malformed_data_is_refused(data: str | None) -> None:
    with pytest.raises(ValueError):
        Callback.decode(data)


def test_encoding_refuses_what_telegram_would() -> None:
    with pytest.raises(ValueError):
        Callback("a", 1, 1, "x" * 64).encode()
    with pytest.raises(ValueError):
        Callback("z", 1, 1, "join").encode()
    with pytest.raises(ValueError):
        Callback("l", MAX_ID + 1, 1, "join").encode()
