"""An account's language: the one its player chose (``set_language``), so that every device
and the terminal client speak it.

Adds ``players.language``, a BCP 47 tag of ``server.i18n.LANGUAGES`` (``en``, ``pl``, ``ru``),
or NULL for an account whose player has chosen none (a connection then speaks what its
``hello`` asks, else English).

Revision ID: 0011_player_language
Revises: 0010_names_look_keys
Create Date: 2026-12-04

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011_player_language"
down_revision: str | Sequence[str] | None = "0010_names_look_keys"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ADD COLUMN, nullable and without a default: no table copy on SQLite.
    op.add_column("players", sa.Column("language", sa.String(length=8), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.drop_column("language")
