"""Per-campaign working directories that no path can escape."""

from deepr_mcp.sandbox.fs import Entry
from deepr_mcp.sandbox.manager import FINAL_REPORT, Extracted, Listing, Sandbox, SandboxManager, Usage
from deepr_mcp.sandbox.paths import check_sandbox_id, split_path

__all__ = [
    "FINAL_REPORT",
    "Entry",
    "Extracted",
    "Listing",
    "Sandbox",
    "SandboxManager",
    "Usage",
    "check_sandbox_id",
    "split_path",
]
