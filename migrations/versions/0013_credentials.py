"""Accounts people keep: a credential per place an account is signed in, passkeys,
recovery codes, terminal sign-in codes, and deleted accounts.

Adds ``credentials`` (one secret token's SHA-256 per sign-in: a browser, a terminal, a
bot; what made it, where and when it was made and last used), ``passkeys`` (WebAuthn public
keys), ``recovery_codes`` (one-time codes' SHA-256) and ``device_codes`` (a terminal's
sign-in waiting for approval), and ``players.deleted_at``. Each account's token moves from
``players.token_hash`` to a credential of its own (kind ``registration``), so every token
keeps working; the column goes.

Revision ID: 0013_credentials
Revises: 0012_player_settings
Create Date: 2026-12-07

"""

import secrets
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013_credentials"
down_revision: str | Sequence[str] | None = "0012_player_settings"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "credentials",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("label", sa.String(length=64), nullable=False),
        sa.Column("secret_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("created_from", sa.String(length=64), nullable=False),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_used_from", sa.String(length=64), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_credentials_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_credentials")),
    )
    op.create_index("ix_credentials_player_id", "credentials", ["player_id"])
    op.create_index("ix_credentials_secret_hash", "credentials", ["secret_hash"], unique=True)
    op.create_table(
        "passkeys",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("credential_id", sa.String(length=1400), nullable=False),
        sa.Column("public_key", sa.LargeBinary(), nullable=False),
        sa.Column("sign_count", sa.BigInteger(), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_passkeys_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_passkeys")),
    )
    op.create_index("ix_passkeys_credential_id", "passkeys", ["credential_id"], unique=True)
    op.create_index("ix_passkeys_player_id", "passkeys", ["player_id"])
    op.create_table(
        "recovery_codes",
        sa.Column("code_hash", sa.String(length=64), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_recovery_codes_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("code_hash", name=op.f("pk_recovery_codes")),
    )
    op.create_index("ix_recovery_codes_player_id", "recovery_codes", ["player_id"])
    op.create_table(
        "device_codes",
        sa.Column("device_code_hash", sa.String(length=64), nullable=False),
        sa.Column("user_code", sa.String(length=16), nullable=False),
        sa.Column("label", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("created_from", sa.String(length=64), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=True),
        sa.Column("denied", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_device_codes_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("device_code_hash", name=op.f("pk_device_codes")),
    )
    op.create_index("ix_device_codes_user_code", "device_codes", ["user_code"], unique=True)
    # Every account's token becomes its first credential: the same hash, so it still signs in.
    op.execute(
        "INSERT INTO credentials (player_id, kind, label, secret_hash, created_at,"
        " created_from, last_used_at, last_used_from)"
        " SELECT id, 'registration', '', token_hash, created_at, '', created_at, ''"
        " FROM players"
    )
    op.add_column("players", sa.Column("deleted_at", sa.DateTime(timezone=True), nullable=True))
    with op.batch_alter_table("players") as batch:
        batch.drop_index("ix_players_token_hash")
        batch.drop_column("token_hash")


def downgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("token_hash", sa.String(length=128), nullable=True))
    connection = op.get_bind()
    # Each account gets back its oldest credential's token; one with none (deleted, or every
    # place signed out) a hash no token has.
    connection.execute(
        sa.text(
            "UPDATE players SET token_hash = (SELECT c.secret_hash FROM credentials c"
            " WHERE c.player_id = players.id ORDER BY c.id LIMIT 1)"
        )
    )
    for (player_id,) in connection.execute(
        sa.text("SELECT id FROM players WHERE token_hash IS NULL")
    ).all():
        connection.execute(
            sa.text("UPDATE players SET token_hash = :hash WHERE id = :id"),
            {"hash": "none:" + secrets.token_hex(16), "id": player_id},
        )
    with op.batch_alter_table("players") as batch:
        batch.alter_column("token_hash", existing_type=sa.String(length=128), nullable=False)
        batch.create_index("ix_players_token_hash", ["token_hash"], unique=True)
        batch.drop_column("deleted_at")
    op.drop_table("device_codes")
    op.drop_table("recovery_codes")
    op.drop_table("passkeys")
    op.drop_table("credentials")
