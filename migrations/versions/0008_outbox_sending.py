"""the outbox remembers which sends of a notification may have reached Telegram

``notifications.sending``: bits set right before a message that must not be sent twice goes
out (the board sent anew, a post in the group, a private message). A process that takes
the notification over after a crash, or that lost Telegram's reply, settles it without
sending it again (``kolkhoz_tg.bot.once``).

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-02 10:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("notifications") as batch:
        batch.add_column(sa.Column("sending", sa.Integer(), nullable=False,
                                   server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("notifications") as batch:
        batch.drop_column("sending")
