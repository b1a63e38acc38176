"""Documents that are zip packages of XML: Word (``.docx``), OpenDocument text (``.odt``) and EPUB books."""

from deepr_mcp.research.corpus.ingest.packaged.docx import docx_sections
from deepr_mcp.research.corpus.ingest.packaged.epub import epub_sections
from deepr_mcp.research.corpus.ingest.packaged.odt import odt_sections

__all__ = ["docx_sections", "epub_sections", "odt_sections"]
