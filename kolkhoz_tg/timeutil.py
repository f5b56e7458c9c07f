"""Durations, the injectable clock and quiet hours: everything about time the core needs.

All datetimes the core stores or returns are timezone-aware UTC.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from functools import cache
from typing import Protocol
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

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
    try:
        result = _duration(value)
    except OverflowError:
        raise ValueError(f"too long a duration: {value!r}") from None
    if result <= timedelta(0):
        raise ValueError(f"a duration must be positive, not {value!r}")
    return result


def _duration(value: str | int | float | timedelta) -> timedelta:
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


# ---------------------------------------------------------------------- time zones by name

#: A city as people write it in Russian → its IANA zone (the common Russian, CIS and
#: European cities; any other city is found by its English name in the zone database).
#: Keys are folded as :func:`_fold` does.
RUSSIAN_CITIES = {
    "москва": "Europe/Moscow", "санкт_петербург": "Europe/Moscow",
    "петербург": "Europe/Moscow", "питер": "Europe/Moscow", "спб": "Europe/Moscow",
    "казань": "Europe/Moscow", "нижний_новгород": "Europe/Moscow",
    "ростов_на_дону": "Europe/Moscow", "ростов": "Europe/Moscow",
    "краснодар": "Europe/Moscow", "сочи": "Europe/Moscow", "воронеж": "Europe/Moscow",
    "ярославль": "Europe/Moscow", "тула": "Europe/Moscow", "мурманск": "Europe/Moscow",
    "архангельск": "Europe/Moscow", "симферополь": "Europe/Simferopol",
    "калининград": "Europe/Kaliningrad", "самара": "Europe/Samara",
    "ижевск": "Europe/Samara", "волгоград": "Europe/Volgograd",
    "саратов": "Europe/Saratov", "ульяновск": "Europe/Ulyanovsk",
    "астрахань": "Europe/Astrakhan", "киров": "Europe/Kirov",
    "екатеринбург": "Asia/Yekaterinburg", "челябинск": "Asia/Yekaterinburg",
    "пермь": "Asia/Yekaterinburg", "уфа": "Asia/Yekaterinburg",
    "тюмень": "Asia/Yekaterinburg", "оренбург": "Asia/Yekaterinburg",
    "омск": "Asia/Omsk", "новосибирск": "Asia/Novosibirsk", "барнаул": "Asia/Barnaul",
    "томск": "Asia/Tomsk", "новокузнецк": "Asia/Novokuznetsk",
    "кемерово": "Asia/Novokuznetsk", "красноярск": "Asia/Krasnoyarsk",
    "иркутск": "Asia/Irkutsk", "улан_удэ": "Asia/Irkutsk", "чита": "Asia/Chita",
    "якутск": "Asia/Yakutsk", "владивосток": "Asia/Vladivostok",
    "хабаровск": "Asia/Vladivostok", "южно_сахалинск": "Asia/Sakhalin",
    "сахалин": "Asia/Sakhalin", "магадан": "Asia/Magadan",
    "петропавловск_камчатский": "Asia/Kamchatka", "камчатка": "Asia/Kamchatka",
    "анадырь": "Asia/Anadyr",
    "минск": "Europe/Minsk", "киев": "Europe/Kyiv", "кишинев": "Europe/Chisinau",
    "рига": "Europe/Riga", "вильнюс": "Europe/Vilnius", "таллин": "Europe/Tallinn",
    "таллинн": "Europe/Tallinn", "алматы": "Asia/Almaty", "алма_ата": "Asia/Almaty",
    "астана": "Asia/Almaty", "ташкент": "Asia/Tashkent", "бишкек": "Asia/Bishkek",
    "душанбе": "Asia/Dushanbe", "ашхабад": "Asia/Ashgabat", "баку": "Asia/Baku",
    "ереван": "Asia/Yerevan", "тбилиси": "Asia/Tbilisi",
    "лондон": "Europe/London", "дублин": "Europe/Dublin", "лиссабон": "Europe/Lisbon",
    "париж": "Europe/Paris", "берлин": "Europe/Berlin", "мюнхен": "Europe/Berlin",
    "амстердам": "Europe/Amsterdam", "брюссель": "Europe/Brussels",
    "мадрид": "Europe/Madrid", "барселона": "Europe/Madrid", "рим": "Europe/Rome",
    "милан": "Europe/Rome", "вена": "Europe/Vienna", "прага": "Europe/Prague",
    "варшава": "Europe/Warsaw", "будапешт": "Europe/Budapest",
    "белград": "Europe/Belgrade", "цюрих": "Europe/Zurich", "женева": "Europe/Zurich",
    "копенгаген": "Europe/Copenhagen", "осло": "Europe/Oslo",
    "стокгольм": "Europe/Stockholm", "хельсинки": "Europe/Helsinki",
    "бухарест": "Europe/Bucharest", "софия": "Europe/Sofia", "афины": "Europe/Athens",
    "стамбул": "Europe/Istanbul", "анкара": "Europe/Istanbul",
    "тель_авив": "Asia/Jerusalem", "иерусалим": "Asia/Jerusalem", "дубай": "Asia/Dubai",
    "пекин": "Asia/Shanghai", "шанхай": "Asia/Shanghai", "токио": "Asia/Tokyo",
    "бангкок": "Asia/Bangkok", "дели": "Asia/Kolkata", "нью_йорк": "America/New_York",
    "лос_анджелес": "America/Los_Angeles", "чикаго": "America/Chicago",
    "торонто": "America/Toronto",
}

#: Offsets off the whole hour have no ``Etc/GMT…`` zone: a zone that keeps that offset.
_ODD_OFFSETS = {
    -570: "Pacific/Marquesas", -210: "America/St_Johns", 210: "Asia/Tehran",
    270: "Asia/Kabul", 330: "Asia/Kolkata", 345: "Asia/Kathmandu", 390: "Asia/Yangon",
    525: "Australia/Eucla", 570: "Australia/Darwin", 630: "Australia/Lord_Howe",
    765: "Pacific/Chatham",
}
_OFFSET = re.compile(r"(?:utc|gmt)?\s*([+\-−])\s*(\d{1,2})(?::?(\d{2}))?")
_AREAS = ("Europe", "Asia", "America", "Africa", "Australia", "Pacific", "Atlantic",
          "Indian", "Antarctica")


def _fold(text: str) -> str:
    """``" Нью-Йорк "`` → ``"нью_йорк"``: lower case, ё as е, spaces and dashes as ``_``."""
    return re.sub(r"[\s_-]+", "_", text.strip().lower().replace("ё", "е")).strip("_")


@cache
def _zones_by_city() -> dict[str, str]:
    """The zone database's last components (``new_york``) → zone names; where two zones
    share one (``Istanbul``), the one in a continent's area with the shortest name."""
    def preference(name: str) -> tuple[int, int, str]:
        area = name.split("/", 1)[0]
        return (_AREAS.index(area) if area in _AREAS else len(_AREAS), len(name), name)

    found: dict[str, str] = {}
    for name in sorted(available_timezones(), key=preference, reverse=True):
        if not name.startswith(("posix/", "right/")):
            found[name.rsplit("/", 1)[-1].lower()] = name
    return found


def offset_zone(minutes: int) -> str:
    """A zone that is always ``minutes`` ahead of UTC: ``180`` → ``"Etc/GMT-3"`` (the
    POSIX sign is inverted). Raises :class:`ValueError` for an offset no zone has."""
    if minutes == 0:
        return "UTC"
    if minutes % 60 == 0 and -12 <= minutes // 60 <= 14:
        return f"Etc/GMT{-minutes // 60:+d}"
    if minutes in _ODD_OFFSETS:
        return _ODD_OFFSETS[minutes]
    raise ValueError(f"no time zone is UTC{minutes / 60:+g}")


def find_zone(text: str) -> str:
    """The IANA zone for what a person typed: a zone name (``Europe/Moscow``), a city in
    English or Russian (``new york``, ``Москва``), or an offset from UTC (``+3``,
    ``UTC+03:00``, ``-5``, ``UTC``). Raises :class:`ValueError` if none fits."""
    cleaned = text.strip()
    if not cleaned:
        raise ValueError("empty time zone")
    folded = _fold(cleaned)
    if folded in ("utc", "gmt", "z"):
        return "UTC"
    m = _OFFSET.fullmatch(re.sub(r"\s+", "", cleaned.lower()))
    if m is not None:
        hours, minutes = int(m.group(2)), int(m.group(3) or 0)
        if minutes >= 60:
            raise ValueError(f"not an offset: {text!r}")
        total = (hours * 60 + minutes) * (-1 if m.group(1) in "-−" else 1)
        return offset_zone(total)
    if "/" in cleaned:
        wanted = cleaned.replace(" ", "_").lower()
        for name in available_timezones():
            if name.lower() == wanted:
                return name
    if folded in RUSSIAN_CITIES:
        return check_timezone(RUSSIAN_CITIES[folded])
    by_city = _zones_by_city()
    if folded in by_city:
        return by_city[folded]
    raise ValueError(f"unknown time zone: {text!r} (try Europe/Moscow, Moscow or +3)")


def zone_label(name: str) -> str:
    """How to show a zone: ``Etc/GMT-3`` reads ``UTC+3`` (its sign is POSIX's)."""
    m = re.fullmatch(r"Etc/GMT([+-]\d+)", name)
    if m is None:
        return name
    hours = -int(m.group(1))
    return "UTC" if hours == 0 else f"UTC{hours:+d}"


def parse_quiet_window(text: str) -> tuple[int, int]:
    """``"23:00-08:00"`` (also ``23-8``, ``23:00–08:00``, ``23:00 08:00``) → the start and
    end in minutes after midnight. Raises :class:`ValueError`; an empty window too."""
    parts = [p for p in re.split(r"\s*[-–—]\s*|\s+", text.strip()) if p]
    if len(parts) != 2:
        raise ValueError(f"not a window: {text!r} (try 23:00-08:00)")
    start, end = parse_clock_time(parts[0]), parse_clock_time(parts[1])
    if start == end:
        raise ValueError(f"an empty window: {text!r}")
    return start, end


def format_clock_time(minutes: int) -> str:
    """Minutes after midnight → ``"08:00"`` (the inverse of :func:`parse_clock_time`)."""
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def local_time(tz: str, when: datetime) -> datetime:
    """``when`` on the clocks of zone ``tz``."""
    return utc(when).astimezone(ZoneInfo(tz))
