"""Helpers shared by the durability tests and the kill benchmark: a TCP proxy to take
PostgreSQL or Redis away, a client-side ledger of acknowledged actions, and a harness
that runs ``simon-server`` as a process to kill."""
