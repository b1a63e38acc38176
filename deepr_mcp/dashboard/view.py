"""The dashboard's HTML (built from ``ui/`` by Vite into one self-contained file) and how it is served.

The file ships as package data, so installing the server needs no Node. Its content security
policy declares no outside origin at all: the view reaches the server only through the host's
postMessage bridge, never over the network.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any

__all__ = ["EXTENSION_ID", "MIME_TYPE", "UI_URI", "campaign_html", "resource_meta", "supports_apps"]

UI_URI = "ui://deepr/campaign"
MIME_TYPE = "text/html;profile=mcp-app"
"""The MCP Apps profile of HTML: hosts render only resources of this type."""
EXTENSION_ID = "io.modelcontextprotocol/ui"
"""The capability key a client announces (``extensions``, or ``experimental`` in older hosts)."""


@cache
def campaign_html() -> str:
    """The built dashboard, read once from the package."""
    return resources.files("deepr_mcp.dashboard").joinpath("campaign.html").read_text(encoding="utf-8")


def resource_meta() -> dict[str, Any]:
    """``_meta.ui`` of the resource: empty CSP domain lists (no network, no outside script, style or frame)."""
    return {
        "ui": {
            "csp": {"connectDomains": [], "resourceDomains": [], "frameDomains": [], "baseUriDomains": []},
            "prefersBorder": True,
        }
    }


def supports_apps(capabilities: Any) -> bool:
    """Whether a client announced MCP Apps with the HTML profile (SEP-1865 ``mimeTypes``)."""
    if capabilities is None:
        return False
    for field in ("extensions", "experimental"):
        announced = getattr(capabilities, field, None) or {}
        settings = announced.get(EXTENSION_ID)
        if isinstance(settings, dict) and MIME_TYPE in (settings.get("mimeTypes") or []):
            return True
    return False
