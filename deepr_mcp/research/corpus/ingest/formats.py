"""A file's bytes to located sections, by its type; every refusal is an ``InvalidInput`` naming the file.

The type is the suffix of the document's own name (``document_suffix``): a gzip-compressed
``NEWS.md.gz`` is Markdown, read through ``compressed``.
"""

from __future__ import annotations

from pathlib import Path

from deepr_mcp.errors import InvalidInput
from deepr_mcp.research.corpus.ingest.asciidoc import ASCIIDOC_SUFFIXES, asciidoc_sections
from deepr_mcp.research.corpus.ingest.compressed import inflate, inner_name, is_compressed
from deepr_mcp.research.corpus.ingest.decode import decode
from deepr_mcp.research.corpus.ingest.html import html_sections
from deepr_mcp.research.corpus.ingest.model import Section
from deepr_mcp.research.corpus.ingest.notebook import notebook_sections
from deepr_mcp.research.corpus.ingest.packaged import docx_sections, epub_sections, odt_sections
from deepr_mcp.research.corpus.ingest.pdf import pdf_sections
from deepr_mcp.research.corpus.ingest.pdf.apart import MEMORY_BYTES as PDF_MEMORY_BYTES
from deepr_mcp.research.corpus.ingest.regular import DEFAULT_MAX_BYTES
from deepr_mcp.research.corpus.ingest.roff import MAN_SUFFIXES, is_man_suffix, man_sections
from deepr_mcp.research.corpus.ingest.text import markdown_sections, plain_sections, rst_sections

SUPPORTED = (
    ".md",
    ".markdown",
    ".txt",
    ".rst",
    ".html",
    ".htm",
    ".pdf",
    ".docx",
    ".odt",
    ".epub",
    ".ipynb",
    *ASCIIDOC_SUFFIXES,
)
"""Suffixes read by name; a manual page's suffix (``.1``, ``.3pm``, ``.man``) is told by ``is_man_suffix``."""


def document_suffix(path: Path) -> str:
    """The suffix that says the format, lower-cased: ``.md`` for ``NEWS.md`` and for ``NEWS.md.gz``."""
    return inner_name(path).suffix.lower()


def is_supported(path: Path) -> bool:
    suffix = document_suffix(path)
    return suffix in SUPPORTED or is_man_suffix(suffix)


def sections_of(
    path: Path, raw: bytes, *, max_bytes: int = DEFAULT_MAX_BYTES, pdf_memory_bytes: int = PDF_MEMORY_BYTES
) -> list[Section]:
    """Sections of one file as stored on disk; raises ``InvalidInput`` (unreadable) or ``NotContent``
    (navigation page). ``max_bytes`` caps what a compressed file may inflate to."""
    suffix = document_suffix(path)
    if not is_supported(path):
        shown = "".join(path.suffixes[-2:]).lower() if is_compressed(path) else suffix
        raise InvalidInput(f"{path}: unsupported file type {shown or '(none)'}; supported: {supported_list()}")
    if is_compressed(path):
        raw = inflate(path, raw, max_bytes)
    if suffix == ".pdf":
        return pdf_sections(path, raw, memory_bytes=pdf_memory_bytes)
    if suffix == ".docx":
        return docx_sections(path, raw, max_bytes=max_bytes)
    if suffix == ".odt":
        return odt_sections(path, raw, max_bytes=max_bytes)
    if suffix == ".epub":
        return epub_sections(path, raw, max_bytes=max_bytes)
    if suffix == ".ipynb":
        return notebook_sections(path, raw)
    if is_man_suffix(suffix):
        return man_sections(path, raw)
    if suffix in (".html", ".htm"):
        try:
            return html_sections(decode(path, raw, html=True))
        except InvalidInput as exc:
            if exc.message.startswith(str(path)):
                raise
            raise InvalidInput(f"{path}: {exc.message}") from None
    text = decode(path, raw)
    if suffix in (".md", ".markdown"):
        return markdown_sections(text)
    if suffix == ".rst" or inner_name(path).name.lower().endswith(".rst.txt"):  # Sphinx's NAME.rst.txt sources
        return rst_sections(text)
    if suffix in ASCIIDOC_SUFFIXES:
        return asciidoc_sections(text)
    return plain_sections(text)


def supported_list() -> str:
    """What refusals list as allowed: each type, and that any of them may be gzip-compressed."""
    return f"{', '.join((*SUPPORTED, MAN_SUFFIXES))} (each also gzip-compressed, as NAME.md.gz)"
