"""The daily leaderboard's order, defined once: :data:`ORDER`.

Wins come first, best score first, then the faster game, then the earlier finish. Then the
games not won (resigned, or still unfinished when their day ended): more runs removed
first, then the better score, then the faster game. The finish time and the game id break
the last ties, so the order is total and every page boundary is exact.

Everything else is derived from :data:`ORDER` and never written out again:

* :meth:`ResultKey.sort_key`: a tuple, all ascending, for sorting in Python;
* :meth:`ResultKey.member`: a fixed-width text whose byte order is the same order (the rank
  cache's ordered sets, and, base64'd, the leaderboard cursors);
* ``LEADERBOARD_KEY`` in :mod:`server.store.models`: the same terms as SQL expressions, all
  ascending (the index and the keyset queries).

>>> from datetime import UTC, datetime
>>> at = datetime(2026, 3, 1, tzinfo=UTC)
>>> win = ResultKey(won=True, removed=4, score=820, elapsed=300.0, finished_at=at, id="a")
>>> loss = ResultKey(won=False, removed=3, score=900, elapsed=10.0, finished_at=at, id="b")
>>> sorted([loss, win], key=ResultKey.sort_key) == [win, loss]
True
>>> win.member() < loss.member()
True
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, fields
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from server.store.errors import InvalidRequest

#: The terms of the order, most significant first: a field of :class:`ResultKey`, and
#: whether higher values come first. A won game has removed all four runs, so the
#: "removed" term only orders the games not won.
ORDER: Final[tuple[tuple[str, bool], ...]] = (
    ("won", True),
    ("removed", True),
    ("score", True),
    ("elapsed", False),
    ("finished_at", False),
    ("id", False),
)

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)
_INT_BOUND = 2**31  # integers are 4-byte in the database (scores, runs removed)


@dataclass(frozen=True, slots=True)
class ResultKey:
    """Where one finished daily game stands; the fields are named like the ``games``
    columns, so a database row (or any object with these attributes) converts with
    :meth:`of`."""

    won: bool
    removed: int
    score: int
    elapsed: float
    finished_at: datetime
    id: str

    @classmethod
    def of(cls, row: Any) -> ResultKey:
        """The key of anything with the attributes ``won``, ``removed``, ``score``,
        ``elapsed``, ``finished_at`` and ``id``."""
        return cls(*(getattr(row, name) for name in _FIELDS))

    def sort_key(self) -> tuple[Any, ...]:
        """The key as a tuple that sorts ascending in leaderboard order."""
        return tuple(
            -int(value) if descending else value
            for value, descending in zip(self._values(), _DESCENDING, strict=True)
        )

    def member(self) -> str:
        """A fixed-width text (the id last, whole) that sorts bytewise like :meth:`sort_key`;
        :class:`InvalidRequest` for a value that cannot be ranked (a negative or infinite
        elapsed, an integer out of the database's range, a naive time, an empty id)."""
        return "".join(
            _ENCODERS[kind][0](value, descending)
            for value, (kind, descending) in zip(self._values(), _TERMS, strict=True)
        )

    @classmethod
    def from_member(cls, text: str) -> ResultKey:
        """The key a :meth:`member` text was made from; :class:`InvalidRequest` for any other
        text."""
        values: dict[str, Any] = {}
        offset = 0
        for (name, _), (kind, descending) in zip(ORDER, _TERMS, strict=True):
            _, decode, width = _ENCODERS[kind]
            part = text[offset:] if width is None else text[offset : offset + width]
            if width is not None and len(part) != width:
                raise InvalidRequest(f"not a leaderboard key: {text!r}")
            try:
                values[name] = decode(part, descending)
            except (ValueError, OverflowError):  # not hex digits, or a time out of range
                raise InvalidRequest(f"not a leaderboard key: {text!r}") from None
            offset += len(part)
        key = cls(**values)
        if key.member() != text:  # e.g. upper-case hex digits, or a value out of range
            raise InvalidRequest(f"not a leaderboard key: {text!r}")
        return key

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name, _ in ORDER)


# -- fixed-width encodings, each sorting bytewise like its values ----------------------


def _encode_int(value: int, descending: bool) -> str:
    if isinstance(value, bool):
        value = int(value)
    if not -_INT_BOUND < value < _INT_BOUND:  # negated, it still fits
        raise InvalidRequest(f"out of range for a leaderboard key: {value}")
    return f"{(-value if descending else value) + _INT_BOUND:08x}"


def _decode_int(text: str, descending: bool) -> int:
    value = int(text, 16) - _INT_BOUND
    return -value if descending else value


def _encode_float(value: float, descending: bool) -> str:
    assert not descending  # only ascending: a non-negative double's bits sort like it
    if not (math.isfinite(value) and value >= 0):
        raise InvalidRequest(f"must be finite and non-negative: {value}")
    return struct.pack(">d", value + 0.0).hex()  # + 0.0 turns -0.0 into 0.0


def _decode_float(text: str, descending: bool) -> float:
    (value,) = struct.unpack(">d", bytes.fromhex(text))
    return float(value)


def _encode_time(value: datetime, descending: bool) -> str:
    assert not descending
    if value.tzinfo is None:
        raise InvalidRequest(f"a naive time cannot be ranked: {value!r}")
    micros = (value - _EPOCH) // _MICROSECOND + 2**62  # microseconds: exact, unlike floats
    if not 0 <= micros < 2**64:
        raise InvalidRequest(f"out of range for a leaderboard key: {value!r}")
    return f"{micros:016x}"


def _decode_time(text: str, descending: bool) -> datetime:
    return _EPOCH + (int(text, 16) - 2**62) * _MICROSECOND


def _encode_text(value: str, descending: bool) -> str:
    assert not descending
    if not value:
        raise InvalidRequest("an empty game id cannot be ranked")
    return value


def _decode_text(text: str, descending: bool) -> str:
    return text


#: By field type: encode, decode, width (None: the rest of the text, so only last).
_ENCODERS: Final[dict[str, tuple[Any, Any, int | None]]] = {
    "bool": (_encode_int, lambda text, descending: bool(_decode_int(text, descending)), 8),
    "int": (_encode_int, _decode_int, 8),
    "float": (_encode_float, _decode_float, 16),
    "datetime": (_encode_time, _decode_time, 16),
    "str": (_encode_text, _decode_text, None),
}
_FIELDS: Final = tuple(field.name for field in fields(ResultKey))
_TYPES: Final = {field.name: str(field.type) for field in fields(ResultKey)}
_TERMS: Final = tuple((_TYPES[name], descending) for name, descending in ORDER)
_DESCENDING: Final = tuple(descending for _, descending in ORDER)

# The order must name every field once, and only the last term may be variable-width.
assert sorted(name for name, _ in ORDER) == sorted(_FIELDS), "ORDER must name every field"
assert all(_ENCODERS[kind][2] is not None for kind, _ in _TERMS[:-1])
assert not any(descending for kind, descending in _TERMS if kind in ("float", "datetime", "str"))
