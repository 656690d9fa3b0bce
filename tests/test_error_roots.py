"""Each layer raises from one root of its own, and the server's edge (the net layer, the
pages it serves and the command line) from one they share: six roots, no more, and every
exception class defined in a layer is a kind of that layer's root (the tree is drawn in each
layer's errors module and in the README)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import client_cli
import server
from client_cli.errors import ClientError
from server.bus import BusError
from server.edge import EdgeError
from server.engine import EngineError
from server.play.errors import PlayError
from server.store import StoreError

#: The root of each layer, by the prefix of its modules' names (the longest prefix wins).
ROOTS: dict[str, type[Exception]] = {
    "server.engine": EngineError,
    "server.store": StoreError,
    "server.bus": BusError,
    "server.play": PlayError,
    "server.edge": EdgeError,
    "server.net": EdgeError,
    "server.web": EdgeError,
    "server.main": EdgeError,
    "client_cli": ClientError,
}


def exception_classes() -> list[tuple[str, type[BaseException]]]:
    """Every exception class defined in the server's and the client's modules."""
    found = []
    for package in (server, client_cli):
        for module_info in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            module = importlib.import_module(module_info.name)
            for _, value in inspect.getmembers(module, inspect.isclass):
                if issubclass(value, BaseException) and value.__module__ == module.__name__:
                    found.append((module.__name__, value))
    return found


def root_of(module: str) -> type[Exception] | None:
    prefixes = [prefix for prefix in ROOTS if module == prefix or module.startswith(prefix + ".")]
    return ROOTS[max(prefixes, key=len)] if prefixes else None


def test_the_roots_are_the_layers_and_the_edges_and_no_others() -> None:
    defined = {kind for _, kind in exception_classes()}
    roots = {
        kind
        for kind in defined
        if not any(kind is not other and issubclass(kind, other) for other in defined)
    }
    assert roots == {EngineError, StoreError, BusError, PlayError, EdgeError, ClientError}
    assert roots == set(ROOTS.values())
    assert len(defined) > len(roots)  # the kinds under the roots are found too


@pytest.mark.parametrize(
    ("module", "kind"), exception_classes(), ids=lambda value: getattr(value, "__qualname__", value)
)
def test_every_exception_is_a_kind_of_its_layers_root(
    module: str, kind: type[BaseException]
) -> None:
    root = root_of(module)
    assert root is not None, f"{module} is in no layer with an error root"
    assert issubclass(kind, root), f"{kind.__qualname__} is no {root.__qualname__}"
    others = [other for other in ROOTS.values() if other is not root and issubclass(kind, other)]
    assert others == [], f"{kind.__qualname__} is also a {others[0].__qualname__}"
