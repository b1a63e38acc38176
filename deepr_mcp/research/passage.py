"""The one idea every stage shares: a passage of the corpus, and something that searches passages.

The corpus makes them, retrieval ranks them, synthesis cites them, the engine carries them; so they
live here, below every stage, and no stage declares its own look-alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class Passage:
    id: str
    text: str
    source: str
    """What a reader is shown: the path relative to the folder that was added (or a URL)."""
    location: str
    """The heading path inside the source ("tarfile > Extraction filters"), or "page 3"."""
    score: float
    path: str = ""
    """The document key the passage was stored under (absolute path or URL); "" when unknown."""


class PassageSearch(Protocol):
    """Ranked passages for a query (sync; run in a thread). ``headings_only`` matches the heading path
    alone (page title and section names), which is how retrieval finds an API's own entry."""

    def search_passages(self, query: str, limit: int, *, headings_only: bool = False) -> Sequence[Passage]: ...
