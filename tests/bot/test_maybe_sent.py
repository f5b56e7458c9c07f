"""A message whose send may have reached Telegram is never sent again blind (issue #35):
a reply lost after the request went out (a read timeout, a 500, a connection that broke)
and a process killed with a send in flight. The player's game message is settled by an
edit of the one the game stored; a record (the year's summary) counts as delivered. See
kolkhoz_tg/bot/once.py."""

from __future__ import annotations

import asyncio
import collections
import os
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from kolkhoz_tg.bot import once
from kolkhoz_tg.bot.app import shutdown, startup
from kolkhoz_tg.bot.delivery import Deliverer, relay_name
from kolkhoz_tg.bot.steps import Step
from kolkhoz_tg.service import ActResult, GameService, Kind
from kolkhoz_tg.timeutil import FakeClock
from tests.bot.conftest import make_app
from tests.bot.driver import action_buttons, open_game, players, tap_any_action
from tests.bot.test_outbox_takeover import App, deps, replica
from tests.faketg import FakeTelegram, FakeUser


def year_ends(result: ActResult) -> bool:
    return any(n.kind is Kind.YEAR_SUMMARY for n in result.notifications)


async def play_until(
    app: App, game_id: int, users: list[FakeUser], stop: Callable[[ActResult], bool]
) -> ActResult:
    """Moves made through the service and delivered by ``app`` as a tap's would be, up to
    the first one ``stop`` holds for, which is returned undelivered."""
    service: GameService = deps(app).service
    deliverer: Deliverer = deps(app).deliverer
    for _ in range(1000):
        who = next(u for u in users if service.seat_view(game_id, u.id).to_act)
        sv = service.seat_view(game_id, who.id)
        result = service.act(game_id, who.id, sv.legal[0], sv.game.version)
        assert result.ok
        if stop(result):
            return result
        await deliverer.deliver(result.notifications, scene=result.scene)
    raise AssertionError("never reached")


def sends_twice(fake: FakeTelegram, since: int) -> list[tuple[Any, str]]:
    """New messages that reached the fake more than once (same chat, same text)."""
    sent = [c for c in fake.calls("sendMessage")[since:] if c.ok]
    counts = collections.Counter((c.params["chat_id"], c.params["text"]) for c in sent)
    return [key for key, n in counts.items() if n > 1]


def can_move(service: GameService, game_id: int, users: list[FakeUser]) -> bool:
    """Whoever must decide has a private message with move buttons."""
    deciding = [u for u in users if service.seat_view(game_id, u.id).to_act]
    return bool(deciding) and all(
        any(action_buttons(m) for m in u.private_messages()) for u in deciding
    )


def test_every_kind_of_step_and_notification_says_whether_it_may_be_repeated() -> None:
    assert set(once.POLICIES) == set(Step.__args__)
    assert set(once.KINDS) == set(Kind)
    sending = [p.bit for p in once.POLICIES.values() if p.repeat is not once.Repeat.IDEMPOTENT]
    assert all(sending) and len(set(sending)) == len(sending)  # one bit each


@pytest.mark.parametrize("fault", ["timeout", "disconnect", "500"])
async def test_a_send_whose_reply_was_lost_is_not_sent_again(
    fake: FakeTelegram, service: GameService, clock: FakeClock, fault: str
) -> None:
    """Every new message of a year's end (the summary, the fresh hands, the turn) reaches
    the fake and its reply is lost (or Telegram answers 500): none is sent a second time,
    by the delivery or by the relay later, and the player to move still has their buttons
    (their previous game message, edited)."""
    users = players(fake, base=9100 + 10 * len(fault))
    group = fake.create_group(f"Lost replies {fault}", users)
    app = make_app(fake, service)
    async with fake.running(app):
        game_id = await open_game(fake, users, group)
        result = await play_until(app, game_id, users, year_ends)
        since = len(fake.calls("sendMessage"))
        if fault == "timeout":
            fake.time_out("sendMessage", times=1000, after=True)
        elif fault == "disconnect":
            fake.disconnect("sendMessage", times=1000, after=True)
        else:
            fake.fail("sendMessage", 500, times=1000)
        await deps(app).deliverer.deliver(result.notifications, scene=result.scene)
        lost = len(fake.faults("sendMessage"))
        fake.clear_faults()
        assert lost >= 2, "the year's end sent no new message"
        clock.advance(timedelta(minutes=15))
        await deps(app).relay.drain()
        assert sends_twice(fake, since) == []
        assert len(fake.calls("sendMessage")) == since + lost  # the relay sent none again
        assert not service.pending_notifications(1000)
        assert can_move(service, game_id, users)
        assert await tap_any_action(users)  # and the game goes on from there


class Hanging:
    """The application's bot, except that the first ``sendMessage`` that ``hangs(chat)``
    reaches the fake and then never returns (the process is killed before the reply)."""

    def __init__(self, bot: Any, hangs: Callable[[int], bool]) -> None:
        self._bot = bot
        self._hangs = hangs
        self.sent = asyncio.Event()
        self.text = ""

    def __getattr__(self, name: str) -> Any:
        return getattr(self._bot, name)

    async def send_message(self, chat_id: int, text: str, **kwargs: Any) -> Any:
        result = await self._bot.send_message(chat_id, text, **kwargs)
        if self._hangs(int(chat_id)) and not self.sent.is_set():
            self.text = text
            self.sent.set()
            await asyncio.Event().wait()  # killed here
        return result


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
@pytest.mark.parametrize("in_flight", ["turn", "summary"])
async def test_a_process_killed_mid_send_leaves_one_message_of_each_kind(
    fake: FakeTelegram,
    clock: FakeClock,
    backend: str,
    in_flight: str,
    request: pytest.FixtureRequest,
    tmp_path: Path,
) -> None:
    """kill -9 while a new message is in flight (it reached Telegram, the reply did not
    come back): the process started in its place takes the claims over at once, sends
    what was still owed, and does not send that message again."""
    url = (
        request.getfixturevalue("pg_url")
        if backend == "postgres"
        else f"sqlite:///{tmp_path / 'killed.sqlite3'}"
    )
    users = players(fake, base=9300 + 20 * len(backend) + len(in_flight))
    group = fake.create_group(f"Killed {in_flight}", users)
    host, _pid, _start = relay_name().split(":")
    dead = replica(fake, url, clock, f"{host}:{os.getpid()}:1")  # this process, an earlier life
    service = deps(dead).service
    try:
        async with fake.running(dead, check=False):
            game_id = await open_game(fake, users, group)
            result = await play_until(dead, game_id, users, year_ends)
            since = len(fake.calls("sendMessage"))
            deliverer = deps(dead).deliverer
            hanging = Hanging(
                deliverer.bot,
                (lambda chat: chat > 0) if in_flight == "turn" else (lambda chat: chat < 0),
            )
            deliverer.bot = hanging  # type: ignore[assignment]
            task = asyncio.create_task(deliverer.deliver(result.notifications, scene=result.scene))
            await asyncio.wait_for(hanging.sent.wait(), 10)
            task.cancel()  # kill -9: nothing more of this process runs, nothing is settled
            with pytest.raises(asyncio.CancelledError):
                await task
        assert service.pending_notifications(1000), "the kill left nothing owed"
        restarted = make_app(fake, service)
        async with fake.running(restarted):
            await startup(restarted)  # takes the dead process's claims over
            await deps(restarted).relay.drain()
            await fake.wait_idle()
            assert not service.pending_notifications(1000), "what was owed waited"
            assert sends_twice(fake, since) == []
            texts = [c.params["text"] for c in fake.calls("sendMessage")[since:] if c.ok]
            assert texts.count(hanging.text) == 1
            if in_flight == "turn":
                assert any("year" in t.lower() for t in texts if t != hanging.text)
            assert can_move(service, game_id, users)
            assert await tap_any_action(users)
            await shutdown(restarted)
    finally:
        service.db.dispose()
