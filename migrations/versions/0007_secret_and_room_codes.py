"""The install's own secret, longer race room codes, and rooms by owner.

``install_secrets`` keeps a secret made at the install's first start (the daily deals'
seed when ``SIMON_SECRET`` is unset), shared by every node on the database. Room codes
grow from 5 letters to 11 characters (``KXR4M-7M2PQ``): their columns widen to 16. Rooms
are counted by owner (at most a few open at once), hence the index.

Revision ID: secret_and_room_codes
Revises: 0006_reports
Create Date: 2026-12-01

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "secret_and_room_codes"
down_revision: str | Sequence[str] | None = "0006_reports"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

WHEN = sa.DateTime(timezone=True)
#: Each table's room code columns.
ROOM_CODES = {
    "races": ("code", "previous", "next"),
    "race_entries": ("race_code",),
    "race_lobbies": ("code",),
}


def _room_codes(old: int, new: int) -> None:
    for table, columns in ROOM_CODES.items():
        with op.batch_alter_table(table) as batch:
            for column in columns:
                batch.alter_column(
                    column, existing_type=sa.String(length=old), type_=sa.String(length=new)
                )


def upgrade() -> None:
    op.create_table(
        "install_secrets",
        sa.Column("name", sa.String(length=32), nullable=False),
        sa.Column("value", sa.String(length=128), nullable=False),
        sa.Column("created_at", WHEN, nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_install_secrets")),
    )
    _room_codes(8, 16)
    op.create_index("ix_races_owner_id", "races", ["owner_id"])


def downgrade() -> None:
    op.drop_index("ix_races_owner_id", table_name="races")
    # rooms whose codes no longer fit go (their racers' games stay, as practice games)
    op.execute(
        sa.text(
            "DELETE FROM race_entries "
            "WHERE race_code IN (SELECT code FROM races WHERE length(code) > 8)"
        )
    )
    op.execute(sa.text("UPDATE race_lobbies SET code = NULL WHERE length(code) > 8"))
    op.execute(
        sa.text(
            "UPDATE races SET previous = NULL, next = NULL "
            "WHERE length(previous) > 8 OR length(next) > 8"
        )
    )
    op.execute(sa.text("DELETE FROM races WHERE length(code) > 8"))
    _room_codes(16, 8)
    op.drop_table("install_secrets")
