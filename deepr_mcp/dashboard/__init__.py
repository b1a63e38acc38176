"""MCP Apps (SEP-1865): the campaign dashboard a host renders in a sandboxed iframe, and its tools."""

from deepr_mcp.dashboard.research import APP_HELPERS, RESEARCH_SPEC, CampaignApp
from deepr_mcp.dashboard.view import EXTENSION_ID, MIME_TYPE, UI_URI, campaign_html, resource_meta, supports_apps

__all__ = [
    "APP_HELPERS",
    "EXTENSION_ID",
    "MIME_TYPE",
    "RESEARCH_SPEC",
    "UI_URI",
    "CampaignApp",
    "campaign_html",
    "resource_meta",
    "supports_apps",
]
