"""The generated contract (server/schema, docs/schema/): current, free of node messages,
and every JSON example of the docs valid against it (issue #47)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, get_args

import pytest
from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match
from pydantic import BaseModel

from server.protocol import ClientMessage, NodeMessage, ServerMessage
from server.schema import DOCUMENTS, FILES, openapi_document, protocol_schema, render
from server.schema.__main__ import main as write_schema

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
#: The pages whose ```json examples are checked against the schema.
EXAMPLE_PAGES = ("protocol.md", "web.md", "bots.md")


def _members(union: Any) -> set[type[BaseModel]]:
    return set(get_args(get_args(union)[0]))


def _types(union: Any) -> set[str]:
    return {get_args(model.model_fields["type"].annotation)[0] for model in _members(union)}


def test_the_committed_documents_are_current(tmp_path: Path) -> None:
    """Run ``python -m server.schema`` when this fails: the models changed."""
    for name, make in DOCUMENTS.items():
        committed = DOCS / "schema" / FILES[name]
        assert committed.read_text() == render(make()), f"{committed} is stale"
    assert write_schema(["--check", str(DOCS / "schema")]) == 0
    assert write_schema(["--check", str(tmp_path)]) == 1
    assert write_schema([str(tmp_path)]) == 0
    assert write_schema(["--check", str(tmp_path)]) == 0


def test_the_documents_are_valid_json_schema() -> None:
    Draft202012Validator.check_schema(protocol_schema())
    document = openapi_document()
    assert document["openapi"].startswith("3.1")
    for schema in document["components"]["schemas"].values():
        Draft202012Validator.check_schema(schema)


def test_no_node_only_message_faces_a_client() -> None:
    node_only = _members(NodeMessage) - _members(ServerMessage)
    assert node_only  # RaceEvent: the bus's alone
    facing = _members(ClientMessage) | _members(ServerMessage)
    assert not node_only & facing
    definitions = protocol_schema()["$defs"]
    assert not {model.__name__ for model in node_only} & set(definitions)
    schema = protocol_schema()["$defs"]
    for direction, union in (("ClientMessage", ClientMessage), ("ServerMessage", ServerMessage)):
        assert set(schema[direction]["discriminator"]["mapping"]) == _types(union)


def _validator(reference: str) -> Draft202012Validator:
    schema = protocol_schema()
    return Draft202012Validator(
        {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": reference}
    )


CLIENT = _validator("#/$defs/ClientMessage")
SERVER = _validator("#/$defs/ServerMessage")


def _depth(text: str) -> int:
    """How many brackets ``text`` leaves open (those inside strings not counted)."""
    depth, inside, escaped = 0, False, False
    for character in text:
        if inside:
            if escaped:
                escaped = False
            elif character == "\\":
                escaped = True
            elif character == '"':
                inside = False
        elif character == '"':
            inside = True
        elif character in "{[":
            depth += 1
        elif character in "}]":
            depth -= 1
    return depth


def json_examples(page: Path) -> Iterator[tuple[str, str]]:
    """Each example of a ```json block: a line, or the lines of one object spread over
    several (until its brackets close), with where it starts."""
    inside, lines, start = False, list[str](), 0
    for number, line in enumerate(page.read_text().splitlines(), 1):
        if line.startswith("```"):
            assert not lines, f"{page.name}:{start}: an example left open"
            inside = line.strip() == "```json"
            continue
        if not inside or not line.strip():
            continue
        if not lines:
            start = number
        lines.append(line.strip())
        if _depth(" ".join(lines)) <= 0:
            yield f"{page.name}:{start}", " ".join(lines)
            lines = []


def _all_examples() -> list[tuple[str, str]]:
    return [
        example
        for name in EXAMPLE_PAGES
        if (DOCS / name).exists()
        for example in json_examples(DOCS / name)
    ]


def test_the_docs_have_examples() -> None:
    examples = _all_examples()
    assert len(examples) > 60
    types = {json.loads(text).get("type") for _, text in examples}
    assert len(types & _types(ClientMessage)) >= 35 and len(types & _types(ServerMessage)) >= 30


@pytest.mark.parametrize(("where", "text"), _all_examples(), ids=lambda value: value[:40])
def test_every_example_of_the_docs_is_valid(where: str, text: str) -> None:
    try:
        example = json.loads(text)
    except json.JSONDecodeError as error:
        pytest.fail(f"{where}: not JSON ({error}): {text}")
    assert isinstance(example, dict), where
    kind = example.get("type")
    validators = [
        validator
        for validator, union in ((CLIENT, ClientMessage), (SERVER, ServerMessage))
        if kind in _types(union)
    ]
    assert validators, f"{where}: no message has the type {kind!r}"
    errors = [list(validator.iter_errors(example)) for validator in validators]
    if all(errors):
        found = [best_match(found) for found in errors]
        pytest.fail(f"{where}: " + "; ".join(f"{e.json_path}: {e.message}" for e in found))


def _component(name: str) -> Draft202012Validator:
    document = openapi_document()
    return Draft202012Validator(
        {
            "components": document["components"],
            "$ref": f"#/components/schemas/{name}",
        }
    )


#: An HTTP body shown inline (the table of "HTTP on the same port"): `{...}`.
_INLINE = re.compile(r"`(\{[^`]*\})`")


def test_the_http_bodies_shown_are_valid() -> None:
    text = (DOCS / "protocol.md").read_text().split("## HTTP on the same port", 1)[1]
    shown = [json.loads(body.replace("\n", " ")) for body in _INLINE.findall(text)]
    health = [body for body in shown if "ok" in body]
    refusals = [body for body in shown if "error" in body]
    assert health and refusals
    for body in health:
        assert not list(_component("HealthReport").iter_errors(body)), body
    for body in refusals:
        assert not list(_component("HttpError").iter_errors(body)), body


def test_the_openapi_paths_are_the_routes() -> None:
    from server.net import http

    paths = set(openapi_document()["paths"])
    assert set(http._ROUTES) <= paths
    assert {"/race/{code}", "/day/{day}/stats", "/replay/{id}", "/account/export"} <= paths
    for path, (_, allowed) in http._ROUTES.items():
        operation = openapi_document()["paths"][path]["get"]
        assert {p["name"] for p in operation["parameters"]} == allowed, path
