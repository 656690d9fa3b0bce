"""Names in their own alphabet: each account's look key, unique.

Adds ``players.look_key``, the name's confusable skeleton (``server.names.look_key``) under a
unique index, so no new name can pose as another (a Cyrillic ``аnna`` as ``anna``), and
back-fills it for every account, oldest first. Accounts made before the rule may already
look alike (``ann_1`` and ``ann_l``): the oldest keeps the key and the others none (NULL, which
a unique index lets repeat), so each keeps its name, and a new name like theirs still meets
the oldest's key. ``name_key`` is written again in the new caseless form
(``server.names.name_key``: the same for every name of the old ASCII rule).

Revision ID: 0010_names_look_keys
Revises: 0009_solver_reviews
Create Date: 2026-12-03

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from server.names import look_key, name_key

revision: str = "0010_names_look_keys"
down_revision: str | Sequence[str] | None = "0009_solver_reviews"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

PLAYERS = sa.table(
    "players",
    sa.column("id", sa.Integer()),
    sa.column("name", sa.String()),
    sa.column("name_key", sa.String()),
    sa.column("look_key", sa.String()),
)


def upgrade() -> None:
    # Plain ADD COLUMN, nullable and without a default: no table copy on SQLite.
    op.add_column("players", sa.Column("look_key", sa.String(length=512), nullable=True))
    connection = op.get_bind()
    rows = connection.execute(
        sa.select(PLAYERS.c.id, PLAYERS.c.name, PLAYERS.c.name_key).order_by(PLAYERS.c.id)
    ).all()
    keys = {row.name_key for row in rows}
    looks: set[str] = set()
    updates = []
    for row in rows:
        key = name_key(row.name)
        if key != row.name_key and key in keys:
            key = row.name_key  # another account has the new form: keep the old
        keys.add(key)
        looks_like = look_key(row.name)
        taken = looks_like in looks
        looks.add(looks_like)
        updates.append({"row_id": row.id, "key": key, "looks": None if taken else looks_like})
    if updates:
        connection.execute(
            PLAYERS.update()
            .where(PLAYERS.c.id == sa.bindparam("row_id"))
            .values(name_key=sa.bindparam("key"), look_key=sa.bindparam("looks")),
            updates,
        )
    op.create_index("ix_players_look_key", "players", ["look_key"], unique=True)


def downgrade() -> None:
    op.drop_index("ix_players_look_key", table_name="players")
    # DROP COLUMN in place (SQLite 3.35+), as 0008 does.
    op.drop_column("players", "look_key")
