"""An account's settings: the ones its player keeps (``set_settings``), so that every device
has them (the four-colour pack, auto placement, sound, the cards' size).

Adds ``players.settings``, a JSON object of setting names to values (at most 1024
characters as JSON), or NULL for an account whose player has kept none (every setting at
its default).

Revision ID: 0012_player_settings
Revises: 0011_player_language
Create Date: 2026-12-05

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012_player_settings"
down_revision: str | Sequence[str] | None = "0011_player_language"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ADD COLUMN, nullable and without a default: no table copy on SQLite.
    op.add_column("players", sa.Column("settings", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.drop_column("settings")
