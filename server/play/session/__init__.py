"""One connection's conversation: ``session`` (a parsed message in, replies out, pushes
through a callback; one ``match`` hands each message to its handler), ``playing`` (the
connection's game and its actions), and the other handlers, one module a family of
messages (``account_``, ``query_``, ``after_``, ``room_handlers``), which see the session
as a ``conversation.Conversation``.

May import everything in ``server.play``; nothing in ``server.play`` imports it, and no
module here but ``session`` imports ``session``.
"""
