"""A hostile streamable-HTTP MCP upstream, for the byte-limit tests: plain aiohttp, no SDK.

    python -m tests.upstreams.hostile_http   (prints ``port N`` on stdout once listening on 127.0.0.1)

It answers ``initialize`` and ``tools/list`` as JSON, and its tools answer:
``echo`` (the text back), ``big`` (a JSON body of ``megabytes`` MB, streamed in chunks) and
``bomb`` (a gzip body of a few hundred KB that inflates to ``megabytes`` MB). Every answer is
``application/json``; notifications get 202. It imports nothing from deepr_mcp.
"""

from __future__ import annotations

import json
import sys
import zlib
from typing import Any

from aiohttp import web

CHUNK = 1024 * 1024
TEXT = {"type": "object", "properties": {"text": {"type": "string"}}}
NUMBER = {"type": "object", "properties": {"megabytes": {"type": "number"}}, "required": ["megabytes"]}
TOOLS = [
    {"name": "echo", "description": "Echo the text back.", "inputSchema": TEXT},
    {"name": "big", "description": "Answer a JSON body this many megabytes long.", "inputSchema": NUMBER},
    {"name": "bomb", "description": "Answer a gzip body inflating to this many megabytes.", "inputSchema": NUMBER},
]


def envelope(rid: Any) -> tuple[bytes, bytes]:
    """The JSON-RPC result around a text, split where the text goes."""
    head = json.dumps({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": "@@"}]}})
    before, after = head.split("@@")
    return before.encode(), after.encode()


async def answer(request: web.Request, body: dict[str, Any]) -> web.Response:
    return web.json_response(body, headers={"Mcp-Session-Id": "hostile-1"})


async def big(request: web.Request, rid: Any, megabytes: float, gzip: bool) -> web.StreamResponse:
    before, after = envelope(rid)
    headers = {"Content-Type": "application/json", "Mcp-Session-Id": "hostile-1"}
    if gzip:
        headers["Content-Encoding"] = "gzip"
    response = web.StreamResponse(headers=headers)
    await response.prepare(request)
    squeeze = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS) if gzip else None
    pieces = [before, *([b"a" * CHUNK] * int(megabytes)), after]
    try:
        for piece in pieces:
            data = squeeze.compress(piece) if squeeze else piece
            if data:
                await response.write(data)
        if squeeze:
            await response.write(squeeze.flush())
        await response.write_eof()
    except (ConnectionResetError, ConnectionError):
        pass  # the client stopped reading, as it should
    return response


async def mcp(request: web.Request) -> web.StreamResponse:
    message = await request.json()
    rid, method, params = message.get("id"), message.get("method"), message.get("params") or {}
    if rid is None:
        return web.Response(status=202)
    if method == "initialize":
        result = {
            "protocolVersion": params.get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "hostile-http", "version": "1.0"},
        }
        return await answer(request, {"jsonrpc": "2.0", "id": rid, "result": result})
    if method == "tools/list":
        return await answer(request, {"jsonrpc": "2.0", "id": rid, "result": {"tools": TOOLS}})
    if method == "tools/call":
        name, arguments = params.get("name"), params.get("arguments") or {}
        if name in ("big", "bomb"):
            return await big(request, rid, float(arguments.get("megabytes", 1)), gzip=name == "bomb")
        content = [{"type": "text", "text": str(arguments.get("text", ""))}]
        return await answer(request, {"jsonrpc": "2.0", "id": rid, "result": {"content": content}})
    return await answer(request, {"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "no such method"}})


async def not_here(request: web.Request) -> web.Response:
    return web.Response(status=405)


async def start() -> None:
    app = web.Application(client_max_size=1024 * 1024)
    app.router.add_post("/mcp", mcp)
    app.router.add_get("/mcp", not_here)
    app.router.add_delete("/mcp", not_here)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    print(f"port {port}", flush=True)


def main() -> None:
    import asyncio

    loop = asyncio.new_event_loop()
    loop.run_until_complete(start())
    try:
        loop.run_forever()
    except KeyboardInterrupt:
        pass
    sys.exit(0)


if __name__ == "__main__":
    main()
