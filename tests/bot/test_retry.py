"""The transport's retries (``kolkhoz_tg/bot/retry.py``) repeat a call that cannot have
done anything yet, and never one Telegram may have carried out: a connection that broke
after the request was sent (httpx's ``ReadError`` / ``RemoteProtocolError``, which PTB
reports as the same ``NetworkError`` as a refused connection) could post a message twice,
answer a tap twice or open two topics."""

from __future__ import annotations

import httpx
import pytest
from telegram.error import NetworkError, TelegramError, TimedOut

from kolkhoz_tg.bot.retry import never_arrived
from kolkhoz_tg.service import GameService
from tests.bot.conftest import make_app
from tests.bot.driver import open_game, players
from tests.faketg import FakeChat, FakeTelegram


def lobbies(fake: FakeTelegram, group: FakeChat) -> list[str]:
    return [m.text or "" for m in fake.bot_messages(group)
            if any(d.endswith(":join") for d in m.callback_data)]


async def test_calls_that_may_have_arrived_are_not_repeated(
    fake: FakeTelegram, service: GameService
) -> None:
    users = players(fake, base=8100)
    group = fake.create_group("Broken line", users)
    forum = fake.create_group("Broken forum", users, forum=True, bot_admin=True)
    async with fake.running(make_app(fake, service)):
        # The lobby was posted, then the connection broke: not posted again.
        fake.disconnect("sendMessage")
        await users[0].send(group, "/newgame")
        assert len(lobbies(fake, group)) == 1
        assert len(fake.calls("sendMessage", ok=True)) == 1
        # The answer to a tap arrived, then the connection broke: not answered again.
        await users[1].send(group, "/board")  # the lobby anew, now that it is known
        lobby = fake.last_message(group)
        assert lobby is not None
        fake.disconnect("answerCallbackQuery")
        await users[1].tap(lobby, "Join")
        assert list(fake.answers_per_callback().values()) == [1]
        # The topic was opened, then the connection broke: no second topic.
        fake.disconnect("createForumTopic")
        await users[2].send(forum, "/newgame")
        assert len(fake.calls("createForumTopic", ok=True)) == 1
        assert len(forum.topics) == 1
    assert [c.fault for c in fake.faults()] == ["disconnect"] * 3
    fake.assert_all_callbacks_answered()


async def test_calls_that_never_arrived_are_made_again(
    fake: FakeTelegram, service: GameService
) -> None:
    """A refused connection, a connection timeout and a 502 or 503 (the Bot API behind
    Telegram's front did not get the request) are repeated, whatever the call."""
    users = players(fake, base=8200)
    group = fake.create_group("Flaky line", users)
    forum = fake.create_group("Flaky forum", users, forum=True, bot_admin=True)
    async with fake.running(make_app(fake, service)):
        fake.disconnect("sendMessage", after=False)
        await users[0].send(group, "/newgame")
        assert len(lobbies(fake, group)) == 1
        lobby = fake.last_message(group)
        assert lobby is not None
        fake.time_out("answerCallbackQuery", after=False)
        answer = await users[1].tap(lobby, "Join")
        assert answer is not None
        fake.fail("answerCallbackQuery", 503)
        assert await users[2].tap(fake.message(group, lobby.message_id), "Join") is not None
        game = service.games_in_chat(group.id)[0]
        assert len(service.game_info(game.id).seats) == 3
        fake.fail("createForumTopic", 502, html=True)  # nginx's page
        await users[2].send(forum, "/newgame")
        [created] = fake.calls("createForumTopic", ok=True)
        topic = int(created.result["message_thread_id"])
        assert service.games_in_chat(forum.id, topic)
    assert len(fake.faults()) == 4
    assert list(fake.answers_per_callback().values()) == [1, 1]
    fake.assert_all_callbacks_answered()


def test_what_counts_as_never_arrived() -> None:
    def raised(error: NetworkError, cause: BaseException | None) -> NetworkError:
        error.__cause__ = cause
        return error

    sure = [
        raised(NetworkError("httpx.ConnectError: refused"), httpx.ConnectError("refused")),
        raised(TimedOut(), httpx.ConnectTimeout("slow")),
        raised(TimedOut("Pool timeout: ... Request was *not* sent"), httpx.PoolTimeout("full")),
        NetworkError("Bad Gateway"),
        NetworkError("Service Unavailable: restarting"),
        raised(NetworkError("Bad Gateway (502). Parsing the server response b'<html>' failed"),
               TelegramError("Invalid server response")),
    ]
    unsure = [
        raised(NetworkError("httpx.ReadError: reset"), httpx.ReadError("reset")),
        raised(NetworkError("httpx.RemoteProtocolError: gone"),
               httpx.RemoteProtocolError("gone")),
        raised(TimedOut(), httpx.ReadTimeout("slow")),
        raised(TimedOut(), httpx.WriteTimeout("slow")),
        NetworkError("Internal Server Error"),
        NetworkError("Gateway Timeout"),
        raised(NetworkError("Unknown error in HTTP implementation: RuntimeError()"),
               RuntimeError()),
    ]
    assert all(never_arrived(e) for e in sure)
    assert not any(never_arrived(e) for e in unsure)


@pytest.mark.parametrize("fault", ["500", "504", "429"])
async def test_a_tap_whose_answer_failed_is_answered_again(
    fake: FakeTelegram, service: GameService, fault: str
) -> None:
    """An answer to a tap that Telegram refused with 500 or 504, or with a short flood
    control wait, is made again: the button stops spinning (answered exactly once)."""
    users = players(fake, base=8300 + int(fault))
    group = fake.create_group(f"Spinning {fault}", users)
    async with fake.running(make_app(fake, service)):
        await users[0].send(group, "/newgame")
        lobby = fake.last_message(group)
        assert lobby is not None
        if fault == "429":
            fake.flood("answerCallbackQuery", retry_after=1)
        else:
            fake.fail("answerCallbackQuery", int(fault))
        assert await users[1].tap(lobby, "Join") is not None
    assert list(fake.answers_per_callback().values()) == [1]
    fake.assert_all_callbacks_answered()


@pytest.mark.parametrize("fault", ["403", "500", "timeout"])
async def test_the_board_asked_for_in_private_fails_quietly(
    fake: FakeTelegram, service: GameService, fault: str
) -> None:
    """📋 Board in the private message: when Telegram refuses to send it (the user blocked
    the bot since, a 5xx, a timeout) the tap is answered all the same and no handler
    fails."""
    users = players(fake, base=8400 + len(fault) * 10 + int(fault == "500"))
    group = fake.create_group(f"Board {fault}", users)
    async with fake.running(make_app(fake, service)):  # (check: no handler raised)
        await open_game(fake, users, group)
        msg = users[0].last_message()
        assert msg is not None
        board = next(b.text for row in msg.buttons for b in row if b.text.startswith("📋"))
        if fault == "timeout":
            fake.time_out("sendMessage", times=4, after=False)  # every retry too
        else:
            fake.fail("sendMessage", int(fault),
                      description="Forbidden: bot was blocked by the user"
                      if fault == "403" else None, times=4)  # every retry too
        assert await users[0].tap(msg, board) is not None
    fake.assert_all_callbacks_answered()


async def test_a_service_call_is_made_again_once_when_the_database_dropped_its_connection(
) -> None:
    """A connection the database killed mid-call (PostgreSQL restarted): the call is made
    once more on a fresh connection, so the player need not tap again; a second failure,
    or any other database error, is not hidden."""
    from sqlalchemy.exc import OperationalError

    from kolkhoz_tg.bot.context import call

    calls: list[int] = []

    def flaky(n: int, *, fail: int, invalidated: bool = True) -> int:
        calls.append(n)
        if len(calls) <= fail:
            raise OperationalError("SELECT 1", {}, Exception("server closed the connection"),
                                   connection_invalidated=invalidated)
        return n

    assert await call(flaky, 7, fail=1) == 7 and calls == [7, 7]
    calls.clear()
    with pytest.raises(OperationalError):
        await call(flaky, 7, fail=2)
    calls.clear()
    with pytest.raises(OperationalError):  # not a dropped connection: not repeated
        await call(flaky, 7, fail=1, invalidated=False)
    assert calls == [7]


async def test_a_connection_killed_mid_call_on_postgresql_is_replaced(
    pg_service: GameService,
) -> None:
    """On PostgreSQL: the server ends the backend of the connection a service call is
    using (an administrator's pg_terminate_backend, a failover): the call is made again on
    a fresh connection and answers."""
    import sqlalchemy as sa

    from kolkhoz_tg.bot.context import call

    game = pg_service.create_game(-500, 1, creator_name="Anna")
    killed: list[int] = []

    def read_after_a_kill() -> int:
        with pg_service.db.read() as s:
            pid = s.execute(sa.text("SELECT pg_backend_pid()")).scalar_one()
            if not killed:
                with pg_service.db.engine.connect() as other:
                    other.execute(sa.text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
                killed.append(pid)
            s.execute(sa.text("SELECT 1")).scalar_one()
        return pg_service.game_info(game.id).id

    assert await call(read_after_a_kill) == game.id
    assert len(killed) == 1
