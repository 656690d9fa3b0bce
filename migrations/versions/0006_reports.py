"""Reports: a signed-in player's report of a ranked daily result, one per player per result.

Revision ID: 0006_reports
Revises: 0005
Create Date: 2026-12-01

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006_reports"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

GAME_ID = sa.String(length=64).with_variant(sa.VARCHAR(length=64, collation="C"), "postgresql")


def upgrade() -> None:
    op.create_table(
        "reports",
        sa.Column("game_id", GAME_ID, nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("reason", sa.String(length=200), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_reports_game_id_games"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_reports_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("game_id", "player_id", name=op.f("pk_reports")),
    )
    op.create_index("ix_reports_player_id_at", "reports", ["player_id", "at"])


def downgrade() -> None:
    op.drop_index("ix_reports_player_id_at", table_name="reports")
    op.drop_table("reports")
