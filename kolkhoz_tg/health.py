"""``kolkhoz health``: is the bot alive? For Docker's ``HEALTHCHECK`` and any supervisor.

The running bot (``kolkhoz bot``, either mode) writes a small JSON *heartbeat* file to
``KOLKHOZ_HEALTH_FILE`` every few seconds (:mod:`kolkhoz_tg.bot.heartbeat`): when it last
reached its database, and when Telegram last answered a ``getUpdates`` (polling) or last
delivered an update (webhook). ``kolkhoz health`` reads that file and exits 0 when

- the file is fresh (the bot's event loop is alive),
- the bot's last database check succeeded recently, and
- polling: its last ``getUpdates`` succeeded recently; webhook: its own ``/healthz``
  answers 200 (a quiet bot gets no webhook calls, so their age proves nothing).

Otherwise it exits 1 and says why in one line on standard error (Docker keeps the output
of its last checks: ``docker inspect --format '{{json .State.Health}}' CONTAINER``). It
imports nothing but the standard library and the settings: a check every 30 s costs little.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import TextIO

#: How often the bot writes its heartbeat (seconds).
BEAT_INTERVAL = 15.0
MODES = ("polling", "webhook")


class HealthError(Exception):
    """The heartbeat cannot be read."""


@dataclass
class Beat:
    """What the bot knows of its own health, as written to the heartbeat file.

    Times are seconds since the epoch (``time.time()``): the file is read by another
    process, which shares the wall clock only."""

    mode: str
    pid: int
    written: float
    #: The last successful database check, and the error of the last failed one since.
    database_ok: float | None = None
    database_error: str | None = None
    #: Polling: the last successful ``getUpdates``. Webhook: the last update delivered.
    telegram_ok: float | None = None
    #: Webhook mode: the local URL of the bot's own health endpoint.
    health_url: str | None = None

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> Beat:
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        known = {f.name for f in fields(cls)}
        beat = cls(**{k: v for k, v in data.items() if k in known})
        if beat.mode not in MODES:
            raise ValueError(f"unknown mode {beat.mode!r}")
        return beat


def write_beat(path: Path, beat: Beat) -> None:
    """Replace ``path`` with ``beat`` at once: a reader never sees half a file."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.write_text(beat.to_json() + "\n", encoding="utf-8")
    os.replace(tmp, path)


def read_beat(path: Path) -> Beat:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise HealthError(f"no heartbeat at {path}: the bot is not running (yet), or it "
                          "writes its heartbeat elsewhere (KOLKHOZ_HEALTH_FILE)") from None
    except OSError as e:
        raise HealthError(f"cannot read the heartbeat {path}: {e.strerror or e}") from None
    try:
        return Beat.from_json(text)
    except (ValueError, TypeError) as e:
        raise HealthError(f"the heartbeat {path} is not readable: {e}") from None


def _ago(now: float, then: float) -> str:
    return f"{max(0.0, now - then):.0f} s ago"


def probe(url: str, timeout: float = 5.0) -> str | None:
    """None when ``GET url`` answers 200, else what went wrong. The URL is local: no
    proxy from the environment is asked."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(url, timeout=timeout) as response:
            status = int(response.status)
    except urllib.error.HTTPError as e:
        status = e.code
    except (OSError, ValueError) as e:
        reason = getattr(e, "reason", None) or e
        return f"{url} does not answer: {reason}"
    return None if status == 200 else f"{url} answered {status}"


def problems(beat: Beat, now: float, max_age: float, timeout: float = 5.0) -> list[str]:
    """Why the bot that wrote ``beat`` is not healthy at ``now`` (empty: it is)."""
    found: list[str] = []
    if now - beat.written > max_age:
        return [f"the bot has not written its heartbeat for {now - beat.written:.0f} s "
                f"(pid {beat.pid}: stopped or stuck)"]
    if beat.database_ok is None or now - beat.database_ok > max_age:
        since = "never reached" if beat.database_ok is None else (
            f"last reached {_ago(now, beat.database_ok)}")
        error = f": {beat.database_error}" if beat.database_error else ""
        found.append(f"the database is unreachable ({since}){error}")
    if beat.mode == "polling":
        if beat.telegram_ok is None:
            found.append("no successful getUpdates yet")
        elif now - beat.telegram_ok > max_age:
            found.append(f"no successful getUpdates for {now - beat.telegram_ok:.0f} s "
                         "(Telegram unreachable?)")
    elif beat.health_url:
        failure = probe(beat.health_url, timeout)
        if failure:
            found.append(failure)
    return found


def summary(beat: Beat, now: float) -> str:
    """One line for a healthy bot (Docker keeps it in ``docker inspect``)."""
    parts = [f"ok: {beat.mode}"]
    if beat.database_ok is not None:
        parts.append(f"database {_ago(now, beat.database_ok)}")
    what = "getUpdates" if beat.mode == "polling" else "last update"
    parts.append(f"{what} {_ago(now, beat.telegram_ok) if beat.telegram_ok else 'none yet'}")
    return ", ".join(parts)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--file", default=None,
                        help="the heartbeat file (default: KOLKHOZ_HEALTH_FILE)")
    parser.add_argument("--max-age", dest="max_age", default=None, metavar="DURATION",
                        help="how old the heartbeat, the database check and the last "
                             "getUpdates may be (default: KOLKHOZ_HEALTH_MAX_AGE, 60s)")


def run(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None,
        now: float | None = None) -> int:
    """``kolkhoz health``: 0 healthy, else 1 (Docker reserves 2) with one line saying why."""
    from kolkhoz_tg.config import Settings
    from kolkhoz_tg.timeutil import parse_duration

    out = out or sys.stdout
    err = err or sys.stderr
    settings = Settings()
    path = args.file or settings.health_file
    if not path:
        print("kolkhoz health: KOLKHOZ_HEALTH_FILE is not set, so the bot writes no "
              "heartbeat (the Docker image sets it)", file=err)
        return 1
    try:
        max_age = (parse_duration(args.max_age) if args.max_age
                   else settings.health_max_age).total_seconds()
    except ValueError as e:
        print(f"kolkhoz health: --max-age: {e}", file=err)
        return 1
    now = time.time() if now is None else now
    try:
        beat = read_beat(Path(path))
    except HealthError as e:
        print(f"unhealthy: {e}", file=err)
        return 1
    found = problems(beat, now, max_age)
    if found:
        print(f"unhealthy ({beat.mode}): {'; '.join(found)}", file=err)
        return 1
    print(summary(beat, now), file=out)
    return 0
