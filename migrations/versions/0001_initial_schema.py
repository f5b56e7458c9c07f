"""initial schema

Revision ID: 0001
Revises:
Create Date: 2026-11-22 16:26:16.605752
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op



revision: str = '0001'
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('chats',
    sa.Column('id', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('title', sa.String(length=256), nullable=True),
    sa.Column('locale', sa.String(length=8), nullable=True),
    sa.Column('settings', sa.JSON(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_table('users',
    sa.Column('id', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('name', sa.String(length=128), nullable=False),
    sa.Column('locale', sa.String(length=8), nullable=True),
    sa.Column('can_pm', sa.Boolean(), nullable=False),
    sa.Column('timezone', sa.String(length=64), nullable=True),
    sa.Column('quiet_start', sa.Integer(), nullable=True),
    sa.Column('quiet_end', sa.Integer(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_table('games',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('chat_id', sa.BigInteger(), nullable=False),
    sa.Column('creator_id', sa.BigInteger(), nullable=True),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('preset', sa.String(length=32), nullable=True),
    sa.Column('rules', sa.JSON(), nullable=False),
    sa.Column('players', sa.Integer(), nullable=False),
    sa.Column('seed', sa.String(length=64), nullable=False),
    sa.Column('state', sa.JSON(), nullable=True),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('turn_timeout', sa.Integer(), nullable=False),
    sa.Column('reminders', sa.JSON(), nullable=False),
    sa.Column('standin_after', sa.Integer(), nullable=False),
    sa.Column('turn_started_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('deadline', sa.DateTime(timezone=True), nullable=True),
    sa.Column('next_reminder', sa.DateTime(timezone=True), nullable=True),
    sa.Column('next_due', sa.DateTime(timezone=True), nullable=True),
    sa.Column('paused_remaining', sa.Integer(), nullable=True),
    sa.Column('result', sa.JSON(), nullable=True),
    sa.Column('meta', sa.JSON(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('started_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['chat_id'], ['chats.id'], ),
    sa.ForeignKeyConstraint(['creator_id'], ['users.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.create_index('ix_games_chat_status', ['chat_id', 'status'], unique=False)
        batch_op.create_index(batch_op.f('ix_games_next_due'), ['next_due'], unique=False)

    op.create_table('actions',
    sa.Column('game_id', sa.Integer(), autoincrement=False, nullable=False),
    sa.Column('seq', sa.Integer(), autoincrement=False, nullable=False),
    sa.Column('seat', sa.Integer(), nullable=False),
    sa.Column('action', sa.String(length=32), nullable=False),
    sa.Column('actor', sa.String(length=16), nullable=False),
    sa.Column('user_id', sa.BigInteger(), nullable=True),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['game_id'], ['games.id'], ),
    sa.PrimaryKeyConstraint('game_id', 'seq')
    )
    with op.batch_alter_table('actions', schema=None) as batch_op:
        batch_op.create_index('ix_actions_game_version', ['game_id', 'version'], unique=False)

    op.create_table('notifications',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('game_id', sa.Integer(), nullable=True),
    sa.Column('chat_id', sa.BigInteger(), nullable=True),
    sa.Column('user_id', sa.BigInteger(), nullable=True),
    sa.Column('seat', sa.Integer(), nullable=True),
    sa.Column('kind', sa.String(length=32), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('data', sa.JSON(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('delivered_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('superseded', sa.Boolean(), nullable=False),
    sa.ForeignKeyConstraint(['game_id'], ['games.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('notifications', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_notifications_game_id'), ['game_id'], unique=False)
        batch_op.create_index('ix_notifications_pending', ['delivered_at', 'id'], unique=False)

    op.create_table('seats',
    sa.Column('game_id', sa.Integer(), autoincrement=False, nullable=False),
    sa.Column('seat', sa.Integer(), autoincrement=False, nullable=False),
    sa.Column('user_id', sa.BigInteger(), nullable=True),
    sa.Column('is_bot', sa.Boolean(), nullable=False),
    sa.Column('name', sa.String(length=128), nullable=False),
    sa.Column('timeouts', sa.Integer(), nullable=False),
    sa.Column('standin', sa.Boolean(), nullable=False),
    sa.Column('auto_moves', sa.Integer(), nullable=False),
    sa.Column('reminders', sa.JSON(), nullable=False),
    sa.Column('remind_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('joined_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['game_id'], ['games.id'], ),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], ),
    sa.PrimaryKeyConstraint('game_id', 'seat'),
    sa.UniqueConstraint('game_id', 'user_id', name='uq_seats_game_user')
    )
    with op.batch_alter_table('seats', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_seats_user_id'), ['user_id'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('seats', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_seats_user_id'))

    op.drop_table('seats')
    with op.batch_alter_table('notifications', schema=None) as batch_op:
        batch_op.drop_index('ix_notifications_pending')
        batch_op.drop_index(batch_op.f('ix_notifications_game_id'))

    op.drop_table('notifications')
    with op.batch_alter_table('actions', schema=None) as batch_op:
        batch_op.drop_index('ix_actions_game_version')

    op.drop_table('actions')
    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_games_next_due'))
        batch_op.drop_index('ix_games_chat_status')

    op.drop_table('games')
    op.drop_table('users')
    op.drop_table('chats')
