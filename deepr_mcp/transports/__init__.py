"""Transports: stdio, streamable HTTP + legacy SSE, auth and the event loop; bytes in, MCP out.

Each serves one composition root (``app/root.py``) through ``app.server.build_server``.
"""
