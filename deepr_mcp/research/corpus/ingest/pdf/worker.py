"""The PDF reader's worker process: ``python -m deepr_mcp.research.corpus.ingest.pdf.worker FD MEMORY_BYTES``.

It caps its own address space, then answers PDFs sent over the socket ``FD`` with ``extract``'s result, or
with why not (see ``apart``).
"""

from __future__ import annotations

import sys
from multiprocessing.connection import Connection


def _serve(conn: Connection, memory_bytes: int) -> None:
    """Answer PDFs until the parent closes the socket."""
    import logging

    logging.getLogger("pypdfium2").setLevel(logging.ERROR)
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    except (ImportError, ValueError, OSError):  # no such limit here (not a POSIX system, or one that refuses it)
        pass
    from deepr_mcp.research.corpus.ingest.pdf.extract import extract

    while True:
        try:
            raw = conn.recv_bytes()
        except EOFError:
            return
        try:
            conn.send(("ok", extract(raw)))
        except MemoryError:
            conn.send(("stopped", f"it needs more than the reader's {memory_bytes // 1024**2:,} MB of memory"))
        except Exception as exc:  # every pdfium failure is the file's, told to the parent
            conn.send(("failed", (type(exc).__name__, str(exc))))


if __name__ == "__main__":
    _serve(Connection(int(sys.argv[1])), int(sys.argv[2]))
