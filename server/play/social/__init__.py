"""Friends and leagues: following players and the friends' board (:mod:`.friends`), private
leagues and their seasons (:mod:`.leagues`, scored by :mod:`.points`), and telling players
online when a friend finishes the daily (:mod:`.live`)."""

from .friends import MOST_FOLLOWS, Circle, Friends, FriendsResults
from .leagues import MOST_JOINED, MOST_MEMBERS, MOST_OWNED, LeaguePage, Leagues
from .live import FriendsFeed

__all__ = [
    "MOST_FOLLOWS",
    "MOST_JOINED",
    "MOST_MEMBERS",
    "MOST_OWNED",
    "Circle",
    "Friends",
    "FriendsFeed",
    "FriendsResults",
    "LeaguePage",
    "Leagues",
]
