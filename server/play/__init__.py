"""Play: accounts, one authoritative engine per player game, the daily schedule, race rooms.

Nothing here touches a socket: a :class:`~server.play.session.Session` takes one parsed
client message and returns the replies, and pushes events through a callback.
"""
