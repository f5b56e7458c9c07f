"""the bot's liveness: when a process running the clock was last seen alive

``clock_beats`` holds one row per name (the Telegram bot writes ``bot``): the time it was
last alive, written every minute and at a clean stop. At a start, the gap since then is the
time nobody ran the clock, added to every running game's deadline (no player loses time
to the bot's downtime).

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-27 22:15:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "clock_beats",
        sa.Column("name", sa.String(length=32), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("name"),
    )


def downgrade() -> None:
    op.drop_table("clock_beats")
