"""A player's own settings and absence in words (:mod:`kolkhoz_tg.bot.personal`):
``/settings`` in private (time zone, quiet hours) and ``/away``."""

from __future__ import annotations

from datetime import datetime

from kolkhoz_tg.i18n import Translator
from kolkhoz_tg.service import UserInfo
from kolkhoz_tg.timeutil import format_clock_time, local_time, zone_label


def settings_text(tr: Translator, user: UserInfo | None, now: datetime) -> str:
    """The user's time zone (with the time on their clock now), quiet hours and how to
    change them."""
    _ = tr.gettext
    tz = user.timezone if user is not None else None
    if tz:
        clock = local_time(tz, now).strftime("%H:%M")
        lines = [_("Your time zone: {zone} (now {time}).", zone=zone_label(tz), time=clock)]
    else:
        lines = [_("Your time zone is not set: reminders come at any hour.")]
    if tz and user is not None and user.quiet_start is not None and user.quiet_end is not None:
        lines.append(_("Quiet hours: {start}–{end}; a reminder due then waits for the morning.",
                       start=format_clock_time(user.quiet_start),
                       end=format_clock_time(user.quiet_end)))
    else:
        lines.append(_("Quiet hours: off."))
    lines.append(settings_usage(tr))
    return "\n".join(lines)


def settings_usage(tr: Translator) -> str:
    return tr.gettext("Change with: /settings tz Moscow · tz +3 · quiet 23:00-08:00 · "
                      "quiet off")


def settings_refused(tr: Translator, code: str, value: str) -> str:
    """Why ``/settings tz …`` or ``quiet …`` changed nothing (the service's error code)."""
    _ = tr.gettext
    if code == "bad_timezone":
        return _("I do not know the time zone «{text}». Name a city (Moscow, Новосибирск), "
                 "a zone (Europe/Moscow) or an offset from UTC (+3, UTC-05:00).",
                 text=value)
    if code == "no_timezone":
        return _("Set your time zone first (/settings tz Moscow): quiet hours are read on "
                 "your clock.")
    return _("«{text}» is not a quiet window: give two times, like 23:00-08:00, or "
             "off.", text=value)


def away_usage(tr: Translator) -> str:
    return tr.gettext("Usage: /away, or /away 3d for three days (12h, 2d …); in private, "
                      "/away g12 for game 12 only.")




def away_already(tr: Translator) -> str:
    return tr.gettext("A bot already plays for you. Send /back to take your seat back.")


def away_text(tr: Translator, gone: int, until: datetime | None, now: datetime) -> str:
    """``/away`` done in ``gone`` games, until a time or until the player is back."""
    text = tr.ngettext(
        "A bot plays for you in {n} game now; its moves do not count as missed turns. "
        "Send /back or make any move to take your seat back.",
        "A bot plays for you in {n} games now; its moves do not count as missed turns. "
        "Send /back or make any move to take your seat back.", gone)
    if until is not None:
        text += "\n" + tr.gettext("It gives your seat back by itself {when}.",
                                  when=tr.relative(until, now))
    return text
