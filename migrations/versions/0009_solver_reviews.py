"""Solver reviews kept: a finished game's review against the solver, made once by any node
and read by every node after (its replay page, the next player to ask).

Revision ID: 0009_solver_reviews
Revises: 0008_new_players_board
Create Date: 2026-12-03

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009_solver_reviews"
down_revision: str | Sequence[str] | None = "0008_new_players_board"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

GAME_ID = sa.String(length=64).with_variant(sa.VARCHAR(length=64, collation="C"), "postgresql")


def upgrade() -> None:
    op.create_table(
        "solver_reviews",
        sa.Column("game_id", GAME_ID, nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("made_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
            name=op.f("fk_solver_reviews_game_id_games"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("game_id", name=op.f("pk_solver_reviews")),
    )


def downgrade() -> None:
    op.drop_table("solver_reviews")
