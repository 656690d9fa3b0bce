"""The store's records of an account's credentials, passkeys and terminal sign-in codes."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class CredentialRecord:
    """One place an account is signed in (its secret is never read back)."""

    id: int
    player_id: int
    kind: str  # registration, rotation, passkey, terminal, recovery
    label: str
    created_at: datetime
    created_from: str
    last_used_at: datetime
    last_used_from: str


@dataclass(frozen=True)
class PasskeyRecord:
    id: int
    player_id: int
    credential_id: str  # base64url
    public_key: bytes
    sign_count: int
    name: str
    created_at: datetime
    last_used_at: datetime | None


@dataclass(frozen=True)
class DeviceCodeRecord:
    """A terminal's sign-in waiting for approval."""

    user_code: str
    label: str
    created_at: datetime
    created_from: str
    expires_at: datetime
    player_id: int | None  # the account that approved it
    denied: bool = False  # its player refused it
