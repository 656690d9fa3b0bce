"""The root of what the server's edge raises: the one port (``server/net``: websocket and
HTTP), the pages it serves there (``server/web``) and ``simon-server``'s command line that
starts it (``server/main.py``).

::

    EdgeError
    ├── BadQuery         an HTTP request's path or parameters the server cannot take
    │                    (server/net/errors.py): answered 400 ``invalid_message``
    ├── CannotListen     the server cannot listen where it was told (an OSError too;
    │                    server/net/errors.py)
    ├── PageError        a request a page cannot answer: its HTTP status, code and sentence
    │                    (server/web/source.py)
    └── AdminError       a command that cannot go on: one line, exit status 1
                         (server/main.py)

One root for the three because they are one layer seen from outside: the net layer serves
the pages and the command line runs the net layer. It lives in a module of its own, which
imports nothing, because ``server.net`` imports ``server.web``: a root in either would make
the other import it back.
"""

from __future__ import annotations


class EdgeError(Exception):
    """The root of what the net layer, the pages and the command line raise."""
