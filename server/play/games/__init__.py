"""Player games: one player's game around the engine (``player_game``) and what it remembers
of the requests it answered (``resends``, ``unseen``); the games this node holds, rebuilt
from their action log (``live``); starting, resuming and letting them go (``starts``); a
racer's standing (``standing``) and what a game tells its standings or its room (``feed``);
re-verifying stored games (``verify``).

May import the engine, the store, ``server.play``'s top-level modules and ``daily``.
"""
