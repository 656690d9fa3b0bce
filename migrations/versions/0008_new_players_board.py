"""Trust at the top of the board: the new players' board, verified results, and each
account's evidence across days.

Adds ``games.newcomer`` (a daily on the new players' board of its day), ``games.verified``
(a result a reviewer cleared) and the ``account_trust`` table, and rebuilds
``ix_games_leaderboard`` with ``newcomer`` after ``bot`` in its key (one range per board)
and ``verified`` among its included columns. Existing results stay on the boards they were
on: none is a newcomer's.

Revision ID: 0008_new_players_board
Revises: secret_and_room_codes
Create Date: 2026-12-01

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008_new_players_board"
down_revision: str | Sequence[str] | None = "secret_and_room_codes"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ORDER = ("(-CAST(won AS INTEGER))", "(-removed)", "(-score)", "elapsed", "finished_at", "id")
INCLUDE = ["score", "player_id", "moves", "won", "removed"]
FINISHED_DAILY = "mode = 'daily' AND finished_at IS NOT NULL"
SQLITE_WHERE = f"{FINISHED_DAILY} AND held = 0"
POSTGRESQL_WHERE = f"{FINISHED_DAILY} AND held = false"


def _leaderboard_index(key: Sequence[str], include: list[str]) -> None:
    op.create_index(
        "ix_games_leaderboard",
        "games",
        ["day", "suits", *(sa.literal_column(term) for term in key)],
        unique=False,
        postgresql_include=include,
        # each backend's rendering of the models' predicate, so queries match it
        postgresql_where=sa.text(POSTGRESQL_WHERE),
        sqlite_where=sa.text(SQLITE_WHERE),
    )


def upgrade() -> None:
    # Plain ADD COLUMN (a constant default needs no table copy on SQLite).
    op.add_column(
        "games", sa.Column("newcomer", sa.Boolean(), server_default=sa.false(), nullable=False)
    )
    op.add_column(
        "games", sa.Column("verified", sa.Boolean(), server_default=sa.false(), nullable=False)
    )
    op.create_table(
        "account_trust",
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("suspicion", sa.Float(), nullable=False),
        sa.Column("reasons", sa.JSON(), nullable=False),
        sa.Column("evidence", sa.JSON(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_account_trust_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("player_id", name=op.f("pk_account_trust")),
    )
    op.drop_index("ix_games_leaderboard", table_name="games")
    _leaderboard_index(("bot", "newcomer", *ORDER), [*INCLUDE, "verified"])


def downgrade() -> None:
    op.drop_index("ix_games_leaderboard", table_name="games")
    _leaderboard_index(("bot", *ORDER), INCLUDE)
    op.drop_table("account_trust")
    # DROP COLUMN in place: batch mode would copy the table and lose its expression index.
    op.drop_column("games", "verified")
    op.drop_column("games", "newcomer")
