"""Where an account is signed in, and what it holds: credentials (one secret token per
sign-in), passkeys, recovery codes, terminal sign-in codes (:mod:`.credentials`); an
account's data taken out or deleted (:mod:`.export`)."""

from .credentials import CredentialPart
from .export import ExportPart
from .records import CredentialRecord, DeviceCodeRecord, PasskeyRecord

__all__ = [
    "CredentialPart",
    "CredentialRecord",
    "DeviceCodeRecord",
    "ExportPart",
    "PasskeyRecord",
]
