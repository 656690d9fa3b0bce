"""Leases: one holder at a time among all that share the database, free again after."""

from __future__ import annotations

from server.store import Store
from server.store.lease import leases_for


async def test_one_holder_at_a_time_and_free_again_after(store: Store) -> None:
    # leases of their own on the same database stand for a second node
    other_node = leases_for(store.engine)
    async with store.leases.hold("proving") as first:
        assert first
        async with other_node.hold("proving") as second:
            assert not second
        async with other_node.hold("another job") as unrelated:
            assert unrelated
    async with other_node.hold("proving") as after:
        assert after
    async with store.leases.hold("proving") as again:
        assert again
