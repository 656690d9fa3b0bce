"""Bot accounts, and the leaderboard order with wins first and runs removed.

Adds ``players.bot`` and ``games.bot`` (a copy of the player's flag, so the leaderboard
index can keep the humans' and the bots' boards apart without a join), and rebuilds
``ix_games_leaderboard`` in the new order: day, suit count, board, then won (wins first),
runs removed (more first), score (higher first), elapsed, finish time, game id.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ON_LEADERBOARD = sa.text("mode = 'daily' AND finished_at IS NOT NULL")


def _leaderboard_index(*key: str, include: list[str]) -> None:
    op.create_index(
        "ix_games_leaderboard",
        "games",
        ["day", "suits", *(sa.literal_column(term) for term in key)],
        unique=False,
        postgresql_include=include,
        postgresql_where=ON_LEADERBOARD,
        sqlite_where=ON_LEADERBOARD,
    )


def upgrade() -> None:
    # Plain ADD COLUMN on both backends (a constant default needs no table copy on SQLite);
    # every account so far is a human's, so false is right for the existing rows too.
    op.add_column(
        "players", sa.Column("bot", sa.Boolean(), server_default=sa.false(), nullable=False)
    )
    op.add_column(
        "games", sa.Column("bot", sa.Boolean(), server_default=sa.false(), nullable=False)
    )
    op.drop_index("ix_games_leaderboard", table_name="games")
    # The terms as the models render them on both backends: SQLite uses an expression index
    # only when the query's expression reads the same.
    _leaderboard_index(
        "bot",
        "(-CAST(won AS INTEGER))",
        "(-removed)",
        "(-score)",
        "elapsed",
        "finished_at",
        "id",
        include=["score", "player_id", "moves", "won", "removed"],
    )


def downgrade() -> None:
    op.drop_index("ix_games_leaderboard", table_name="games")
    # DROP COLUMN (SQLite 3.35+), not batch mode: copying the table would lose the expression
    # index SQLite cannot reflect. The index using the column is gone first.
    op.drop_column("games", "bot")
    op.drop_column("players", "bot")
    _leaderboard_index(
        "(-score)",
        "elapsed",
        "finished_at",
        "id",
        include=["score", "player_id", "moves", "won"],
    )
