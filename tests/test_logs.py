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
