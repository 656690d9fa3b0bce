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
import gzip
import hashlib
import json
from dataclasses import dataclass, field
from importlib.resources import files
from typing import Final

import brotli


@dataclass(frozen=True)
class StaticFile:
    body: bytes
    content_type: str
    version: str
    #: Its body compressed, by coding, made on the first request that asks for it.
    _encoded: dict[str, bytes] = field(default_factory=dict, compare=False, repr=False)

    def encoded(self, coding: str) -> bytes:
        """The body in ``coding`` (``br`` or ``gzip``), each at its best compression: a file
        never changes while the server runs, so it is compressed once."""
        found = self._encoded.get(coding)
        if found is None:
            if coding == "br":
                found = brotli.compress(self.body, quality=11)
            else:
                found = gzip.compress(self.body, compresslevel=9, mtime=0)
            self._encoded[coding] = found
        return found


_TYPES: Final = {
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".js": "text/javascript",  # a module, a worker and a fetched JSON are read as UTF-8 always
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


#: The play page's JSDoc types (checked by ``tsc``): never imported at run time, not loaded.
PLAY_TYPES: Final = "play/messages.js"
#: The play page's modules it loads only when they are needed (a game's end, a race room, a
#: win's celebration, the tones once sound is on, the account's panels and passkeys,
#: friends and leagues): not
#: preloaded, so a first visit does not pay for them.
PLAY_LATER: Final = frozenset(
    {
        "play/result-view.js",
        "play/room-view.js",
        "play/celebrate.js",
        "play/tones.js",
        "play/devices.js",
        "play/account-data.js",
        "play/passkey.js",
        "play/friends.js",
        "play/leagues.js",
    }
)
#: The play page's modules, preloaded beside its entry point (``play/main.js``).
PLAY_MODULES: Final = tuple(
    sorted(
        name
        for name in STATIC
        if name.startswith("play/")
        and name.endswith(".js")
        and name != PLAY_TYPES
        and name not in PLAY_LATER
    )
)


def static_url(name: str) -> str:
    return f"/static/{name}?v={STATIC[name].version}"


#: Every script module's plain URL to its versioned one (an import map's JSON); the
#: messages' types are never imported at run time.
IMPORT_MAP: Final = json.dumps(
    {
        "imports": {
            f"/static/{name}": static_url(name)
            for name in sorted(STATIC)
            if name.endswith(".js") and name not in (SERVICE_WORKER, PLAY_TYPES)
        }
    },
    separators=(",", ":"),
)
#: The CSP source that allows the inline import map, and nothing else inline.
IMPORT_MAP_SOURCE: Final = (
    "'sha256-" + base64.b64encode(hashlib.sha256(IMPORT_MAP.encode()).digest()).decode() + "'"
)
