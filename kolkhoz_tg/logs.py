"""Logging set-up: readable lines for people, or one JSON object a line for collectors.

Two things hold at every level, ``DEBUG`` included:

- **Quiet when idle.** Libraries that write a line per job run or per HTTP request
  (APScheduler runs the outbox relay every 2 s, httpx logs every ``getUpdates``, Tornado
  every webhook call and health check) log only warnings unless the level is ``DEBUG``:
  a bot with nothing to do writes nothing at ``INFO``.
- **No secrets.** :class:`RedactingFilter`, on the root handler, replaces the bot token
  (and the other secrets it is given) with ``<token>`` and passwords in URLs with ``***``,
  and drops what python-telegram-bot's ``DEBUG`` lines would show of Bot API requests,
  their results and incoming updates: those carry every private hand and message.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import sys
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any, TextIO

#: Loggers that write a line per job run or per request at INFO: WARNING unless DEBUG.
CHATTY_LOGGERS = (
    "apscheduler",  # "Running job …" / "… executed successfully" every relay tick
    "apscheduler.scheduler",
    "apscheduler.executors.default",
    "httpx",  # "HTTP Request: POST …/getUpdates" for every request
    "httpcore",
    "tornado.access",  # every webhook call and health check (4xx and 5xx are warnings)
)
#: Loggers that are never worth their INFO lines here.
QUIET_LOGGERS = ("alembic",)

REDACTED_TOKEN = "<token>"
#: A Telegram bot token: the bot's numeric id, a colon and 35 characters of base64url.
TOKEN_PATTERN = re.compile(r"\b\d{5,16}:[A-Za-z0-9_-]{30,}")
#: Whatever follows ``/bot`` in a Bot API URL (``…/bot<id>:<secret>/getUpdates``).
URL_TOKEN_PATTERN = re.compile(r"(/bot)\d+:[^/\s'\"`]+")
#: The password of ``scheme://user:password@host``.
URL_PASSWORD_PATTERN = re.compile(r"(\b[a-z][a-z0-9+.-]*://[^/:@\s]*:)[^/@\s]+(@)", re.I)
#: Secrets shorter than this are not replaced (they would match ordinary words).
MIN_SECRET = 6

#: Bot API parameters whose values say where a call went, not what it carried.
SAFE_PARAMETERS = frozenset({
    "chat_id", "message_id", "message_thread_id", "user_id", "offset", "limit", "timeout",
    "allowed_updates", "inline_message_id", "from_chat_id",
})
_CALL = "Calling Bot API endpoint `%s` with parameters `%s`"
_RESULT = "Call to Bot API endpoint `%s` finished with return value `%s`"
_UPDATES = ("Processing update %s", "Dropping pending update: %s")
_WEBHOOK_DATA = "Webhook received data: %s"


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
        if record.exc_text:  # prepared (and redacted) by RedactingFilter
            out["error"] = record.exc_text
        elif record.exc_info:
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


def _is_telegram_object(value: object) -> bool:
    return type(value).__module__.split(".")[0] == "telegram"


def _update_summary(update: object) -> str:
    """``Update 42 (callback_query)``: the id and kind of an update, none of its content."""
    update_id = getattr(update, "update_id", None)
    if update_id is None:
        return f"<{type(update).__name__}, not logged>"
    kinds = [kind for kind in getattr(type(update), "ALL_TYPES", ())
             if getattr(update, kind, None) is not None]
    return f"{update_id} ({', '.join(kinds) or 'unknown'})"


def _parameters_summary(data: object) -> str:
    if not isinstance(data, Mapping):
        return "(not logged)"
    kept = [f"{key}={data[key]!r}" for key in data if key in SAFE_PARAMETERS]
    hidden = [str(key) for key in data if key not in SAFE_PARAMETERS]
    parts = kept + ([f"{', '.join(hidden)} not logged"] if hidden else [])
    return "(" + "; ".join(parts) + ")" if parts else "(none)"


def _summary(record: logging.LogRecord) -> str | None:
    """The message for a python-telegram-bot line that would carry bodies, else None."""
    if not record.name.startswith("telegram"):
        return None
    args = record.args if isinstance(record.args, tuple) else (record.args,)
    if record.msg == _CALL and len(args) == 2:
        return f"Calling Bot API endpoint `{args[0]}` {_parameters_summary(args[1])}"
    if record.msg == _RESULT and len(args) == 2:
        return f"Call to Bot API endpoint `{args[0]}` finished (return value not logged)"
    if record.msg in _UPDATES and len(args) == 1:
        return str(record.msg).replace("%s", "") + _update_summary(args[0])
    if record.msg == _WEBHOOK_DATA:
        return "Webhook received data (not logged)"
    if args and any(_is_telegram_object(a) or isinstance(a, Mapping | bytes) for a in args):
        # Any other line with a Telegram object or a payload: the message, not the values.
        shown = tuple(f"<{type(a).__name__}, not logged>"
                      if _is_telegram_object(a) or isinstance(a, Mapping | bytes) else a
                      for a in args)
        try:
            return str(record.msg) % shown
        except (TypeError, ValueError):
            return str(record.msg)
    return None


class RedactingFilter(logging.Filter):
    """Keeps secrets and private content out of every record that reaches the handler.

    The bot token (any string shaped like one, and the ``secrets`` given) becomes
    ``<token>``, a URL's password ``***``; python-telegram-bot's lines about Bot API
    requests, their results and incoming updates keep the method, the chat and the update
    id, never the texts, buttons or cards. The record's message is formatted here (its
    arguments dropped) and so is its traceback, both redacted."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        unique = {s for s in secrets if s and len(s) >= MIN_SECRET}
        self.secrets = sorted(unique, key=len, reverse=True)  # the longest first

    def redact(self, text: str) -> str:
        for secret in self.secrets:
            if secret in text:
                text = text.replace(secret, REDACTED_TOKEN)
        text = URL_TOKEN_PATTERN.sub(rf"\g<1>{REDACTED_TOKEN}", text)
        text = TOKEN_PATTERN.sub(REDACTED_TOKEN, text)
        return URL_PASSWORD_PATTERN.sub(r"\g<1>***\g<2>", text)

    def filter(self, record: logging.LogRecord) -> bool:
        message = _summary(record)
        if message is None:
            try:
                message = record.getMessage()
            except Exception:  # arguments that do not fit the message: show the message
                message = f"{record.msg} (arguments not logged: they do not fit the message)"
        record.msg = self.redact(message)
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.redact(record.exc_text)
        if record.stack_info:
            record.stack_info = self.redact(record.stack_info)
        for key, value in list(vars(record).items()):
            if key not in JsonFormatter._STANDARD and isinstance(value, str):
                setattr(record, key, self.redact(value))
        return True


def setup_logging(
    fmt: str = "text",
    level: str = "INFO",
    *,
    secrets: Iterable[str] = (),
    stream: TextIO | None = None,
) -> None:
    """One handler on the root logger (standard error unless ``stream``), in ``fmt``
    (``text`` or ``json``), at ``level``, redacting ``secrets`` (the bot token, the
    webhook secret) and anything shaped like a token. Libraries that log every request or
    job run are held at WARNING unless ``level`` is ``DEBUG``."""
    handler = logging.StreamHandler(stream or sys.stderr)
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RedactingFilter(secrets))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    debug = root.getEffectiveLevel() <= logging.DEBUG
    for name in CHATTY_LOGGERS:
        logging.getLogger(name).setLevel(logging.NOTSET if debug else logging.WARNING)
    for name in QUIET_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)
    executor = logging.getLogger("apscheduler.executors.default")
    if not any(isinstance(f, CancelledJobFilter) for f in executor.filters):
        executor.addFilter(CancelledJobFilter())
