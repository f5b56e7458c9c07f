"""forum topics: a game lives in a chat and, in a forum, in one of its topics

``games.topic_id`` is Telegram's ``message_thread_id`` of the topic (NULL: no topic, or the
forum's "General"), and the index of a chat's games by status now leads with the topic too,
so that each topic's open game is found by the index.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-25 18:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("topic_id", sa.BigInteger(), nullable=True))
        batch.drop_index("ix_games_chat_status")
        batch.create_index("ix_games_chat_topic_status", ["chat_id", "topic_id", "status"],
                           unique=False)


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_index("ix_games_chat_topic_status")
        batch.create_index("ix_games_chat_status", ["chat_id", "status"], unique=False)
        batch.drop_column("topic_id")
