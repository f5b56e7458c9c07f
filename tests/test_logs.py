"""Structured logs: one JSON object a line, with extra fields and errors; libraries that
log every request or job run held at WARNING unless DEBUG; no token, password or Bot API
body at any level."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from kolkhoz_tg.logs import JsonFormatter, setup_logging


def test_json_lines_carry_level_logger_message_extras_and_errors() -> None:
    formatter = JsonFormatter()
    record = logging.makeLogRecord({
        "name": "kolkhoz_tg.bot", "levelname": "INFO", "levelno": logging.INFO,
        "msg": "game %s moved", "args": (42,), "game_id": 42,
    })
    line = json.loads(formatter.format(record))
    assert line["level"] == "INFO" and line["logger"] == "kolkhoz_tg.bot"
    assert line["message"] == "game 42 moved" and line["game_id"] == 42
    assert line["time"].endswith("+00:00")
    try:
        raise ValueError("boom")
    except ValueError:
        import sys

        record = logging.makeLogRecord({"msg": "failed", "exc_info": sys.exc_info()})
    assert "ValueError: boom" in json.loads(formatter.format(record))["error"]


def test_setup_logging_switches_format(capsys: pytest.CaptureFixture[str]) -> None:
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    try:
        setup_logging("json", "INFO")
        logging.getLogger("kolkhoz_tg.test").info("hello %s", "world")
        err = capsys.readouterr().err.strip().splitlines()[-1]
        assert json.loads(err)["message"] == "hello world"
        setup_logging("text", "WARNING")
        logging.getLogger("kolkhoz_tg.test").info("quiet")
        assert "quiet" not in capsys.readouterr().err
    finally:
        root.handlers[:], level = saved
        root.setLevel(level)


def test_a_job_cancelled_at_shutdown_is_not_an_error() -> None:
    """APScheduler logs the job it cancels on shutdown as an exception; the filter makes it
    an INFO line without a traceback, and leaves real failures alone."""
    import asyncio
    import logging
    import sys

    from kolkhoz_tg.logs import CancelledJobFilter

    def record(exc: BaseException) -> logging.LogRecord:
        try:
            raise exc
        except BaseException:
            info = sys.exc_info()
        return logging.LogRecord("apscheduler.executors.default", logging.ERROR, __file__, 1,
                                 'Job "%s" raised an exception', ("sweep",), info)

    cancelled = record(asyncio.CancelledError())
    assert CancelledJobFilter().filter(cancelled)
    assert cancelled.levelno == logging.INFO and cancelled.levelname == "INFO"
    assert cancelled.exc_info is None and "shutting down" in cancelled.getMessage()
    failed = record(ValueError("boom"))
    assert CancelledJobFilter().filter(failed)
    assert failed.levelno == logging.ERROR and failed.exc_info is not None


# ---------------------------------------------------------------------- quiet and redacted


@pytest.fixture
def restore_logging() -> Iterator[None]:
    from kolkhoz_tg import logs

    root = logging.getLogger()
    names = (*logs.CHATTY_LOGGERS, *logs.QUIET_LOGGERS)
    executor = logging.getLogger("apscheduler.executors.default")
    saved = (root.handlers[:], root.level, {n: logging.getLogger(n).level for n in names},
             executor.filters[:])
    yield
    root.handlers[:], level, levels, executor.filters[:] = saved
    root.setLevel(level)
    for name, value in levels.items():
        logging.getLogger(name).setLevel(value)


def test_per_request_and_per_job_loggers_are_quiet_unless_debug(restore_logging: None) -> None:
    from kolkhoz_tg.logs import CancelledJobFilter

    setup_logging("text", "INFO")
    for name in ("apscheduler.executors.default", "apscheduler.scheduler", "httpx",
                 "tornado.access"):
        logger = logging.getLogger(name)
        assert not logger.isEnabledFor(logging.INFO), name
        assert logger.isEnabledFor(logging.WARNING), name
    assert logging.getLogger("kolkhoz_tg.bot").isEnabledFor(logging.INFO)
    setup_logging("text", "DEBUG")
    for name in ("apscheduler.executors.default", "apscheduler.scheduler", "httpx"):
        assert logging.getLogger(name).isEnabledFor(logging.DEBUG), name
    setup_logging("json", "info")  # set up again: one filter, not one per call
    executor = logging.getLogger("apscheduler.executors.default")
    assert sum(isinstance(f, CancelledJobFilter) for f in executor.filters) == 1
    assert not executor.isEnabledFor(logging.INFO)


TOKEN = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1"


def emit(logger: str, level: int, msg: str, *args: object, fmt: str = "text",
         secrets: tuple[str, ...] = (), exc: BaseException | None = None,
         **extra: object) -> str:
    """What the handler setup_logging installs writes for one record."""
    import io

    from kolkhoz_tg.logs import RedactingFilter

    exc_info = None
    if exc is not None:
        try:
            raise exc
        except BaseException:
            import sys

            exc_info = sys.exc_info()
    record = logging.LogRecord(logger, level, __file__, 1, msg, args, exc_info)
    for key, value in extra.items():
        setattr(record, key, value)
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter() if fmt == "json" else logging.Formatter(
        "%(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RedactingFilter(secrets))
    handler.handle(record)
    return stream.getvalue()


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_the_token_is_redacted_everywhere(fmt: str) -> None:
    url = f"https://api.telegram.org/bot{TOKEN}/getUpdates"
    out = emit("httpx", logging.INFO, 'HTTP Request: POST %s "HTTP/1.1 200 OK"', url, fmt=fmt)
    assert TOKEN not in out and "bot<token>/getUpdates" in out
    # A token given to the filter, whatever its shape, in the message, an extra field and
    # the traceback.
    out = emit("kolkhoz_tg.x", logging.ERROR, "failed with %s", "42:short-test-token",
               fmt=fmt, secrets=("42:short-test-token",), where="at 42:short-test-token",
               exc=ValueError("token 42:short-test-token refused"))
    assert "short-test-token" not in out
    assert out.count("<token>") >= (2 if fmt == "text" else 3)
    assert "ValueError: token <token> refused" in (out if fmt == "text" else
                                                   json.loads(out)["error"])
    # The password of a database URL.
    out = emit("kolkhoz_tg.x", logging.WARNING, "cannot reach %s",
               "postgresql://kolkhoz:s3cret@db:5432/kolkhoz", fmt=fmt)
    assert "s3cret" not in out and "postgresql://kolkhoz:***@db:5432/kolkhoz" in out


def test_bot_api_bodies_are_not_logged() -> None:
    """python-telegram-bot's DEBUG lines about requests, results and updates keep the
    method, the chat and the update id, never texts, buttons or cards."""
    from telegram import Chat, Message, Update, User

    params = {"chat_id": 7001, "text": "Your cards: 10♥ Q♠ 7♦",
              "reply_markup": {"inline_keyboard": [[{"text": "10♥"}]]}}
    out = emit("telegram.ext.ExtBot", logging.DEBUG,
               "Calling Bot API endpoint `%s` with parameters `%s`", "sendMessage", params)
    assert out == ("DEBUG telegram.ext.ExtBot: Calling Bot API endpoint `sendMessage` "
                   "(chat_id=7001; text, reply_markup not logged)\n")
    out = emit("telegram.ext.ExtBot", logging.DEBUG,
               "Call to Bot API endpoint `%s` finished with return value `%s`", "sendMessage",
               {"message_id": 5, "text": "Your cards: 10♥ Q♠ 7♦"})
    assert "♥" not in out and "finished (return value not logged)" in out
    user = User(7001, "Anna", False)
    message = Message(1, datetime.now(UTC), Chat(7001, "private"), from_user=user,
                      text="/play 10♥")
    out = emit("telegram.ext.Application", logging.DEBUG, "Processing update %s",
               Update(99, message=message))
    assert out == "DEBUG telegram.ext.Application: Processing update 99 (message)\n"
    # Any other python-telegram-bot line with a Telegram object or a payload in it.
    out = emit("telegram.ext.Updater", logging.DEBUG, "got %s and %s", message, 3)
    assert "♥" not in out and out.endswith("got <Message, not logged> and 3\n")
    out = emit("telegram.ext.Updater", logging.DEBUG, "Webhook received data: %s",
               '{"message": {"text": "/play 10♥"}}')
    assert "♥" not in out
    # Our own lines are left alone (they name chats and games, never cards).
    assert emit("kolkhoz_tg.bot", logging.INFO, "game %s: %s", 3, "ok").endswith(
        "game 3: ok\n")


def test_a_record_whose_arguments_do_not_fit_is_still_one_line() -> None:
    out = emit("kolkhoz_tg.x", logging.WARNING, "two %s %s", "one")
    assert out.startswith("WARNING kolkhoz_tg.x: two %s %s (arguments not logged")


async def test_an_update_failing_on_a_database_outage_is_logged_in_one_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The database gone while an update is handled: one line that says so, without the
    traceback of every update of the outage."""
    from types import SimpleNamespace

    from sqlalchemy.exc import OperationalError

    from kolkhoz_tg.bot.buttons import on_error

    error = OperationalError("SELECT 1", {}, Exception("connection refused\nmore"))
    with caplog.at_level(logging.ERROR, logger="kolkhoz_tg.bot.buttons"):
        await on_error(object(), SimpleNamespace(error=error))  # type: ignore[arg-type]
    assert [r.getMessage() for r in caplog.records] == [
        "the database is unreachable (update not handled): connection refused"]
    assert caplog.records[0].exc_info is None
