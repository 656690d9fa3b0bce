"""The action log: every accepted action in a row of its own, keyed by (game, seq).

Existing games move into it: their stored action lists become entries 1..n (timed at the
game's start, the only time known for them), and a finished game gets its end entry
(``won`` or ``resign``) at its finish time. The ``games.actions`` column goes. Downgrading
writes the lists back from the log.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30

"""

from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BATCH = 1000
END_ACTIONS = ("won", "resign")

games = sa.table(
    "games",
    sa.column("id", sa.String()),
    sa.column("actions", sa.JSON()),
    sa.column("started_at", sa.DateTime(timezone=True)),
    sa.column("finished_at", sa.DateTime(timezone=True)),
    sa.column("won", sa.Boolean()),
)
game_actions = sa.table(
    "game_actions",
    sa.column("game_id", sa.String()),
    sa.column("seq", sa.Integer()),
    sa.column("action", sa.String()),
    sa.column("at_ms", sa.BigInteger()),
)


def _millis(moment: datetime) -> int:
    if moment.tzinfo is None:  # SQLite keeps no zone; the server stores UTC
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


def _in_batches(query: sa.Select[Any]) -> Iterator[list[Any]]:
    """Rows of ``query`` (ordered by game id, its first column) a batch at a time."""
    connection = op.get_bind()
    last: str | None = None
    while True:
        page = query if last is None else query.where(sa.column("id") > last)
        rows = list(connection.execute(page.limit(BATCH)))
        if not rows:
            return
        yield rows
        last = rows[-1][0]


def upgrade() -> None:
    op.create_table(
        "game_actions",
        sa.Column(
            "game_id",
            sa.String(length=64).with_variant(sa.VARCHAR(length=64, collation="C"), "postgresql"),
            nullable=False,
        ),
        sa.Column("seq", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("action", sa.String(length=16), nullable=False),
        sa.Column("at_ms", sa.BigInteger(), nullable=False),
        sa.Column("request_id", sa.Text(), nullable=True),
        sa.Column("request", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
            name=op.f("fk_game_actions_game_id_games"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("game_id", "seq", name=op.f("pk_game_actions")),
        # SQLite: the key is the table (one B-tree to insert into, not a table and an index)
        sqlite_with_rowid=False,
    )
    connection = op.get_bind()
    query = sa.select(
        games.c.id, games.c.actions, games.c.started_at, games.c.finished_at, games.c.won
    ).order_by(games.c.id)
    for rows in _in_batches(query):
        entries: list[dict[str, Any]] = []
        for game_id, actions, started_at, finished_at, won in rows:
            started = _millis(started_at)
            for seq, action in enumerate(actions or [], start=1):
                entries.append({"game_id": game_id, "seq": seq, "action": action, "at_ms": started})
            if finished_at is not None:
                entries.append(
                    {
                        "game_id": game_id,
                        "seq": len(actions or []) + 1,
                        "action": "won" if won else "resign",
                        "at_ms": _millis(finished_at),
                    }
                )
        if entries:
            connection.execute(game_actions.insert(), entries)
    # SQLite (3.35 and later) drops a column in place; batch mode would copy the table and
    # lose the leaderboard's expression index.
    op.execute("ALTER TABLE games DROP COLUMN actions")


def downgrade() -> None:
    op.add_column(
        "games", sa.Column("actions", sa.JSON(), nullable=False, server_default=sa.text("'[]'"))
    )
    connection = op.get_bind()
    query = sa.select(games.c.id).order_by(games.c.id)
    for rows in _in_batches(query):
        ids = [row[0] for row in rows]
        logged = connection.execute(
            sa.select(game_actions.c.game_id, game_actions.c.action)
            .where(game_actions.c.game_id.in_(ids))
            .order_by(game_actions.c.game_id, game_actions.c.seq)
        )
        actions: dict[str, list[str]] = {game_id: [] for game_id in ids}
        for game_id, action in logged:
            if action not in END_ACTIONS:
                actions[game_id].append(action)
        for game_id, listed in actions.items():
            if listed:
                connection.execute(
                    games.update().where(games.c.id == game_id).values(actions=listed)
                )
    op.drop_table("game_actions")
