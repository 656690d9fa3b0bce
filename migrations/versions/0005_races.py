"""Race rooms: the rooms, their racers and results, and the quick races' open rooms.

``races`` (a room, its options, state, deal and times, its rematch), ``race_entries`` (its
racers, their games and results) and ``race_lobbies`` (the open public room of each suit
count).

Racers' games are ordinary ``games`` rows (mode ``practice``), linked from their entry.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-10

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

GAME_ID = sa.String(length=64).with_variant(sa.VARCHAR(length=64, collation="C"), "postgresql")
WHEN = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "races",
        sa.Column("code", sa.String(length=8), nullable=False),
        sa.Column("owner_id", sa.Integer(), nullable=False),
        sa.Column("suits", sa.SmallInteger(), nullable=False),
        sa.Column("chosen_deal", sa.String(length=32), nullable=True),
        sa.Column("deal", sa.String(length=32), nullable=True),
        sa.Column("public", sa.Boolean(), nullable=False),
        sa.Column("capacity", sa.SmallInteger(), nullable=False),
        sa.Column("allow_bots", sa.Boolean(), nullable=False),
        sa.Column("countdown", sa.Float(), nullable=False),
        sa.Column("time_limit", sa.Float(), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.Column("created_at", WHEN, nullable=False),
        sa.Column("auto_start_at", WHEN, nullable=True),
        sa.Column("starts_at", WHEN, nullable=True),
        sa.Column("ends_at", WHEN, nullable=True),
        sa.Column("finished_at", WHEN, nullable=True),
        sa.Column("previous", sa.String(length=8), nullable=True),
        sa.Column("next", sa.String(length=8), nullable=True),
        sa.CheckConstraint(
            "state IN ('open', 'started', 'over', 'expired')", name=op.f("ck_races_state")
        ),
        sa.ForeignKeyConstraint(
            ["owner_id"], ["players.id"], name=op.f("fk_races_owner_id_players"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("code", name=op.f("pk_races")),
    )
    op.create_index("ix_races_state", "races", ["state"])
    op.create_table(
        "race_entries",
        sa.Column("race_code", sa.String(length=8), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("joined_at", WHEN, nullable=False),
        sa.Column("game_id", GAME_ID, nullable=True),
        sa.Column("place", sa.SmallInteger(), nullable=True),
        sa.Column("won", sa.Boolean(), nullable=True),
        sa.Column("resigned", sa.Boolean(), nullable=True),
        sa.Column("moves", sa.Integer(), nullable=True),
        sa.Column("score", sa.Integer(), nullable=True),
        sa.Column("removed", sa.SmallInteger(), nullable=True),
        sa.Column("elapsed", sa.Float(), nullable=True),
        sa.ForeignKeyConstraint(
            ["race_code"],
            ["races.code"],
            name=op.f("fk_race_entries_race_code_races"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_race_entries_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
            name=op.f("fk_race_entries_game_id_games"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("race_code", "player_id", name=op.f("pk_race_entries")),
    )
    op.create_index("ix_race_entries_game_id", "race_entries", ["game_id"], unique=True)
    op.create_index("ix_race_entries_player_id", "race_entries", ["player_id"])
    op.create_table(
        "race_lobbies",
        sa.Column("suits", sa.SmallInteger(), autoincrement=False, nullable=False),
        sa.Column("code", sa.String(length=8), nullable=True),
        sa.PrimaryKeyConstraint("suits", name=op.f("pk_race_lobbies")),
    )


def downgrade() -> None:
    op.drop_table("race_lobbies")
    op.drop_index("ix_race_entries_player_id", table_name="race_entries")
    op.drop_index("ix_race_entries_game_id", table_name="race_entries")
    op.drop_table("race_entries")
    op.drop_index("ix_races_state", table_name="races")
    op.drop_table("races")
