"""Friends and leagues: players following players (and blocking them), and private leagues
with their members by the days they were members.

Adds ``follows``, ``blocks``, ``leagues`` and ``league_members``; and ``race_lobbies.bots``
(in its key): declared bots have quick races of their own.

Revision ID: 0014_friends_and_leagues
Revises: 0013_credentials
Create Date: 2026-12-07

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014_friends_and_leagues"
down_revision: str | Sequence[str] | None = "0013_credentials"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _player(column: str, table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        [column], ["players.id"], name=op.f(f"fk_{table}_{column}_players"), ondelete="CASCADE"
    )


def upgrade() -> None:
    op.create_table(
        "follows",
        sa.Column("follower_id", sa.Integer(), nullable=False),
        sa.Column("followed_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        _player("follower_id", "follows"),
        _player("followed_id", "follows"),
        sa.PrimaryKeyConstraint("follower_id", "followed_id", name=op.f("pk_follows")),
    )
    op.create_index("ix_follows_followed_id", "follows", ["followed_id"])
    op.create_table(
        "blocks",
        sa.Column("blocker_id", sa.Integer(), nullable=False),
        sa.Column("blocked_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        _player("blocker_id", "blocks"),
        _player("blocked_id", "blocks"),
        sa.PrimaryKeyConstraint("blocker_id", "blocked_id", name=op.f("pk_blocks")),
    )
    op.create_table(
        "leagues",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("code", sa.String(length=16), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("owner_id", sa.Integer(), nullable=False),
        sa.Column("suits", sa.SmallInteger(), nullable=False),
        sa.Column("public", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        _player("owner_id", "leagues"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_leagues")),
    )
    op.create_index("ix_leagues_code", "leagues", ["code"], unique=True)
    op.create_index("ix_leagues_owner_id", "leagues", ["owner_id"])
    op.create_table(
        "league_members",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("league_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("joined_on", sa.Date(), nullable=False),
        sa.Column("left_on", sa.Date(), nullable=True),
        sa.ForeignKeyConstraint(
            ["league_id"],
            ["leagues.id"],
            name=op.f("fk_league_members_league_id_leagues"),
            ondelete="CASCADE",
        ),
        _player("player_id", "league_members"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_league_members")),
    )
    op.create_index("ix_league_members_league_id", "league_members", ["league_id", "left_on"])
    op.create_index("ix_league_members_player_id", "league_members", ["player_id", "left_on"])
    with op.batch_alter_table("race_lobbies", recreate="always") as batch:
        batch.add_column(sa.Column("bots", sa.Boolean(), server_default=sa.false(), nullable=False))
        batch.drop_constraint("pk_race_lobbies", type_="primary")
        batch.create_primary_key("pk_race_lobbies", ["suits", "bots"])


def downgrade() -> None:
    op.execute("DELETE FROM race_lobbies WHERE bots")
    with op.batch_alter_table("race_lobbies", recreate="always") as batch:
        batch.drop_constraint("pk_race_lobbies", type_="primary")
        batch.drop_column("bots")
        batch.create_primary_key("pk_race_lobbies", ["suits"])
    op.drop_table("league_members")
    op.drop_table("leagues")
    op.drop_table("blocks")
    op.drop_table("follows")
