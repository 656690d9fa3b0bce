"""Players, daily deals, games and the leaderboard index.

Revision ID: 0001
Revises:
Create Date: 2026-11-29

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

DAILY = sa.text("mode = 'daily'")
ON_LEADERBOARD = sa.text("mode = 'daily' AND finished_at IS NOT NULL")


def upgrade() -> None:
    op.create_table(
        "daily_deals",
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("suits", sa.SmallInteger(), nullable=False),
        sa.Column("code", sa.String(length=32), nullable=False),
        sa.Column("par", sa.Integer(), nullable=True),
        sa.PrimaryKeyConstraint("day", "suits", name=op.f("pk_daily_deals")),
    )
    op.create_table(
        "players",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("name_key", sa.String(length=256), nullable=False),
        sa.Column("token_hash", sa.String(length=128), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_players")),
    )
    op.create_index("ix_players_name_key", "players", ["name_key"], unique=True)
    op.create_index("ix_players_token_hash", "players", ["token_hash"], unique=True)
    op.create_table(
        "games",
        sa.Column(
            "id",
            # Bytewise order on PostgreSQL too, as the rank cache compares bytes.
            sa.String(length=64).with_variant(sa.VARCHAR(length=64, collation="C"), "postgresql"),
            nullable=False,
        ),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("mode", sa.String(length=16), nullable=False),
        sa.Column("code", sa.String(length=32), nullable=False),
        sa.Column("suits", sa.SmallInteger(), nullable=False),
        sa.Column("day", sa.Date(), nullable=True),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("actions", sa.JSON(), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("won", sa.Boolean(), nullable=True),
        sa.Column("resigned", sa.Boolean(), nullable=True),
        sa.Column("moves", sa.Integer(), nullable=True),
        sa.Column("score", sa.Integer(), nullable=True),
        sa.Column("removed", sa.SmallInteger(), nullable=True),
        sa.Column("elapsed", sa.Float(), nullable=True),
        sa.CheckConstraint(
            "(mode = 'daily' AND day IS NOT NULL) OR (mode = 'practice' AND day IS NULL)",
            name=op.f("ck_games_mode_day"),
        ),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_games_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_games")),
    )
    # Leaderboard order, all ascending: pages and rank counts are index-only range scans.
    op.create_index(
        "ix_games_leaderboard",
        "games",
        ["day", "suits", sa.literal_column("(-score)"), "elapsed", "finished_at", "id"],
        unique=False,
        postgresql_include=["score", "player_id", "moves", "won"],
        postgresql_where=ON_LEADERBOARD,
        sqlite_where=ON_LEADERBOARD,
    )
    op.create_index("ix_games_player_finished", "games", ["player_id", "finished_at"])
    # One daily attempt per player, day and suit count; practice games are not limited.
    op.create_index(
        "uq_games_daily_attempt",
        "games",
        ["player_id", "day", "suits"],
        unique=True,
        postgresql_where=DAILY,
        sqlite_where=DAILY,
    )


def downgrade() -> None:
    op.drop_index("uq_games_daily_attempt", table_name="games")
    op.drop_index("ix_games_player_finished", table_name="games")
    op.drop_index("ix_games_leaderboard", table_name="games")
    op.drop_table("games")
    op.drop_index("ix_players_token_hash", table_name="players")
    op.drop_index("ix_players_name_key", table_name="players")
    op.drop_table("players")
    op.drop_table("daily_deals")
