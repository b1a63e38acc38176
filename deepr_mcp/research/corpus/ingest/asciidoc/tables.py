"""An AsciiDoc table's body (between ``|===`` lines) as rows of cell sources.

Cells are separated by ``|`` (``!`` in a nested table, or the table's ``separator``), each optionally
led by a cell spec such as ``2+``, ``a`` or ``.^``; rows are as wide as the ``cols`` attribute says,
or as the first line's cells when it says nothing, so a table written one cell per line reads in
rows too. ``format=csv`` / ``,===`` and ``format=dsv`` / ``:===`` tables are split as such.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Mapping

__all__ = ["table_rows"]

_SPEC = re.compile(r"(?:^|(?<=\s))(?:(\d+)\*)?(?:(\d*)(?:\.\d+)?\+)?[<^>]?(?:\.[<^>])?[adehlmsv]?$")
_COLS_ENTRY = re.compile(r"^\s*(\d+)\*")


def table_rows(body: list[str], delimiter: str, named: Mapping[str, str]) -> list[list[str]]:
    """The table's rows, each a list of cell sources (AsciiDoc inline text, not yet rendered)."""
    lines = [line for line in body if not (line.startswith("//") and not line.startswith("///"))]
    kind = named.get("format", {",": "csv", ":": "dsv"}.get(delimiter[0], "psv"))
    separator = named.get("separator") or {"csv": ",", "dsv": ":", "tsv": "\t"}.get(kind, delimiter[0])
    if separator == "\\t":
        separator = "\t"
    if kind in ("csv", "tsv"):
        try:
            return [row for row in csv.reader(lines, delimiter=separator[0]) if any(c.strip() for c in row)]
        except csv.Error:
            pass  # a malformed quote: read it the simple way below
    if kind in ("csv", "tsv", "dsv"):
        split = re.compile(r"(?<!\\)" + re.escape(separator[0]))
        return [split.split(line) for line in lines if line.strip()]
    return _psv_rows(lines, separator, _columns(named.get("cols", "")))


def _psv_rows(lines: list[str], separator: str, columns: int) -> list[list[str]]:
    split = re.compile(r"(?<!\\)" + re.escape(separator))
    first = next((line for line in lines if line.strip()), "")
    fragments = split.split("\n".join(lines))
    cells: list[tuple[str, int, int]] = []  # (source, columns it spans, times it is repeated)
    for k in range(1, len(fragments)):
        spec, fragment = _spec(fragments[k - 1]), fragments[k]
        text = fragment if k == len(fragments) - 1 else fragment[: len(fragment) - len(_spec(fragment)[0])]
        cells.append((text.replace("\\" + separator, separator).strip(), spec[1], spec[2]))
    if not columns:
        columns = sum(span * times for _, span, times in cells[: len(split.findall(first))]) or 1
    rows: list[list[str]] = [[]]
    width = 0
    for text, span, times in cells:
        for _ in range(min(times, columns)):
            if width >= columns:
                rows.append([])
                width = 0
            rows[-1].append(text)
            width += span
    return [row for row in rows if any(row)]


def _spec(fragment: str) -> tuple[str, int, int]:
    """The cell spec that ends ``fragment`` (it belongs to the cell after it): its text, colspan, repeat."""
    tail = fragment[-24:]
    found = _SPEC.search(tail)
    if found is None or not found.group(0) or (len(fragment) > 24 and found.start() == 0):
        return "", 1, 1
    times, span = found.group(1), found.group(2)
    return found.group(0), max(1, int(span)) if span else 1, max(1, int(times)) if times else 1


def _columns(cols: str) -> int:
    """Columns named by a ``cols`` attribute: ``3``, ``"1,2,1"``, ``"3*"`` or ``"2*,1a"``."""
    cols = cols.strip().strip("\"'")
    if not cols:
        return 0
    if cols.isdigit():
        return min(int(cols), 1000)
    total = 0
    for entry in re.split(r"[,;]", cols):
        repeat = _COLS_ENTRY.match(entry)
        total += int(repeat.group(1)) if repeat else 1
    return min(total, 1000)
