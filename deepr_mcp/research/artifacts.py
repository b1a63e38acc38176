"""Where a run's artefacts go (a campaign's sandbox), and the one rule for copying them there."""

from __future__ import annotations

import logging
from typing import Protocol

from deepr_mcp.errors import DeeprError

__all__ = ["ArtifactSink", "copy_to_sandbox"]

logger = logging.getLogger(__name__)


class ArtifactSink(Protocol):
    """Where intermediate artefacts and the final report go (a campaign's sandbox)."""

    def write_text(self, path: str, text: str) -> None: ...


def copy_to_sandbox(sink: ArtifactSink | None, path: str, text: str) -> None:
    """Copy an artefact into the sandbox; a sandbox that refuses it never fails the research.

    The record holds the plan, findings and report either way; a full quota or a path an agent
    blocked (``final_report.md/x``) only costs the sandbox copy, which is logged.
    """
    if sink is None:
        return
    try:
        sink.write_text(path, text)
    except (DeeprError, OSError, RecursionError) as exc:
        logger.warning("sandbox copy of %s not written: %s", path, getattr(exc, "message", exc))
