"""The websocket protocol's JSON Schema, from the pydantic unions of :mod:`server.protocol`.

A client message is described as the server reads it (validation), a server message as
the server writes it (serialization; a field left at null is left out of the frame, so no
field with a default is required).
"""

from __future__ import annotations

import copy
import functools
from typing import Any

from pydantic import TypeAdapter

from server.protocol import PROTOCOL_VERSION, ClientMessage, ServerMessage

DIALECT = "https://json-schema.org/draft/2020-12/schema"
REF_TEMPLATE = "#/$defs/{model}"
#: Where the server serves this document (its ``$id``, relative to the server's origin).
PROTOCOL_PATH = "/schema/protocol.json"


def message_schemas(ref_template: str = REF_TEMPLATE) -> tuple[Any, Any, dict[str, Any]]:
    """The client union's schema, the server union's, and every model's in one mapping."""
    keys, top = TypeAdapter.json_schemas(
        [
            ("client", "validation", TypeAdapter(ClientMessage)),
            ("server", "serialization", TypeAdapter(ServerMessage)),
        ],
        ref_template=ref_template,
    )
    return keys["client", "validation"], keys["server", "serialization"], top["$defs"]


@functools.cache
def _protocol_schema() -> dict[str, Any]:
    client, server, definitions = message_schemas()
    definitions = dict(definitions)
    definitions["ClientMessage"] = {
        **client,
        "description": "Any message a client sends: one JSON object a text frame.",
    }
    definitions["ServerMessage"] = {
        **server,
        "description": "Any message the server sends: one JSON object a text frame.",
    }
    return {
        "$schema": DIALECT,
        "$id": PROTOCOL_PATH,
        "title": f"Simple Simon Online websocket protocol, version {PROTOCOL_VERSION}",
        "description": (
            "Generated from server/protocol.py by `python -m server.schema`: do not edit. "
            "Validate a client's message against #/$defs/ClientMessage and a server's "
            "against #/$defs/ServerMessage. Within a version only additions are made: a "
            "client ignores a field or a message type it does not know (docs/protocol.md, "
            '"Versions").'
        ),
        "x-protocol-version": PROTOCOL_VERSION,
        "anyOf": [{"$ref": "#/$defs/ClientMessage"}, {"$ref": "#/$defs/ServerMessage"}],
        "$defs": definitions,
    }


def protocol_schema() -> dict[str, Any]:
    """The JSON Schema (2020-12) of both directions of the websocket protocol."""
    return copy.deepcopy(_protocol_schema())
