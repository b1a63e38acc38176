"""Asking a connected client's own model (MCP sampling) to write a campaign's research steps."""
