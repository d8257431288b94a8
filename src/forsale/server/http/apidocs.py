"""``/api/docs``: Swagger UI on the REST API's OpenAPI schema, served from this package, never from a CDN.

FastAPI's own docs page loads Swagger UI from a public CDN, unpinned and
without integrity, on the origin that holds the session cookie: whoever
serves (or hijacks) that CDN's file runs script as the signed-in player. And
it needs the network. So the page here is this server's own: Swagger UI's
files come from the ``fastapi-offline`` package (the ``server`` extra; MIT,
its bundle a pinned Swagger UI 5), and the page's one setting-up script is a
file too, so the docs pass the same Content-Security-Policy as the game's
page (:data:`forsale.server.app.SECURITY_HEADERS`: no inline script, nothing
from elsewhere). Without the package the docs are simply not served; the
schema itself (``/api/openapi.json``) always is.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse, HTMLResponse, Response

from .common import rest_error

DOCS_URL = "/api/docs"
ASSETS_URL = "/api/docs/assets"
ASSETS = {"swagger-ui-bundle.js": "text/javascript", "swagger-ui.css": "text/css", "favicon.png": "image/png"}
"""The files of ``fastapi-offline`` the page uses, and their types."""

PAGE = """<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>{title} - API</title>
  <link rel="icon" href="docs/assets/favicon.png">
  <link rel="stylesheet" href="docs/assets/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="docs/assets/swagger-ui-bundle.js"></script>
  <script src="docs/setup.js"></script>
</body>
</html>
"""
"""The docs page, at ``/api/docs``: its addresses are relative to ``/api/`` (``docs/assets/...``, and the schema
``openapi.json``), so it works behind a proxy's path prefix too."""

SETUP = """// Swagger UI on this server's schema (a file, not an inline script: the page's CSP allows none).
window.ui = SwaggerUIBundle({
  url: "openapi.json", // relative to the page, /api/docs: /api/openapi.json
  dom_id: "#swagger-ui",
  layout: "BaseLayout",
  deepLinking: true,
  showExtensions: true,
  showCommonExtensions: true,
  validatorUrl: null, // no badge fetched from validator.swagger.io: nothing leaves this server
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIBundle.SwaggerUIStandalonePreset],
});
"""


def assets_dir() -> Path | None:
    """Where the installed ``fastapi-offline`` keeps Swagger UI's files, if it is installed."""
    spec = importlib.util.find_spec("fastapi_offline")
    if spec is None or spec.origin is None:
        return None
    static = Path(spec.origin).parent / "static"
    return static if (static / "swagger-ui-bundle.js").is_file() else None


def add_docs(app: FastAPI) -> bool:
    """Serve the docs page and its files on ``app`` (before the ``/api/`` catch-all); False if not installed."""
    static = assets_dir()
    if static is None:
        return False
    page = PAGE.format(title=app.title)

    @app.get(DOCS_URL, include_in_schema=False)
    async def docs() -> HTMLResponse:
        return HTMLResponse(page)

    @app.get(DOCS_URL + "/setup.js", include_in_schema=False)
    async def setup() -> Response:
        return Response(SETUP, media_type="text/javascript")

    @app.get(ASSETS_URL + "/{name}", include_in_schema=False)
    async def asset(name: str) -> Response:
        """One of :data:`ASSETS`, by name (nothing else of the package's folder is served)."""
        if name not in ASSETS:
            return rest_error("not_found", "there is no such file of the API docs", 404)
        return FileResponse(static / name, media_type=ASSETS[name], headers={"Cache-Control": "max-age=86400"})

    return True
