"""Accounts: names, secret tokens and their hashes.

A name is 2 to 24 characters: ASCII letters, digits, ``_`` and ``-``; names are unique
regardless of case (the store enforces it). A token is 256 random bits, shown once at
registration; the store keeps only its SHA-256, so a leaked database reveals no token
and changing the server secret logs nobody out.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from typing import Final

NAME_MIN: Final = 2
NAME_MAX: Final = 24
_NAME = re.compile(r"^[A-Za-z0-9_-]+$")


class BadName(ValueError):
    """A name that breaks the naming rule; the message says which part."""


def check_name(name: str) -> str:
    """Return ``name`` stripped of surrounding spaces, or raise :class:`BadName`."""
    name = name.strip()
    if not NAME_MIN <= len(name) <= NAME_MAX:
        raise BadName(f"a name is {NAME_MIN} to {NAME_MAX} characters long")
    if not _NAME.match(name):
        raise BadName("a name uses only letters A-Z, digits, _ and -")
    return name


def new_token() -> str:
    """A fresh secret token: 256 random bits, URL-safe text."""
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
