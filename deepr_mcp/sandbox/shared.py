"""Sandboxes readable from every replica: each change to a sandbox travels through the shared log.

Every replica keeps a copy of every sandbox on its own disk (reads stay local, and a replica that
takes a campaign over finds its files there); a write carries the file's whole new content and a
deletion tolerates absence, so applying an entry twice (after a crash between the change and the
cursor) is harmless. Concurrent writes to one path from two replicas end as the log orders them
on the others; the writer keeps its own until the next change.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
import logging
from dataclasses import dataclass
from typing import Literal, Protocol

from deepr_mcp.errors import DeeprError, InvalidInput, NotFound
from deepr_mcp.replication.journal import Journal

__all__ = ["SandboxChange", "apply_entry"]

log = logging.getLogger(__name__)

Op = Literal["create", "write", "delete", "remove"]


class LocalFiles(Protocol):
    def write(self, path: str, data: bytes) -> int: ...

    def delete(self, path: str) -> None: ...


class LocalSandboxes(Protocol):
    """What applying needs of the sandbox manager (its unjournaled side: applied changes are not re-sent)."""

    def create(self, campaign_id: str, *, journaled: bool = True) -> LocalFiles: ...

    def remove(self, campaign_id: str) -> None: ...


OPS = ("create", "write", "delete", "remove")


@dataclass(frozen=True, slots=True)
class SandboxChange:
    """``create``/``remove`` a campaign's sandbox, ``write`` a file's whole content, ``delete`` a path."""

    op: Op
    campaign: str
    origin: str
    path: str = ""
    data: bytes = b""

    def to_json(self) -> str:
        body = {"op": self.op, "campaign": self.campaign, "origin": self.origin, "path": self.path}
        return json.dumps({**body, "data": base64.b64encode(self.data).decode("ascii")})

    @classmethod
    def from_json(cls, text: str) -> SandboxChange:
        try:
            data = json.loads(text)
            if data["op"] not in OPS or not isinstance(data["campaign"], str) or not isinstance(data["path"], str):
                raise ValueError(f"op {data['op']!r}")
            raw = base64.b64decode(data["data"], validate=True)
            return cls(data["op"], data["campaign"], str(data["origin"]), data["path"], raw)
        except (ValueError, KeyError, TypeError, binascii.Error) as exc:
            raise InvalidInput(f"not a sandbox change ({type(exc).__name__}: {exc})"[:300]) from None


def apply_entry(sandboxes: LocalSandboxes, journal: Journal, entry_id: str, text: str) -> bool:
    """Apply another replica's change to the local copy, then move the cursor; returns whether it changed.

    Every path goes through the same checks as a tool's (a hostile entry is refused like a hostile
    call); a change that cannot apply here is logged and skipped, never retried forever.
    """
    try:
        change = SandboxChange.from_json(text)
    except InvalidInput as exc:
        log.warning("sandbox log entry %s skipped: %s", entry_id, exc.message)
        change = None
    changed = False
    if change is not None and change.origin != journal.origin:
        try:
            changed = _apply(sandboxes, change)
        except DeeprError as exc:
            log.warning("sandbox log entry %s (%s %s) not applied here: %s", entry_id, change.op, change.path, exc)
    journal.set_cursor(entry_id)
    return changed


def _apply(sandboxes: LocalSandboxes, change: SandboxChange) -> bool:
    if change.op == "remove":
        sandboxes.remove(change.campaign)
        return True
    sandbox = sandboxes.create(change.campaign, journaled=False)
    if change.op == "write":
        sandbox.write(change.path, change.data)
    elif change.op == "delete":
        with contextlib.suppress(NotFound):
            sandbox.delete(change.path)
    return True
