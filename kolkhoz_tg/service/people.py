"""Users and chats: names, languages, private-message reach, quiet hours, chat defaults."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlmodel import select

from kolkhoz_tg.service.common import (
    LOBBY,
    TOPIC_NAMES,
    ChatInfo,
    UserInfo,
    chat_info,
    check_reminders,
    check_standin,
    check_timeout,
    locale_or_none,
    make_rules,
    user_changes,
    user_info,
)
from kolkhoz_tg.service.errors import BadRequest
from kolkhoz_tg.service.kernel import Kernel
from kolkhoz_tg.service.notices import subscribe, subscribers, withdraw_notices
from kolkhoz_tg.service.practice import open_practice
from kolkhoz_tg.service.rating_store import mark_stale
from kolkhoz_tg.service.records import PRACTICE_KEY, GameInfo, PlayerStats, UserStats
from kolkhoz_tg.storage.models import (
    ActionRow,
    ChatRow,
    GameRow,
    GameStatus,
    NotificationRow,
    SeatRow,
    UserRow,
)
from kolkhoz_tg.timeutil import (
    check_timezone,
    find_zone,
    parse_clock_time,
    parse_quiet_window,
)

#: How a chat's games show their board (:meth:`PeopleService.set_board_style`).
BOARD_STYLES = ("text", "picture", "rich")
#: How many topics' names a chat keeps (:meth:`PeopleService.name_topic`).
MAX_TOPIC_NAMES = 200

class PeopleService:
    """Users and chats: names, languages, private-message reach, quiet hours, chat
    defaults, stats."""

    def __init__(self, kernel: Kernel) -> None:
        self.kernel = kernel

    def ensure_user(self, user_id: int, name: str, locale: str | None = None) -> UserInfo:
        """Create or update a user (the name follows the latest; a locale is only taken when
        the user has not chosen one). Nothing is written when nothing would change, as on
        most messages: a command then never waits for another process's write lock."""
        with self.kernel.db.read() as s:
            known = s.get(UserRow, user_id)
            if known is not None and not user_changes(known, name, locale):
                return user_info(known)
        with self.kernel.write() as s:
            user = self.kernel.ensure_user_row(s, user_id, name, locale)
            return user_info(user)

    def user(self, user_id: int) -> UserInfo | None:
        with self.kernel.db.read() as s:
            user = s.get(UserRow, user_id)
            return None if user is None else user_info(user)

    def set_user_locale(self, user_id: int, locale: str) -> UserInfo:
        loc = locale_or_none(locale)
        if loc is None:
            raise BadRequest(f"unknown locale {locale!r}", "bad_locale")
        with self.kernel.write() as s:
            user = self.kernel.user_row(s, user_id)
            user.locale = loc
            return user_info(user)

    def set_can_pm(self, user_id: int, can_pm: bool) -> None:
        """Record whether the bot can write to the user privately."""
        with self.kernel.write() as s:
            self.kernel.user_row(s, user_id).can_pm = can_pm

    def set_quiet_hours(
        self, user_id: int, timezone: str | None, start: str | None = None,
        end: str | None = None,
    ) -> UserInfo:
        """Set the user's time zone and night window (``"23:00"``, ``"08:00"``); a None
        timezone clears them. Raises :class:`BadRequest` for a bad zone or time."""
        try:
            tz = None if timezone is None else check_timezone(timezone)
            qs = None if tz is None or start is None else parse_clock_time(start)
            qe = None if tz is None or end is None else parse_clock_time(end)
        except ValueError as e:
            raise BadRequest(str(e), "bad_quiet_hours") from None
        with self.kernel.write() as s:
            user = self.kernel.user_row(s, user_id)
            user.timezone, user.quiet_start, user.quiet_end = tz, qs, qe
            return user_info(user)

    def set_time_zone(self, user_id: int, zone: str | None) -> UserInfo:
        """Set the user's time zone from what they typed (a zone name, a city in English or
        Russian, an offset such as ``+3``: :func:`~kolkhoz_tg.timeutil.find_zone`), keeping
        their quiet hours; None clears the zone (and with it the quiet hours, which mean
        nothing without one). Raises :class:`BadRequest` (``bad_timezone``)."""
        try:
            tz = None if zone is None else find_zone(zone)
        except ValueError as e:
            raise BadRequest(str(e), "bad_timezone") from None
        with self.kernel.write() as s:
            user = self.kernel.user_row(s, user_id)
            user.timezone = tz
            if tz is None:
                user.quiet_start = user.quiet_end = None
            return user_info(user)

    def set_quiet_window(self, user_id: int, window: str | None) -> UserInfo:
        """Set the user's quiet hours in their time zone from ``"23:00-08:00"``; None turns
        them off. Raises :class:`BadRequest`: ``bad_quiet_hours`` for a window that is not
        one, ``no_timezone`` while the user has no time zone to read it in."""
        try:
            start, end = (None, None) if window is None else parse_quiet_window(window)
        except ValueError as e:
            raise BadRequest(str(e), "bad_quiet_hours") from None
        with self.kernel.write() as s:
            user = self.kernel.user_row(s, user_id)
            if start is not None and not user.timezone:
                raise BadRequest("quiet hours need a time zone", "no_timezone")
            user.quiet_start, user.quiet_end = start, end
            return user_info(user)

    def stood_in(self) -> list[tuple[int, int, dict[str, Any]]]:
        """The players a stand-in plays for in running games: ``(game_id, user_id, the
        game's meta)`` (for a front end that ends absences at a time it stored there)."""
        with self.kernel.db.read() as s:
            rows = s.exec(
                select(SeatRow.game_id, SeatRow.user_id, GameRow.meta)
                .join(GameRow, SeatRow.game_id == GameRow.id)  # type: ignore[arg-type]
                .where(SeatRow.standin, SeatRow.user_id.is_not(None))  # type: ignore[union-attr]
                .where(GameRow.status.in_(  # type: ignore[attr-defined]
                    (GameStatus.ACTIVE.value, GameStatus.PAUSED.value)))
            ).all()
        return [(g, u, dict(meta or {})) for g, u, meta in rows if u is not None]

    def ensure_chat(
        self, chat_id: int, title: str | None = None, locale: str | None = None
    ) -> ChatInfo:
        with self.kernel.write() as s:
            return chat_info(self.kernel.ensure_chat_row(s, chat_id, title, locale))

    def name_topic(self, chat_id: int, topic_id: int, name: str) -> None:
        """Remember the name of a chat's forum topic, as the bot saw it made or renamed
        (``/mygames`` names a game's topic by it); the latest names of at most
        :data:`MAX_TOPIC_NAMES` topics a chat."""
        with self.kernel.write() as s:
            chat = self.kernel.ensure_chat_row(s, chat_id)
            names = {k: v for k, v in (chat.settings.get(TOPIC_NAMES) or {}).items()
                     if k != str(topic_id)}
            names[str(topic_id)] = name[:128]
            chat.settings = {**chat.settings,
                             TOPIC_NAMES: dict(list(names.items())[-MAX_TOPIC_NAMES:])}

    def chat(self, chat_id: int) -> ChatInfo | None:
        with self.kernel.db.read() as s:
            chat = s.get(ChatRow, chat_id)
            return None if chat is None else chat_info(chat)

    def set_notify(
        self, chat_id: int, user_id: int, on: bool | None, name: str = ""
    ) -> bool:
        """``/notify on|off`` (``on`` None: the other way round than now, as the lobby's
        🔔 button): whether ``user_id`` is now told of each new lobby in ``chat_id``
        (:mod:`kolkhoz_tg.service.notices`)."""
        with self.kernel.write() as s:
            chat = self.kernel.ensure_chat_row(s, chat_id)
            if on is None:
                on = user_id not in subscribers(chat)
            self.kernel.ensure_user_row(s, user_id, name or None)
            subscribe(chat, user_id, on)
            if not on:
                withdraw_notices(s, chat_id, user_id, self.kernel.clock.now())
            return on

    def set_own_language(self, user_id: int, chat_id: int, locale: str) -> GameInfo | None:
        """``/lang`` in a private chat, in one transaction: the user's language, and their
        private chat's (``chat_id``: its messages, a practice game's board, follow the
        user). Returns the user's open practice game (its board to show again), or None.
        Raises :class:`BadRequest` (``bad_locale``) or :class:`NotFound`
        (``user_not_found``)."""
        loc = locale_or_none(locale)
        if loc is None:
            raise BadRequest(f"unknown locale {locale!r}", "bad_locale")
        with self.kernel.write() as s:
            self.kernel.user_row(s, user_id).locale = loc
            self.kernel.ensure_chat_row(s, chat_id).locale = loc
            row = open_practice(s, user_id)
            return None if row is None else self.kernel.game_info(s, row)

    def set_chat_language(
        self, chat_id: int, by_user: int, locale: str, *, admin: bool = False
    ) -> list[GameInfo] | None:
        """``/lang`` in a group, in one transaction: the whole chat's language, changed by
        one of its admins (``admin``: the front end vouches) or by the creator of every
        game open in it (of any topic; anyone while none is). Returns the chat's open games
        (their boards to show again), or None, changing nothing, when ``by_user`` may not.
        Raises :class:`BadRequest` (``bad_locale``)."""
        loc = locale_or_none(locale)
        if loc is None:
            raise BadRequest(f"unknown locale {locale!r}", "bad_locale")
        with self.kernel.write() as s:
            rows = self.kernel.games_at(s, chat_id, all_topics=True)
            if not (admin or {r.creator_id for r in rows} <= {by_user}):
                return None
            self.kernel.ensure_chat_row(s, chat_id).locale = loc
            return [self.kernel.game_info(s, r) for r in rows]

    def set_chat_locale(self, chat_id: int, locale: str) -> ChatInfo:
        loc = locale_or_none(locale)
        if loc is None:
            raise BadRequest(f"unknown locale {locale!r}", "bad_locale")
        with self.kernel.write() as s:
            chat = self.kernel.ensure_chat_row(s, chat_id)
            chat.locale = loc
            return chat_info(chat)

    def set_board_style(self, chat_id: int, style: str) -> list[GameInfo]:
        """How the chat's games show their board: ``text`` (a message edited in place) or
        ``picture`` (a photo edited in place, the short text in its caption) or ``rich`` (a
        rich message edited in place, Bot API 10.1), in one
        transaction. Returns the chat's open games (of every topic: their boards to show
        again). Raises :class:`BadRequest` (``bad_board_style``)."""
        if style not in BOARD_STYLES:
            raise BadRequest(f"board style {style!r} is not one of {BOARD_STYLES}",
                             "bad_board_style")
        with self.kernel.write() as s:
            chat = self.kernel.ensure_chat_row(s, chat_id)
            chat.settings = {**chat.settings, "board": style}
            return [self.kernel.game_info(s, r)
                    for r in self.kernel.games_at(s, chat_id, all_topics=True)]

    def set_chat_defaults(
        self,
        chat_id: int,
        *,
        preset: str | None = None,
        options: dict[str, Any] | None = None,
        turn_timeout: str | int | None = None,
        reminders: list[str] | None = None,
        standin_after: int | None = None,
    ) -> ChatInfo:
        """Defaults for the chat's new games; each value is checked like in
        :meth:`create_game`. Raises :class:`BadRequest`."""
        settings: dict[str, Any] = {}
        if preset is not None or options is not None:
            rules = make_rules(preset or "classic", options)
            settings["preset"] = preset or "classic"
            settings["options"] = dict(options or {})
            del rules
        if turn_timeout is not None:
            settings["turn_timeout"] = check_timeout(turn_timeout)
        if reminders is not None:
            settings["reminders"] = check_reminders(reminders)
        if standin_after is not None:
            settings["standin_after"] = check_standin(standin_after)
        with self.kernel.write() as s:
            chat = self.kernel.ensure_chat_row(s, chat_id)
            chat.settings = {**chat.settings, **settings}
            return chat_info(chat)

    def locale_for(
        self, user_id: int | None = None, chat_id: int | None = None,
        fallback: str | None = None,
    ) -> str:
        """The language to address someone in: the user's own, else the chat's, else
        ``fallback`` (e.g. the Telegram client language), else the configured default."""
        with self.kernel.db.read() as s:
            if user_id is not None:
                user = s.get(UserRow, user_id)
                if user is not None and user.locale:
                    return user.locale
            if chat_id is not None:
                chat = s.get(ChatRow, chat_id)
                if chat is not None and chat.locale:
                    return chat.locale
        return locale_or_none(fallback) or self.kernel.settings.locale

    def migrate_chat(self, old_chat_id: int, new_chat_id: int) -> int:
        """A group became a supergroup with a new id: its games, settings, language and
        ratings (recomputed on the next read) move along. Idempotent; returns how many games
        moved."""
        with self.kernel.write() as s:
            old = s.get(ChatRow, old_chat_id)
            if old is not None:
                new = self.kernel.ensure_chat_row(s, new_chat_id, old.title, old.locale)
                new.settings = {**old.settings, **new.settings}
                if new.locale is None:
                    new.locale = old.locale
            moved = s.execute(
                sa.update(GameRow)
                .where(GameRow.chat_id == old_chat_id)  # type: ignore[arg-type]
                .values(chat_id=new_chat_id)
                .execution_options(synchronize_session=False)
            )
            s.execute(
                sa.update(NotificationRow)
                .where(NotificationRow.chat_id == old_chat_id)  # type: ignore[arg-type]
                .values(chat_id=new_chat_id)
                .execution_options(synchronize_session=False)
            )
            count = int(moved.rowcount)  # type: ignore[attr-defined]
            if count:
                # The chat's ratings are cached under its old id: recomputed on next read.
                mark_stale(s)
            return count

    def user_stats(self, user_id: int) -> UserStats:
        """Games played, finished and won, points, moves played for them automatically
        (practice games left out)."""
        with self.kernel.db.read() as s:
            rows = s.exec(
                select(SeatRow, GameRow)
                .join(GameRow, SeatRow.game_id == GameRow.id)  # type: ignore[arg-type]
                .where(SeatRow.user_id == user_id)
            ).all()
        games = finished = wins = total = auto = 0
        for seat, game in rows:
            if game.status == LOBBY or game.meta.get(PRACTICE_KEY):
                continue
            games += 1
            auto += seat.auto_moves
            if game.status == GameStatus.FINISHED.value and game.result:
                finished += 1
                total += game.result["scores"][seat.seat]
                if seat.seat in game.result["winners"]:
                    wins += 1
        return UserStats(user_id, games, finished, wins, total, auto)

    def chat_stats(self, chat_id: int) -> list[PlayerStats]:
        """Every human player's record in the chat's started games, best first (wins, then
        average points); ``timeouts`` counts the deadlines they let pass."""
        with self.kernel.db.read() as s:
            rows = s.exec(
                select(SeatRow, GameRow)
                .join(GameRow, SeatRow.game_id == GameRow.id)  # type: ignore[arg-type]
                .where(GameRow.chat_id == chat_id, GameRow.status != LOBBY)
                .where(SeatRow.user_id.is_not(None))  # type: ignore[union-attr]
            ).all()
            missed = s.exec(
                select(ActionRow.game_id, ActionRow.seat, sa.func.count())
                .join(GameRow, ActionRow.game_id == GameRow.id)  # type: ignore[arg-type]
                .where(GameRow.chat_id == chat_id, ActionRow.actor == "timeout")
                .group_by(ActionRow.game_id, ActionRow.seat)  # type: ignore[arg-type]
            ).all()
            names = {u.id: u.name for u in s.exec(select(UserRow).where(
                UserRow.id.in_({seat.user_id for seat, _ in rows})  # type: ignore[attr-defined]
            )).all()}
        timeouts: dict[tuple[int | None, int], int] = {(g, seat): n for g, seat, n in missed}
        acc: dict[int, list[int]] = {}
        for seat, game in rows:
            assert seat.user_id is not None
            if game.meta.get(PRACTICE_KEY):
                continue
            a = acc.setdefault(seat.user_id, [0, 0, 0, 0, 0])
            a[0] += 1
            a[4] += timeouts.get((game.id, seat.seat), 0)
            if game.status == GameStatus.FINISHED.value and game.result:
                a[1] += 1
                a[3] += game.result["scores"][seat.seat]
                a[2] += seat.seat in game.result["winners"]
        stats = [
            PlayerStats(uid, names.get(uid, str(uid)), *values)
            for uid, values in acc.items()
        ]
        return sorted(stats, key=lambda p: (-p.wins, -(p.average_score or 0), p.name))
