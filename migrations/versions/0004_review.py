"""Fair-play review: results held off the board, their evidence, and an audit of decisions.

Adds ``games.held`` (a human's daily stays off the public leaderboard until its screening
passes it), ``players.flagged`` (an account whose machine play a review confirmed),
``daily_deals.solution`` (the solver's line, which the evidence compares players' lines
with), the ``fair_play`` and ``review_audit`` tables, and rebuilds ``ix_games_leaderboard``
with ``held`` in its predicate. Existing results were never screened: they stay ranked.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

GAME_ID = sa.String(length=64).with_variant(sa.VARCHAR(length=64, collation="C"), "postgresql")
KEY = ("bot", "(-CAST(won AS INTEGER))", "(-removed)", "(-score)", "elapsed", "finished_at", "id")
INCLUDE = ["score", "player_id", "moves", "won", "removed"]
FINISHED_DAILY = "mode = 'daily' AND finished_at IS NOT NULL"


def _leaderboard_index(*, sqlite_where: str, postgresql_where: str) -> None:
    op.create_index(
        "ix_games_leaderboard",
        "games",
        ["day", "suits", *(sa.literal_column(term) for term in KEY)],
        unique=False,
        postgresql_include=INCLUDE,
        # each backend's rendering of the models' predicate, so queries match it
        postgresql_where=sa.text(postgresql_where),
        sqlite_where=sa.text(sqlite_where),
    )


def upgrade() -> None:
    # Plain ADD COLUMN (a constant default needs no table copy on SQLite).
    op.add_column(
        "games", sa.Column("held", sa.Boolean(), server_default=sa.false(), nullable=False)
    )
    op.add_column(
        "players", sa.Column("flagged", sa.Boolean(), server_default=sa.false(), nullable=False)
    )
    op.add_column("daily_deals", sa.Column("solution", sa.Text(), nullable=True))
    op.create_table(
        "fair_play",
        sa.Column("game_id", GAME_ID, nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("reasons", sa.JSON(), nullable=False),
        sa.Column("evidence", sa.JSON(), nullable=False),
        sa.Column("screened_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("reviewed_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_fair_play_game_id_games"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("game_id", name=op.f("pk_fair_play")),
    )
    op.create_index("ix_fair_play_status", "fair_play", ["status"])
    op.create_table(
        "review_audit",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("game_id", GAME_ID, nullable=False),
        sa.Column("decision", sa.String(length=16), nullable=False),
        sa.Column("note", sa.Text(), nullable=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
            name=op.f("fk_review_audit_game_id_games"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_review_audit")),
    )
    op.drop_index("ix_games_leaderboard", table_name="games")
    _leaderboard_index(
        sqlite_where=f"{FINISHED_DAILY} AND held = 0",
        postgresql_where=f"{FINISHED_DAILY} AND held = false",
    )


def downgrade() -> None:
    op.drop_index("ix_games_leaderboard", table_name="games")
    _leaderboard_index(sqlite_where=FINISHED_DAILY, postgresql_where=FINISHED_DAILY)
    op.drop_table("review_audit")
    op.drop_index("ix_fair_play_status", table_name="fair_play")
    op.drop_table("fair_play")
    # DROP COLUMN in place: batch mode would copy the table and lose its expression index.
    op.drop_column("daily_deals", "solution")
    op.drop_column("players", "flagged")
    op.drop_column("games", "held")
