"""Files to located text. The work moved to ``deepr_mcp.research.ingest``; these names stay importable."""

from deepr_mcp.research.ingest import (
    MAX_CHARS,
    SUPPORTED,
    TARGET_CHARS,
    Chunk,
    Section,
    chunk,
    html_sections,
    markdown_sections,
    rst_sections,
    sections_of,
)

__all__ = [
    "MAX_CHARS",
    "SUPPORTED",
    "TARGET_CHARS",
    "Chunk",
    "Section",
    "chunk",
    "html_sections",
    "markdown_sections",
    "rst_sections",
    "sections_of",
]
