"""Turn deadlines and reminder times (pure functions; the service stores the results).

A reminder spec is ``"50%"`` (when half the time limit has gone) or a duration before the
deadline (``"1h"``, ``"30m"``). Default: ``["50%", "1h"]`` — at half time and one hour before.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

from kolkhoz_tg.timeutil import QuietHours, format_duration, parse_duration

DEFAULT_REMINDERS = ("50%", "1h")
MIN_TURN_TIMEOUT = timedelta(minutes=1)
MAX_TURN_TIMEOUT = timedelta(days=14)


def check_turn_timeout(value: str | int | float | timedelta) -> int:
    """The time limit in whole seconds; raises :class:`ValueError` outside 1 minute-14 days."""
    delta = parse_duration(value)
    if not MIN_TURN_TIMEOUT <= delta <= MAX_TURN_TIMEOUT:
        raise ValueError(
            f"a turn time limit must be from {format_duration(MIN_TURN_TIMEOUT)} "
            f"to {format_duration(MAX_TURN_TIMEOUT)}, not {value!r}"
        )
    return int(delta.total_seconds())


def normalize_reminders(specs: Iterable[str]) -> list[str]:
    """Validated, canonical reminder specs; raises :class:`ValueError` for a bad one."""
    out: list[str] = []
    for raw in specs:
        spec = str(raw).strip().lower()
        if not spec:
            continue
        if spec.endswith("%"):
            pct = float(spec[:-1])
            if not 0 < pct < 100:
                raise ValueError(f"a reminder percentage must be between 0 and 100: {raw!r}")
            spec = f"{pct:g}%"
        else:
            spec = format_duration(parse_duration(spec))
        if spec not in out:
            out.append(spec)
    return out


def reminder_offsets(specs: Iterable[str], limit: timedelta) -> list[timedelta]:
    """How long before the deadline each reminder goes, earliest reminder first; specs that
    would fall at or before the start of the turn are dropped."""
    offsets: set[timedelta] = set()
    for spec in specs:
        if spec.endswith("%"):
            before = limit * (1 - float(spec[:-1]) / 100)
        else:
            before = parse_duration(spec)
        if timedelta(0) < before < limit:
            offsets.add(timedelta(seconds=round(before.total_seconds())))
    return sorted(offsets, reverse=True)


def reminder_times(
    deadline: datetime,
    limit: timedelta,
    specs: Iterable[str],
    now: datetime,
    quiet: QuietHours | None = None,
) -> list[datetime]:
    """When to remind a player whose turn ends at ``deadline``: future times, earliest first,
    shifted out of their quiet hours (a night reminder waits for the morning unless the
    deadline comes first). Reminders that land on the same moment are merged."""
    times: list[datetime] = []
    for before in reminder_offsets(specs, limit):
        due = deadline - before
        if quiet is not None:
            due = quiet.adjust(due, deadline)
        if now < due < deadline and due not in times:
            times.append(due)
    times.sort()
    return times
