"""The wire contract as machine-readable documents, generated from :mod:`server.protocol`'s
models and never written by hand (docs/protocol.md, "Schema").

- :func:`protocol_schema`: a JSON Schema (2020-12) with every model in ``$defs``, and
  ``ClientMessage`` and ``ServerMessage``, one ``oneOf`` each, for the two directions of
  the websocket (``NodeMessage``, what nodes tell each other on the bus, is no part of it).
- :func:`openapi_document`: an OpenAPI 3.1 document of the HTTP JSON routes
  (:mod:`server.net.http`), their bodies from the same models.

``python -m server.schema`` writes both to ``docs/schema/`` (``--check`` says whether the
committed files are current); the server serves them at ``/schema/protocol.json`` and
``/schema/openapi.json``.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from .contract import protocol_schema
from .openapi import openapi_document

#: The documents, by the file name they are committed and served under.
DOCUMENTS = {"protocol.json": protocol_schema, "openapi.json": openapi_document}
#: Where ``python -m server.schema`` writes each document, in the repository.
FILES = {"protocol.json": "protocol.schema.json", "openapi.json": "openapi.json"}


def render(document: dict[str, Any]) -> str:
    """A document as its committed text: sorted keys, indented, one final newline."""
    return json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


@functools.cache
def served(name: str) -> bytes | None:
    """The body of ``/schema/NAME`` (None for a name no document has), made once."""
    make = DOCUMENTS.get(name)
    return None if make is None else render(make()).encode()


__all__ = ["DOCUMENTS", "FILES", "openapi_document", "protocol_schema", "render", "served"]
