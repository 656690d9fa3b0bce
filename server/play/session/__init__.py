"""One connection's conversation: ``session`` (a parsed message in, replies out, pushes
through a callback) and its handlers, one module a family of messages (``account_``,
``query_``, ``after_``, ``room_handlers``).

May import everything in ``server.play``; nothing in ``server.play`` imports it.
"""
