"""The outbox write of one transaction on PostgreSQL in one statement (see
:meth:`~kolkhoz_tg.service.kernel.Kernel.store_log`): the older notifications replaced, the
moves logged and the new notifications, in one round trip."""

from __future__ import annotations

import json
from datetime import datetime
from functools import lru_cache
from typing import Any, NamedTuple

import sqlalchemy as sa
from sqlmodel import Session

from kolkhoz_tg.service.records import Kind
from kolkhoz_tg.storage.models import ActionRow, NotificationRow

#: Notification kinds where only the newest undelivered one matters, and the older kinds
#: each replaces (for the same game, and the same user or the group): a turn's message shows
#: the hand too, so it replaces a fresh hand's still owed; a fresh hand's replaces an owed
#: turn of an earlier year (it goes only to a seat that is not deciding now).
SUPERSEDES = {
    Kind.BOARD.value: (Kind.BOARD.value,),
    Kind.YOUR_TURN.value: (Kind.YOUR_TURN.value, Kind.NEW_HAND.value),
    Kind.NEW_HAND.value: (Kind.NEW_HAND.value, Kind.YOUR_TURN.value),
}

#: An older undelivered notification a new one replaces: (game_id, kind, user_id).
Replaced = tuple[int | None, str, int | None]



def store_in_one(
    s: Session, replaced: list[Replaced], actions: list[ActionRow],
    notes: list[NotificationRow], now: datetime,
) -> None:
    """PostgreSQL's :meth:`~kolkhoz_tg.service.kernel.Kernel.store_log` in one statement (see
    :func:`_one_statement_sql`). The new ids are drawn from the sequence in the VALUES'
    order, so sorted they belong to the notes in order (SQLAlchemy's own bulk insert relies
    on the same)."""
    sql = _one_statement_sql(tuple(user_id is None for _g, _k, user_id in replaced), len(actions),
                             len(notes))
    params: dict[str, Any] = {"now": now}
    for i, (game_id, kind, user_id) in enumerate(replaced):
        params[f"s{i}_game"], params[f"s{i}_kind"] = game_id, kind
        if user_id is not None:
            params[f"s{i}_user"] = user_id
    cols = _columns()
    for prefix, rows, columns in (("a", actions, cols.actions), ("n", notes, cols.notes)):
        for i, row in enumerate(rows):
            for name, _ in columns:
                value = getattr(row, name)
                if isinstance(value, datetime) and value.tzinfo is None:
                    raise ValueError(f"naive datetime given to {name}")  # as UTCDateTime
                params[f"{prefix}{i}_{name}"] = (
                    json.dumps(value) if name in cols.json else value)
    ids = sorted(s.connection().exec_driver_sql(sql, params).scalars())
    for note, note_id in zip(notes, ids, strict=True):
        note.id = note_id


def _sql_columns(table: sa.Table, skip: str | None = None) -> tuple[tuple[str, str], ...]:
    """(name, PostgreSQL type) of a table's columns, for casts in hand-written SQL. A
    string's cast has no length (``VARCHAR(32)`` would cut a longer value short without a
    word; uncut, the column's own limit refuses it, as the ORM's insert would)."""
    from sqlalchemy.dialects import postgresql  # (not loaded on SQLite: some 2 MB)

    dialect = postgresql.dialect()  # type: ignore[no-untyped-call]
    columns = ((c.name, c.type.compile(dialect=dialect)) for c in table.c if c.name != skip)
    return tuple((name, "VARCHAR" if kind.startswith("VARCHAR") else kind)
                 for name, kind in columns)


class _Columns(NamedTuple):
    """The columns the statement writes, with their PostgreSQL types."""

    notes: tuple[tuple[str, str], ...]
    actions: tuple[tuple[str, str], ...]
    json: frozenset[str]


@lru_cache(maxsize=1)
def _columns() -> _Columns:
    notes = _sql_columns(NotificationRow.__table__, skip="id")  # type: ignore[attr-defined]
    actions = _sql_columns(ActionRow.__table__)  # type: ignore[attr-defined]
    return _Columns(notes, actions,
                    frozenset(name for name, kind in notes + actions if kind == "JSON"))


@lru_cache(maxsize=64)
def _one_statement_sql(replaced: tuple[bool, ...], actions: int, notes: int) -> str:
    """The text of one outbox write on PostgreSQL, for ``replaced`` (per older kind a new
    note replaces: whether it is the group's, i.e. has no user), ``actions`` log rows and
    ``notes`` notifications::

        WITH superseded AS (UPDATE notifications ... RETURNING id),
             logged AS (INSERT INTO actions ... RETURNING seq)
        INSERT INTO notifications (...) SELECT ... FROM (VALUES ...) ORDER BY ordinal
        RETURNING id

    The parts of one statement see the same snapshot: the UPDATE cannot touch the rows the
    INSERT adds. Written by hand and cached by shape: SQLAlchemy does not cache the compiled
    form of a statement holding VALUES data, and compiling it each time costs more than the
    round trips it saves."""
    cols = _columns()
    ctes = []
    if replaced:
        whom = " OR ".join(
            f"(game_id = %(s{i}_game)s AND kind = %(s{i}_kind)s AND "
            + ("user_id IS NULL)" if group else f"user_id = %(s{i}_user)s)")
            for i, group in enumerate(replaced))
        ctes.append("superseded AS (UPDATE notifications SET superseded = true, "
                    f"delivered_at = %(now)s WHERE delivered_at IS NULL AND ({whom}) "
                    "RETURNING id)")
    if actions:
        names = ", ".join(name for name, _ in cols.actions)
        rows = ", ".join(
            "(" + ", ".join(f"%(a{i}_{name})s::{kind}" for name, kind in cols.actions) + ")"
            for i in range(actions))
        ctes.append(f"logged AS (INSERT INTO actions ({names}) VALUES {rows} RETURNING seq)")
    names = ", ".join(name for name, _ in cols.notes)
    rows = ", ".join(
        "(" + ", ".join(f"%(n{i}_{name})s::{kind}" for name, kind in cols.notes)
        + f", {i})" for i in range(notes))
    head = f"WITH {', '.join(ctes)} " if ctes else ""
    return (f"{head}INSERT INTO notifications ({names}) SELECT {names} FROM (VALUES {rows}) "
            f"AS new_notes ({names}, ordinal) ORDER BY ordinal RETURNING id")
