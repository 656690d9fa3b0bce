"""Each layer raises from one root of its own: every exception class defined in a layer is
a kind of that layer's root (the tree is drawn in each layer's errors module and in the
README)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import client_cli
import server
from client_cli.errors import ClientError
from server.bus import BusError
from server.engine import EngineError
from server.main import AdminError
from server.net.errors import NetError
from server.play.errors import PlayError
from server.store import StoreError
from server.web.source import PageError

#: The root of each layer, by the prefix of its modules' names (the longest prefix wins).
ROOTS: dict[str, type[Exception]] = {
    "server.engine": EngineError,
    "server.store": StoreError,
    "server.bus": BusError,
    "server.play": PlayError,
    "server.net": NetError,
    "server.web": PageError,
    "server.main": AdminError,
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


def test_the_layers_define_exceptions() -> None:
    defined = {kind for _, kind in exception_classes()}
    assert set(ROOTS.values()) <= defined
    assert len(defined) > len(ROOTS)  # the kinds under the roots are found too


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
