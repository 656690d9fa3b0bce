"""What a handler may ask of the conversation it answers for: :class:`Conversation`, the
public face of :class:`~.session.Session` (who is signed in, the connection's game, the
state to reply with, a push to the client), so that no handler reaches into the session.

Handlers import this module, never ``.session``: the session imports them.
"""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING, Protocol

from server.i18n.languages import Language
from server.protocol import MessageId, PlayerInfo, Reply, ServerMessage, State

if TYPE_CHECKING:
    from server.play.games.player_game import PlayerGame
    from server.play.hub import Hub
    from server.play.sending import Push
    from server.store import PlayerRecord

#: What a handler returns: messages (``moved`` encoded already), encoded at the socket.
Replies = list[Reply]


class Conversation(Protocol):
    """One connection's conversation, as its handlers see it."""

    #: ``hello`` asked for placement help with each state and move (a browser's board).
    legal: bool
    #: The language of the connection's sentences (``hello``'s or ``auth``'s ``lang``).
    language: Language

    @property
    def hub(self) -> Hub:
        """The node's services."""

    @property
    def push(self) -> Push:
        """The connection's push: takes encoded frames, never blocks (and names the
        connection as a follower of races and rooms)."""

    @property
    def address(self) -> str:
        """The client's address, as the network layer counts it."""

    @property
    def player(self) -> PlayerRecord | None:
        """The account signed in on this connection, if any."""

    def send(self, message: ServerMessage) -> None:
        """Push ``message`` to the client, unasked (encoded here)."""

    def signed_in_player(self) -> PlayerRecord:
        """The account signed in; refused ``not-authenticated`` without one."""

    def sign_in_as(self, player: PlayerRecord) -> None:
        """The connection has this account now."""

    def player_info(self) -> PlayerInfo:
        """The signed-in account as the protocol shows it."""

    async def follow_daily_race(self, day: date, suits: int) -> None:
        """Follow a daily race (an account's, so that followers can be capped)."""

    async def make_current(self, game: PlayerGame) -> None:
        """Make ``game`` the connection's game, letting go of the previous one. Refused
        (too many follows of its race), the connection keeps its game and lets go of
        ``game``."""

    async def state_reply(self, message_id: MessageId | None, game: PlayerGame) -> State:
        """``game``'s state, as this connection is shown it (with placement help if asked)."""
