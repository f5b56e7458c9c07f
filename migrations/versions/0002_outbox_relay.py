"""outbox relay: claims, back-off, a partial index on pending notifications

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23 09:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_PENDING = sa.text("delivered_at IS NULL")


def upgrade() -> None:
    with op.batch_alter_table("notifications", schema=None) as batch_op:
        batch_op.add_column(sa.Column("attempts", sa.Integer(), nullable=False,
                                      server_default="0"))
        batch_op.add_column(sa.Column("next_attempt_at", sa.DateTime(timezone=True),
                                      nullable=True))
        batch_op.add_column(sa.Column("claimed_by", sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column("claimed_until", sa.DateTime(timezone=True),
                                      nullable=True))
        batch_op.drop_index("ix_notifications_pending")
        batch_op.create_index("ix_notifications_pending", ["id"], unique=False,
                              sqlite_where=_PENDING, postgresql_where=_PENDING)
    with op.batch_alter_table("notifications", schema=None) as batch_op:
        batch_op.alter_column("attempts", server_default=None)


def downgrade() -> None:
    with op.batch_alter_table("notifications", schema=None) as batch_op:
        batch_op.drop_index("ix_notifications_pending")
        batch_op.create_index("ix_notifications_pending", ["delivered_at", "id"], unique=False)
        batch_op.drop_column("claimed_until")
        batch_op.drop_column("claimed_by")
        batch_op.drop_column("next_attempt_at")
        batch_op.drop_column("attempts")
