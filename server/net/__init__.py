"""The network layer: websocket connections and plain HTTP on one port.

It parses frames, enforces the frame size and message budget, hands parsed messages to
:class:`~server.play.session.session.Session` and sends back what it returns. Nothing here knows
the rules of the game.
"""

from .app import RunningServer, run_server

__all__ = ["RunningServer", "run_server"]
