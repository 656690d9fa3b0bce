"""A refusal: the error a client gets back, with a stable code."""

from __future__ import annotations

from server.engine import IllegalMoveError
from server.protocol import Error, ErrorCode, MessageId


class Refused(Exception):
    """Raised anywhere in play; the session turns it into an ``error`` reply."""

    def __init__(self, code: ErrorCode, message: str, *, rule: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.rule = rule

    @classmethod
    def illegal(cls, error: IllegalMoveError) -> Refused:
        return cls(ErrorCode.ILLEGAL_MOVE, error.message, rule=error.code)

    def reply(self, message_id: MessageId | None) -> Error:
        return Error(id=message_id, code=self.code, message=self.message, rule=self.rule)
