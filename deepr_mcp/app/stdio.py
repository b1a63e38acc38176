"""stdio transport: what Claude Desktop and most local clients launch."""

from __future__ import annotations

from mcp.server.stdio import stdio_server

from deepr_mcp.app.server import build_server
from deepr_mcp.app.services import Services
from deepr_mcp.config import Settings


async def serve_stdio(settings: Settings) -> None:
    async with Services(settings) as services:
        server = build_server(services)
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
