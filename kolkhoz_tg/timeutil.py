"""Durations, the injectable clock and quiet hours: everything about time the core needs.

All datetimes the core stores or returns are timezone-aware UTC.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from typing import Protocol
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)\s*(d|h|m|s|min|sec|ч|м|с|д)?", re.IGNORECASE)
_UNIT_SECONDS = {
    None: 1, "s": 1, "sec": 1, "с": 1,
    "m": 60, "min": 60, "м": 60,
    "h": 3600, "ч": 3600,
    "d": 86400, "д": 86400,
}


def parse_duration(value: str | int | float | timedelta) -> timedelta:
    """Read ``"24h"``, ``"90s"``, ``"1h30m"``, ``"2d"``, ``"15m"`` or plain seconds.

    Raises :class:`ValueError` for anything else (or a non-positive duration).
    """
    if isinstance(value, timedelta):
        result = value
    elif isinstance(value, int | float) and not isinstance(value, bool):
        result = timedelta(seconds=value)
    elif isinstance(value, str):
        text = value.strip().lower().replace(" ", "")
        pos = 0
        seconds = 0.0
        if not text:
            raise ValueError("empty duration")
        while pos < len(text):
            m = _DURATION_PART.match(text, pos)
            if m is None or m.end() == pos:
                raise ValueError(f"not a duration: {value!r} (try 90s, 15m, 24h, 2d)")
            seconds += float(m.group(1)) * _UNIT_SECONDS[m.group(2)]
            pos = m.end()
        result = timedelta(seconds=seconds)
    else:
        raise ValueError(f"not a duration: {value!r}")
    if result <= timedelta(0):
        raise ValueError(f"a duration must be positive, not {value!r}")
    return result


def format_duration(delta: timedelta) -> str:
    """The compact inverse of :func:`parse_duration`: ``"1d2h"``, ``"90s"`` → ``"1m30s"``."""
    total = int(delta.total_seconds())
    parts = []
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        if total >= size:
            parts.append(f"{total // size}{unit}")
            total %= size
    return "".join(parts) or "0s"


def utc(dt: datetime) -> datetime:
    """The same instant as an aware UTC datetime (naive values are taken to be UTC)."""
    if dt.tzinfo is None:
        return dt.replace(tzinfo=UTC)
    return dt.astimezone(UTC)


class Clock(Protocol):
    """Where the core gets "now" from; tests pass a :class:`FakeClock`."""

    def now(self) -> datetime: ...


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)


class FakeClock:
    """A clock that only moves when told to (thread-safe)."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = utc(start) if start else datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
        self._lock = threading.Lock()

    def now(self) -> datetime:
        with self._lock:
            return self._now

    def advance(self, delta: timedelta | float) -> datetime:
        step = delta if isinstance(delta, timedelta) else timedelta(seconds=delta)
        with self._lock:
            self._now += step
            return self._now

    def set(self, when: datetime) -> None:
        with self._lock:
            self._now = utc(when)


def parse_clock_time(text: str) -> int:
    """``"23:00"`` → minutes after midnight; raises :class:`ValueError`."""
    m = re.fullmatch(r"\s*(\d{1,2})(?::(\d{2}))?\s*", text)
    if not m:
        raise ValueError(f"not a time of day: {text!r} (try 23:00)")
    hours, minutes = int(m.group(1)), int(m.group(2) or 0)
    if hours > 24 or minutes > 59 or hours * 60 + minutes > 24 * 60:
        raise ValueError(f"not a time of day: {text!r}")
    return (hours * 60 + minutes) % (24 * 60)


def check_timezone(name: str) -> str:
    """The name if it is a known IANA time zone; raises :class:`ValueError` otherwise."""
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"unknown time zone: {name!r} (try Europe/Moscow)") from None
    return name


@dataclass(frozen=True, slots=True)
class QuietHours:
    """A player's night: from ``start`` to ``end`` (minutes after local midnight) in ``tz``.

    The window may cross midnight (23:00-08:00) or not (01:00-06:00).
    """

    tz: str
    start: int
    end: int

    def _contains(self, minute: int) -> bool:
        if self.start == self.end:
            return False
        if self.start < self.end:
            return self.start <= minute < self.end
        return minute >= self.start or minute < self.end

    def morning_after(self, when: datetime) -> datetime | None:
        """The end of the quiet window ``when`` falls in (UTC), or None if it is not quiet."""
        zone = ZoneInfo(self.tz)
        local = utc(when).astimezone(zone)
        minute = local.hour * 60 + local.minute
        if not self._contains(minute):
            return None
        end = time(self.end // 60, self.end % 60)
        day = local.date()
        if minute >= self.end:  # still before midnight: the morning is tomorrow
            day = day + timedelta(days=1)
        morning = datetime.combine(day, end, tzinfo=zone)
        return morning.astimezone(UTC)

    def adjust(self, due: datetime, deadline: datetime) -> datetime:
        """When a reminder due at ``due`` should go out: at night it waits for the morning,
        unless the deadline itself falls before then (then it goes out on time)."""
        morning = self.morning_after(due)
        if morning is None or morning >= deadline:
            return due
        return morning
