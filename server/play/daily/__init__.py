"""The daily: one deal a UTC day and suit count, the same on every node (``deals``); which
accounts start on the new players' board (``newcomers``); and the day's live standings of
everyone on a deal, mirrored on every node that has followers (``standings``).

May import the engine, the solver, the store, the bus and ``server.play``'s top-level
modules (``clock``, ``errors``, ``sending``); nothing else of ``server.play``.
"""
