"""Logging set-up: readable lines for people, or one JSON object a line for collectors."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from datetime import UTC, datetime
from typing import Any


class JsonFormatter(logging.Formatter):
    """``{"time": …, "level": …, "logger": …, "message": …}`` plus any ``extra`` fields."""

    _STANDARD = set(vars(logging.makeLogRecord({}))) | {"message", "asctime"}

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in self._STANDARD and not key.startswith("_"):
                out[key] = value if isinstance(value, str | int | float | bool) else str(value)
        if record.exc_info:
            out["error"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False)


class CancelledJobFilter(logging.Filter):
    """APScheduler's asyncio executor cancels the job running when the scheduler shuts down
    and logs that as an error. PTB's job runs its callback under ``asyncio.shield``, so the
    work goes on and nothing failed: the record becomes one INFO line without a traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, asyncio.CancelledError):
            record.levelno, record.levelname = logging.INFO, "INFO"
            record.msg = f"{record.msg} (cancelled: the scheduler is shutting down)"
            record.exc_info = None
            record.exc_text = None
        return True


def setup_logging(fmt: str = "text", level: str = "INFO") -> None:
    handler = logging.StreamHandler(sys.stderr)
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    # One line per Bot API request is noise at INFO.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    logging.getLogger("alembic").setLevel(logging.WARNING)
    logging.getLogger("apscheduler.executors.default").addFilter(CancelledJobFilter())
