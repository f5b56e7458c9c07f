"""bot levels: a level per bot seat, and when a game began to wait for a search bot

Existing bot seats get NULL, which plays as ``normal`` (the heuristic they always played).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-25 15:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.add_column(sa.Column("level", sa.String(length=16), nullable=True))
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("bot_due", sa.DateTime(timezone=True), nullable=True))
        batch_op.create_index("ix_games_bot_due", ["bot_due"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_index("ix_games_bot_due")
        batch_op.drop_column("bot_due")
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.drop_column("level")
