"""PDF text read in a worker process with a memory cap, so no PDF can take the server down with it.

pdfium inflates a page's content streams whole: a 1.2 MB PDF whose one page holds 400 MB of text
operators needs several GB, and when an allocation fails pdfium aborts the process it runs in. In
the server that process would be the one serving every client. So ``extract`` runs in a child
process (spawned once, reused for the next PDF) whose address space is capped at ``MEMORY_BYTES``
and whose answer is awaited at most ``SECONDS``: a PDF that needs more, or crashes the reader, or
hangs it, costs that child, which is replaced, and the file fails with the reason; the server and
the other files go on. The worker needs POSIX (a socket handed to the child, an address-space limit):
elsewhere (Windows) the PDF is read in this process, as it was before, without that protection.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from multiprocessing.connection import Connection
from typing import Final

from deepr_mcp.research.corpus.ingest.pdf.extract import Extracted

MEMORY_BYTES: Final = 2 * 1024**3
"""The reader's address space by default (setting ``corpus.pdf_reader_memory_bytes``): a 600-page manual needs
under 100 MB; past this a PDF expands far beyond its size."""
SECONDS: Final = 180.0
"""How long one PDF may take: a 600-page manual takes a few seconds of CPU here."""


WORKER: Final = "deepr_mcp.research.corpus.ingest.pdf.worker"
APART: Final = os.name == "posix"
"""Whether PDFs are read in the worker process (``pass_fds`` and ``RLIMIT_AS`` are POSIX)."""


class ReaderFailed(Exception):
    """pdfium refused the file (damaged, encrypted...): ``kind`` is the exception it raised."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


class ReaderStopped(Exception):
    """The reader process died (out of memory, a crash) or ran out of time on this file."""


class Reader:
    """One worker process at a time, started on first use and replaced after it is lost."""

    def __init__(self, memory_bytes: int = MEMORY_BYTES, seconds: float = SECONDS) -> None:
        self.memory_bytes, self.seconds = memory_bytes, seconds
        self._lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None
        self._conn: Connection | None = None

    def extract(self, raw: bytes) -> Extracted:
        """``extract(raw)`` in the worker; ``ReaderFailed`` or ``ReaderStopped`` say why not."""
        if not APART:
            return _in_process(raw)
        with self._lock:
            conn = self._connection()
            try:
                conn.send_bytes(raw)
                if not conn.poll(self.seconds):
                    self._stop()
                    raise ReaderStopped(f"reading it took longer than {self.seconds:.0f} seconds")
                status, payload = conn.recv()
            except (EOFError, OSError):
                self._stop()
                raise ReaderStopped(
                    f"the PDF reader stopped on it (it needs more than {self.memory_bytes // 1024**2:,} MB of "
                    "memory, or it crashed the reader)"
                ) from None
        if status == "ok":
            return payload  # type: ignore[no-any-return]
        if status == "stopped":
            raise ReaderStopped(payload)
        kind, message = payload
        raise ReaderFailed(kind, message)

    def _connection(self) -> Connection:
        if self._process is None or self._process.poll() is not None or self._conn is None:
            self._stop()
            ours, theirs = socket.socketpair()
            # a process of its own, not a multiprocessing child: that would import the caller's __main__ again
            self._process = subprocess.Popen(
                [sys.executable, "-m", WORKER, str(theirs.fileno()), str(self.memory_bytes)],
                pass_fds=[theirs.fileno()],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,  # the stdio server's stdout is its protocol channel: nothing may reach it
                close_fds=True,
            )
            theirs.close()
            self._conn = Connection(ours.detach())
        return self._conn

    def _stop(self) -> None:
        if self._conn is not None:
            self._conn.close()
        if self._process is not None:
            self._process.kill()
            self._process.wait(5)
        self._process, self._conn = None, None


def _in_process(raw: bytes) -> Extracted:
    from deepr_mcp.research.corpus.ingest.pdf.extract import extract

    try:
        return extract(raw)
    except Exception as exc:  # every pdfium failure is the file's, as the worker reports it
        raise ReaderFailed(type(exc).__name__, str(exc)) from None


_readers: dict[int, Reader] = {}
_readers_lock = threading.Lock()


def extract_apart(raw: bytes, memory_bytes: int = MEMORY_BYTES) -> Extracted:
    """The PDF's lines and outline, read by the shared worker process of that memory cap."""
    with _readers_lock:
        reader = _readers.setdefault(memory_bytes, Reader(memory_bytes))
    return reader.extract(raw)
