"""A rendered page and its source side by side: the page is read, the source left out.

Many documentation folders ship each page twice, ``fs.html`` next to ``fs.md`` (or ``.rst``,
``.txt``, ``.adoc``, possibly gzip-compressed); reading both puts every passage in the corpus twice,
and duplicates crowd search results and reports. The HTML wins: its links are resolved and its
includes expanded, and it is what the project publishes. Only files in the same folder with the
same stem pair up, and only when a folder is added: a source named on its own is always read.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import PurePath

from deepr_mcp.research.corpus.ingest.compressed import inner_name
from deepr_mcp.research.corpus.ingest.roff import is_man_suffix

RENDERED = frozenset({".html", ".htm"})
SOURCES = frozenset({".md", ".markdown", ".rst", ".txt", ".adoc", ".asciidoc"})
"""Source formats by suffix; a manual page (``git-add.1`` beside ``git-add.html``) is one too (``is_man_suffix``)."""
RENDERED_SOURCE = "the source of an HTML page beside it (the page is read instead)"


def rendered_sources(names: Iterable[str]) -> set[str]:
    """Which of ``names`` (files of one folder, all to be read) are sources of an HTML page among them."""
    documents = {name: inner_name(PurePath(name)) for name in names}
    pages = {inner.stem for inner in documents.values() if inner.suffix.lower() in RENDERED}
    return {name for name, inner in documents.items() if _is_source(inner.suffix.lower()) and inner.stem in pages}


def _is_source(suffix: str) -> bool:
    return suffix in SOURCES or is_man_suffix(suffix)
