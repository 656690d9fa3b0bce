"""The static files the pages link to, read once at import, and the import map that names
each script module by its version.

A file is linked as ``/static/NAME?v=HASH``: a new version is a new URL, so a browser keeps
each one for a year (``Cache-Control: immutable``) and a repeat visit asks for none of them.
The play page's modules import one another by plain relative URLs (``./table.js``); the
page's import map (:data:`IMPORT_MAP`) maps each one's plain URL to its versioned one, so
the imports are cached the same way, with nothing built.

The map is an inline script, allowed by its hash in the Content-Security-Policy
(:data:`IMPORT_MAP_SOURCE`), which stays without ``'unsafe-inline'``.
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass
from importlib.resources import files
from typing import Final


@dataclass(frozen=True)
class StaticFile:
    body: bytes
    content_type: str
    version: str


_TYPES: Final = {
    ".css": "text/css; charset=utf-8",
    ".json": "application/json; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".svg": "image/svg+xml; charset=utf-8",
    ".png": "image/png",
    ".webmanifest": "application/manifest+json; charset=utf-8",
}


def _load_static() -> dict[str, StaticFile]:
    """Every file under ``static/``, by its path there (``play/main.js``)."""
    found = {}
    folders = [("", files("server.web").joinpath("static"))]
    while folders:
        prefix, folder = folders.pop()
        for entry in folder.iterdir():
            if entry.is_dir():
                folders.append((f"{prefix}{entry.name}/", entry))
                continue
            suffix = entry.name[entry.name.rfind(".") :]
            if entry.is_file() and suffix in _TYPES:
                body = entry.read_bytes()
                version = hashlib.sha256(body).hexdigest()[:12]
                found[prefix + entry.name] = StaticFile(body, _TYPES[suffix], version)
    return found


#: The service worker, served from the root (``/sw.js``) so that its scope is the site.
SERVICE_WORKER: Final = "sw.js"
#: The web app manifest, whose icons are named by their versions when it is read.
MANIFEST: Final = "manifest.webmanifest"


def _versioned_icons(found: dict[str, StaticFile]) -> None:
    """The manifest's icons as versioned URLs, so that a browser checking the app's icon on
    a visit finds it in its cache (the file names them plainly, ``/static/icon.svg``)."""
    manifest = json.loads(found[MANIFEST].body)
    for icon in manifest["icons"]:
        name = icon["src"].removeprefix("/static/")
        icon["src"] = f"/static/{name}?v={found[name].version}"
    body = (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode()
    version = hashlib.sha256(body).hexdigest()[:12]
    found[MANIFEST] = StaticFile(body, found[MANIFEST].content_type, version)


STATIC: Final = _load_static()
_versioned_icons(STATIC)


def static_url(name: str) -> str:
    return f"/static/{name}?v={STATIC[name].version}"


#: Every script module's plain URL to its versioned one (an import map's JSON).
IMPORT_MAP: Final = json.dumps(
    {
        "imports": {
            f"/static/{name}": static_url(name)
            for name in sorted(STATIC)
            if name.endswith(".js") and name != SERVICE_WORKER
        }
    },
    separators=(",", ":"),
)
#: The CSP source that allows the inline import map, and nothing else inline.
IMPORT_MAP_SOURCE: Final = (
    "'sha256-" + base64.b64encode(hashlib.sha256(IMPORT_MAP.encode()).digest()).decode() + "'"
)
