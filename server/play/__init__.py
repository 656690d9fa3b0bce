"""Play: what the server does with a parsed message, with no socket in sight.

A :class:`~server.play.session.session.Session` takes one parsed client message and returns
the replies, and pushes events through a callback; the :class:`~server.play.hub.Hub` puts
together, once a node, the parts every session shares. The packages, each a concept, from
the bottom up (a package imports only those above it in this list, and this package's
top-level modules):

- the top-level modules: ``clock`` (time, injectable), ``errors`` (the layer's errors and
  their protocol codes), ``sending`` (pushes to this node's followers, a sender to the bus),
  ``accounts`` (names and tokens);
- ``daily``: the day's deals (``deals``), who starts on the new players' board
  (``newcomers``), and the day's live standings of everyone on a deal (``standings``);
- ``fairplay``: a finished daily's evidence, an account's trust across days, the screening
  that holds a result off the board;
- ``games``: one player's game (``player_game``), the games this node holds (``live``),
  starting and resuming them (``starts``), what a game tells its standings or its room
  (``feed``), resends;
- ``after``: a game's end (``endings``), the day's results, replays and reports (``day``),
  read-only questions (``queries``), reviews against the solver (``review``);
- ``rooms``: race rooms, where a few players race one fresh deal across nodes (``race``
  means a race room, and only that);
- ``session``: one connection's conversation and its handlers, by message.

``hub`` and ``days`` (the day ticker) sit on top: they put the packages together.

Where a new feature goes: a new kind of board is a new :data:`server.kinds.Board` value read
by ``after.queries`` and the store; a new language is a catalog beside the package (the
sentences live at the edge, never here); a new game mode is a :data:`server.kinds.Mode`, a
``games.starts`` road and its messages' handlers in ``session``.
"""
