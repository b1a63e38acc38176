"""A file's bytes to located sections, by its type; every refusal is an ``InvalidInput`` naming the file."""

from __future__ import annotations

from pathlib import Path

from deepr_mcp.errors import InvalidInput
from deepr_mcp.research.corpus.ingest.asciidoc import ASCIIDOC_SUFFIXES, asciidoc_sections
from deepr_mcp.research.corpus.ingest.decode import decode
from deepr_mcp.research.corpus.ingest.html import html_sections
from deepr_mcp.research.corpus.ingest.model import Section
from deepr_mcp.research.corpus.ingest.pdf import pdf_sections
from deepr_mcp.research.corpus.ingest.text import markdown_sections, plain_sections, rst_sections

SUPPORTED = (".md", ".markdown", ".txt", ".rst", ".html", ".htm", ".pdf", *ASCIIDOC_SUFFIXES)


def is_supported(path: Path) -> bool:
    return path.suffix.lower() in SUPPORTED


def sections_of(path: Path, raw: bytes) -> list[Section]:
    """Sections of one file; raises ``InvalidInput`` (unreadable) or ``NotContent`` (navigation page)."""
    name = path.name.lower()
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED:
        raise InvalidInput(f"{path}: unsupported file type {suffix or '(none)'}; supported: {', '.join(SUPPORTED)}")
    if suffix == ".pdf":
        return pdf_sections(path, raw)
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
    if suffix == ".rst" or name.endswith(".rst.txt"):  # Sphinx copies its sources as NAME.rst.txt
        return rst_sections(text)
    if suffix in ASCIIDOC_SUFFIXES:
        return asciidoc_sections(text)
    return plain_sections(text)
