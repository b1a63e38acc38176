"""Jupyter notebooks (``.ipynb``): the Markdown cells as Markdown, the code cells as fenced code, in order.

Outputs are left out: they are what the code printed on one run (tables of numbers, tracebacks, base64
images), not what the notebook says. The language of the fences is the notebook's own
(``metadata.language_info.name``, else the kernel's).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from deepr_mcp.errors import InvalidInput
from deepr_mcp.research.corpus.ingest.decode import decode
from deepr_mcp.research.corpus.ingest.model import Section
from deepr_mcp.research.corpus.ingest.text import markdown_sections


def _source(cell: dict[str, Any]) -> str:
    source = cell.get("source", "")
    if isinstance(source, list):
        source = "".join(s for s in source if isinstance(s, str))
    return source if isinstance(source, str) else ""


def _language(notebook: dict[str, Any]) -> str:
    metadata = notebook.get("metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    for key in ("language_info", "kernelspec"):
        entry = metadata.get(key)
        name = entry.get("name" if key == "language_info" else "language") if isinstance(entry, dict) else None
        if isinstance(name, str) and name.isidentifier():
            return name.lower()
    return ""


def notebook_markdown(path: Path, raw: bytes) -> str:
    """The notebook as one Markdown text (what ``markdown_sections`` then reads)."""
    try:
        notebook = json.loads(decode(path, raw))
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{path}: is not a Jupyter notebook (not valid JSON: {exc})") from None
    except RecursionError:
        raise InvalidInput(f"{path}: is not a Jupyter notebook (its JSON nests too deeply)") from None
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if not isinstance(cells, list):
        version = notebook.get("nbformat") if isinstance(notebook, dict) else None
        why = f"nbformat {version} keeps its cells elsewhere; open and save it in Jupyter 4 or later" if version else ""
        raise InvalidInput(f"{path}: is not a Jupyter notebook with a list of cells{'; ' + why if why else ''}")
    language = _language(notebook)
    parts: list[str] = []
    for cell in cells:
        if not isinstance(cell, dict):
            continue
        source = _source(cell).strip("\n")
        if not source.strip():
            continue
        kind = cell.get("cell_type")
        if kind == "markdown":
            parts.append(source)
        elif kind == "code":
            fence = "````" if "```" in source else "```"
            parts.append(f"{fence}{language}\n{source}\n{fence}")
    return "\n\n".join(parts) + "\n"


def notebook_sections(path: Path, raw: bytes) -> list[Section]:
    return markdown_sections(notebook_markdown(path, raw))
