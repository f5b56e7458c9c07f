"""moves queued ahead: a seat's queued move and its Brigadier's "assign for me"

``premove`` holds the action text a player queued for their next decision (NULL: none);
``auto_assign`` says the heuristic places this seat's tricks when it is the Brigadier.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-27 22:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.add_column(sa.Column("premove", sa.String(length=32), nullable=True))
        batch_op.add_column(sa.Column("auto_assign", sa.Boolean(), nullable=False,
                                      server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.drop_column("auto_assign")
        batch_op.drop_column("premove")
