"""What the tests share, in one package: ``servers`` (a real server in the test process and
a client for it), ``fakes`` (an in-memory store for the play layer's unit tests), ``store``
(records for the store's tests), ``client`` (a scripted connection for the client's),
``web`` (plain HTTP and a real headless Chromium), ``kills`` (``simon-server`` as a process
to kill, and its bots), ``proxy`` (a TCP proxy to take PostgreSQL or Redis away),
``ledger`` (what a client was told), ``players``, ``dns`` and ``services``."""
