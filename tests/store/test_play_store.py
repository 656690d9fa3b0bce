"""``Store`` and the tests' ``FakeStore`` both satisfy :class:`PlayStore`, the store as the
play layer uses it (the union of a narrow protocol per job): mypy checks the two functions
below (this module is in mypy's files), and the test holds every method's parameters to the
protocol's, so neither drifts."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from server.store import (
    AccountDataStore,
    AfterDayStore,
    BoardStore,
    CredentialStore,
    DealStore,
    FairPlayStore,
    GameStore,
    PlayerStore,
    PlayStore,
    Store,
)
from tests.support.fakes import FakeStore


def _store_is_a_play_store(store: Store) -> PlayStore:
    return store


def _fake_is_a_play_store() -> PlayStore:
    return FakeStore()


#: Every method of the narrow protocols PlayStore is made of (it adds none of its own).
PROTOCOL_METHODS = sorted(
    name for name, value in inspect.getmembers(PlayStore, inspect.isfunction)
    if not name.startswith("_")
)  # fmt: skip


def _shape(method: Any) -> tuple[bool, list[tuple[str, Any, Any]]]:
    """Whether it is awaited, and its parameters: name, kind, default (mypy has the types)."""
    parameters = inspect.signature(method).parameters.values()
    return (
        inspect.iscoroutinefunction(method),
        [(p.name, p.kind, p.default) for p in parameters],
    )


def test_the_protocol_lists_what_the_play_layer_uses() -> None:
    assert "append" in PROTOCOL_METHODS and "finished_games" in PROTOCOL_METHODS
    assert "create_player" in PROTOCOL_METHODS and "put_trust" in PROTOCOL_METHODS
    assert "review" not in PROTOCOL_METHODS  # an operator's command, not the play layer's


def test_each_method_belongs_to_one_narrow_protocol() -> None:
    parts = (
        PlayerStore,
        CredentialStore,
        AccountDataStore,
        DealStore,
        GameStore,
        BoardStore,
        FairPlayStore,
        AfterDayStore,
    )
    owners = {
        name: [part.__name__ for part in parts if name in vars(part)] for name in PROTOCOL_METHODS
    }
    assert {name: found for name, found in owners.items() if len(found) != 1} == {}


@pytest.mark.parametrize("implementation", [Store, FakeStore])
@pytest.mark.parametrize("name", PROTOCOL_METHODS)
def test_methods_take_the_protocols_parameters(implementation: type, name: str) -> None:
    method = getattr(implementation, name, None)
    assert method is not None, f"{implementation.__name__} has no {name}"
    assert _shape(method) == _shape(getattr(PlayStore, name))
