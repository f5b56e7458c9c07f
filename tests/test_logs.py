"""Structured logs: one JSON object a line, with extra fields and errors."""

from __future__ import annotations

import json
import logging

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
