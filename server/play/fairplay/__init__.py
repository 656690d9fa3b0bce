"""Fair play: the evidence of one finished daily (``evidence``, ``difficulty``: pure), an
account's trust across days (``trust``: pure), and the screening that decides, once a game,
whether a result goes on a board or is held for a person's review (``screening``).

May import the engine, the store, ``server.play``'s top-level modules and ``daily``.
"""
