"""The secrets of accounts: tokens, recovery codes and terminal codes, made and hashed.

A token is 256 random bits; a recovery code 80 (16 letters of base32); a terminal's device
code 256, its user code about 35 (8 consonants, RFC 8628's advice: no vowel to spell a word,
no 0/O or 1/I to mistake). The store keeps only SHA-256 hashes: at these sizes nothing is
guessed offline from a leaked database, and changing the server secret logs nobody out.
"""

from __future__ import annotations

import base64
import hashlib
import re
import secrets

#: The letters of a terminal's user code.
USER_CODE_LETTERS = "BCDFGHJKLMNPQRSTVWXZ"
_NOT_A_USER_CODE_LETTER = re.compile(f"[^{USER_CODE_LETTERS}]")
_NOT_BASE32 = re.compile("[^A-Z2-7]")


def new_token() -> str:
    """A fresh secret token: 256 random bits, URL-safe text."""
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    """The hash the store keeps of a token, recovery code or device code."""
    return hashlib.sha256(token.encode()).hexdigest()


def new_recovery_code() -> str:
    """``ABCD-EFGH-IJKL-MNOP``: 80 random bits in base32."""
    letters = base64.b32encode(secrets.token_bytes(10)).decode()
    return "-".join(letters[i : i + 4] for i in range(0, 16, 4))


def recovery_code_key(typed: str) -> str:
    """A recovery code as typed (any case, spaces or dashes) in the form hashed."""
    return _NOT_BASE32.sub("", typed.upper())


def new_user_code() -> str:
    """``BCDF-GHJK``: what a player reads off a terminal and approves."""
    letters = "".join(secrets.choice(USER_CODE_LETTERS) for _ in range(8))
    return f"{letters[:4]}-{letters[4:]}"


def user_code_key(typed: str) -> str:
    """A user code as typed (any case, spaces or dashes) in the form stored."""
    letters = _NOT_A_USER_CODE_LETTER.sub("", typed.upper())
    return f"{letters[:4]}-{letters[4:]}" if len(letters) == 8 else letters
