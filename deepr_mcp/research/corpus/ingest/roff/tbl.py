"""tbl(1) tables (``.TS`` ... ``.TE``) as rows of cell text: the layout lines are read past, not shown."""

from __future__ import annotations

import re
from collections.abc import Callable

_TAB = re.compile(r"\btab\s*\((.)\)", re.I)
_RULE = re.compile(r"^\s*(?:[_=]|\\_)\s*$")


def table_rows(
    lines: list[str], render: Callable[[str], str], line_text: Callable[[str], str] | None = None
) -> list[list[str]]:
    """The data rows of a table's source lines; ``T{ ... T}`` text blocks are one cell, rules dropped.

    ``line_text`` gives the text of a line inside a text block, macro lines (``.BR ls (1)``) included.
    """
    line_text = line_text or render
    tab = "\t"
    at = 0
    if lines and lines[0].rstrip().endswith(";"):
        found = _TAB.search(lines[0])
        tab = found.group(1) if found else tab
        at = 1
    at = _past_format(lines, at)
    rows: list[list[str]] = []
    row: list[str] = []
    while at < len(lines):
        line = lines[at]
        at += 1
        if line.startswith(".T&"):
            at = _past_format(lines, at)
            continue
        if line.startswith((".", "'")) or _RULE.match(line):
            continue
        cells = line.split(tab)
        while cells:
            cell = cells.pop(0)
            if cell.strip() == "T{" and not cells:
                block: list[str] = []
                while at < len(lines) and not lines[at].startswith("T}"):
                    block.append(line_text(lines[at]))
                    at += 1
                row.append(_cell(" ".join(block), str))
                if at < len(lines):
                    rest = lines[at][2:]
                    at += 1
                    cells = rest.split(tab)[1:] if rest.startswith(tab) else ([rest] if rest.strip() else [])
                continue
            row.append(_cell(cell, render))
        rows.append(row)
        row = []
    if row:
        rows.append(row)
    return rows


def _past_format(lines: list[str], at: int) -> int:
    """The index after the format lines (the last ends in a full stop); ``at`` if there are none."""
    for end in range(at, min(len(lines), at + 40)):
        if lines[end].rstrip().endswith("."):
            return end + 1
    return at


def _cell(text: str, render: Callable[[str], str]) -> str:
    if text.strip() in ("_", "=", "\\_", "\\^", "\\="):
        return ""
    return " ".join(render(text).split())
