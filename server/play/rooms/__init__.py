"""Race rooms: a few players race one fresh deal head to head, across server nodes.

``rooms`` puts the parts together (:class:`~server.play.rooms.rooms.Rooms`): ``rules``
(settings, codes, a room's state by the clock), ``requests`` (open, join, leave, start,
rematch), ``runs`` (countdown, reveal, end), ``deals`` (a fresh proven deal), ``games``
(the racers' games), ``views`` (a room as it stands), ``followers`` and ``timers`` (who
follows a room on this node, and its instants), ``bus`` (a room's frames across nodes),
``sweep`` (rooms whose time came while no node followed them).

May import the engine, the store, the bus, ``server.play``'s top-level modules, ``daily``
(its deals) and ``games``.
"""
