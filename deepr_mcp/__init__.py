"""deepr-mcp: an MCP server for long-running, cited research."""

__version__ = "0.1.0"

__all__ = ["__version__"]
