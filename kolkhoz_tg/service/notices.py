"""New-game notices: who asked to hear of new lobbies in a chat (``/notify on``), and the
private notice each of them gets when one opens there.

The subscribers are a list of user ids in the chat's settings (``chats.settings["notify"]``).
A lobby's notices are written to the outbox in the transaction that opens it, one per
subscriber, so each is told once about a lobby and a restart loses none. Nobody is told of
a lobby they opened or hold a seat in, nor when the bot cannot write to them (they never
opened a private chat with it). A notice that would arrive in its reader's quiet hours
waits in the outbox until they end (``next_attempt_at``); the front end drops one whose
lobby started, closed or filled up meanwhile.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

import sqlalchemy as sa
from sqlmodel import Session, select

from kolkhoz_tg.service.common import new_note
from kolkhoz_tg.service.gametx import quiet_hours
from kolkhoz_tg.service.payloads import NewLobby
from kolkhoz_tg.service.records import Kind
from kolkhoz_tg.storage.models import ChatRow, GameRow, NotificationRow, UserRow

#: ``chats.settings`` key: the ids of the users told of every new lobby in the chat.
NOTIFY_KEY = "notify"


def subscribers(chat: ChatRow | None) -> list[int]:
    """The users who asked to hear of new lobbies in ``chat``."""
    found = chat.settings.get(NOTIFY_KEY) if chat is not None else None
    return [int(u) for u in found] if isinstance(found, list) else []


def subscribe(chat: ChatRow, user_id: int, on: bool) -> None:
    """Add ``user_id`` to the chat's subscribers, or take them off (``on`` false)."""
    users = [u for u in subscribers(chat) if u != user_id]
    if on:
        users.append(user_id)
    chat.settings = {**chat.settings, NOTIFY_KEY: users}


def withdraw_notices(s: Session, chat_id: int, user_id: int, now: datetime) -> None:
    """The notices to ``user_id`` of lobbies in ``chat_id`` not sent yet (waiting for the
    end of their quiet hours) are not sent: they said ``/notify off`` meanwhile."""
    t = NotificationRow.__table__  # type: ignore[attr-defined]
    s.execute(sa.update(t).where(
        t.c.delivered_at.is_(None), t.c.kind == Kind.NEW_LOBBY.value, t.c.chat_id == chat_id,
        t.c.user_id == user_id,
    ).values(superseded=True, delivered_at=now))


def write_notices(
    s: Session, row: GameRow, chat: ChatRow | None, now: datetime, skip: Iterable[int]
) -> int:
    """The outbox rows telling the chat's subscribers (but those in ``skip``, and those the
    bot cannot write to) of the lobby ``row``; a notice due in its reader's quiet hours
    waits for their end. Returns how many were written."""
    left_out = set(skip)
    wanted = [u for u in subscribers(chat) if u not in left_out]
    if not wanted:
        return 0
    users = s.exec(select(UserRow).where(UserRow.id.in_(wanted))).all()  # type: ignore[attr-defined]
    written = 0
    for user in users:
        if not user.can_pm:
            continue
        note = new_note(row, NewLobby(user.locale), now, row.version, user_id=user.id)
        quiet = quiet_hours(user)
        note.next_attempt_at = quiet.morning_after(now) if quiet is not None else None
        s.add(note)
        written += 1
    return written
