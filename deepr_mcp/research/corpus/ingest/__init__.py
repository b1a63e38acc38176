"""Ingest: files to clean, located passages (main content only, code kept as code, no duplicates)."""

from deepr_mcp.research.corpus.ingest.chunking import MAX_CHARS, TARGET_CHARS, chunk, passage_id
from deepr_mcp.research.corpus.ingest.formats import SUPPORTED, is_supported, sections_of
from deepr_mcp.research.corpus.ingest.html import html_sections
from deepr_mcp.research.corpus.ingest.model import Chunk, NotContent, Section, fence
from deepr_mcp.research.corpus.ingest.progress import BarProgress, Progress, for_stream
from deepr_mcp.research.corpus.ingest.report import AddReport, FileResult
from deepr_mcp.research.corpus.ingest.scope import ESCAPED, AddScope, Plan, plan_add
from deepr_mcp.research.corpus.ingest.text import markdown_sections, plain_sections, rst_sections
from deepr_mcp.research.corpus.ingest.walk import FileSet, excluded_by, files_under

EXTRACTOR_VERSION = 6
"""Stored per document: a file extracted by an older version is re-extracted when added again.

2: selectolax main content, fenced code, heading paths; 3: short passages hashed with their location;
4: contents pages (mostly links, little text) skipped;
5: PDFs read with pypdfium2 and cleaned (page furniture, contents pages, footnotes, hyphens), cut by outline;
passages of every format no longer end on an unfinished sentence or a run-in heading;
6: Markdown's inline markup read as text (links by their words); navigation tables and elements classed as
navigation dropped from HTML."""

__all__ = [
    "ESCAPED",
    "EXTRACTOR_VERSION",
    "MAX_CHARS",
    "SUPPORTED",
    "TARGET_CHARS",
    "AddReport",
    "AddScope",
    "BarProgress",
    "Chunk",
    "FileResult",
    "FileSet",
    "NotContent",
    "Plan",
    "Progress",
    "Section",
    "chunk",
    "excluded_by",
    "fence",
    "files_under",
    "for_stream",
    "html_sections",
    "is_supported",
    "markdown_sections",
    "passage_id",
    "plain_sections",
    "plan_add",
    "rst_sections",
    "sections_of",
]
