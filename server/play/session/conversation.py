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
    from server.play.accounts import Challenge
    from server.play.games.player_game import PlayerGame
    from server.play.hub import Hub
    from server.play.sending import Push
    from server.store import CredentialRecord, PlayerRecord

#: What a handler returns: messages (``moved`` encoded already), encoded at the socket.
Replies = list[Reply]


class Conversation(Protocol):
    """One connection's conversation, as its handlers see it."""

    #: ``hello`` asked for placement help with each state and move (a browser's board).
    legal: bool
    #: The language of the connection's sentences (``hello``'s or ``auth``'s ``lang``).
    language: Language
    #: The passkey ceremony under way on this connection, if any.
    challenge: Challenge | None

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
    def origin(self) -> str | None:
        """The ``Origin`` of the page that opened the connection (None for no page)."""

    @property
    def site(self) -> str:
        """Where the client reached the server (``http://host:port``), or ""."""

    @property
    def user_agent(self) -> str:
        """The handshake's ``User-Agent`` ("" without one)."""

    @property
    def player(self) -> PlayerRecord | None:
        """The account signed in on this connection, if any."""

    @property
    def credential_id(self) -> int | None:
        """The id of the credential the connection signed in with, if any."""

    def send(self, message: ServerMessage) -> None:
        """Push ``message`` to the client, unasked (encoded here)."""

    def signed_in_player(self) -> PlayerRecord:
        """The account signed in; refused ``not-authenticated`` without one."""

    def sign_in_as(self, player: PlayerRecord, credential: CredentialRecord | None = None) -> None:
        """The connection has this account now (signed in by ``credential``, when given: it
        is signed out when that is revoked)."""

    def let_go_of_credential(self) -> None:
        """Stop being signed out when the connection's credential is revoked (it is about to
        be replaced)."""

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
