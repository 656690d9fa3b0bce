"""Accounts: names, credentials (one token per place signed in) and their revocation
(:mod:`.accounts`); recovery codes and terminals' sign-in codes (:mod:`.signins`); passkeys
(:mod:`.passkeys`); the secrets and their hashes (:mod:`.secrets`); what made a credential
(:mod:`.labels`)."""

from .accounts import Accounts, Devices, SignedIn, check_name
from .labels import device_label
from .passkeys import Challenge, Passkeys
from .secrets import hash_token, new_token
from .signins import DeviceAuthorization, SignIns

__all__ = [
    "Accounts",
    "Challenge",
    "DeviceAuthorization",
    "Devices",
    "Passkeys",
    "SignIns",
    "SignedIn",
    "check_name",
    "device_label",
    "hash_token",
    "new_token",
]
