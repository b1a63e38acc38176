"""Lines to paragraphs: line-end hyphens, split URLs and identifiers joined as the document says.

A word hyphenated at a line end ("fa-" / "cility") is joined when the joined word occurs elsewhere
in the same document; it keeps its hyphen when the hyphenated form does, or when both halves are
words of the document (a compound such as "command-line"). No word list: the document is the
dictionary. A URL or an identifier cut at a line end ("https://" / "example.org", "MY_" / "VAR")
is joined without a space.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from statistics import median

from deepr_mcp.research.corpus.ingest.model import fence
from deepr_mcp.research.corpus.ingest.pdf.extract import SOFT_HYPHEN, Line

_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")
_SPLIT_WORD = re.compile(rf"([^\W\d_]+){SOFT_HYPHEN}\s*([^\W\d_]+)")
_URL_TAIL = re.compile(r"(?:https?|ftp)://\S*$|\S*[\w/]\.(?:org|com|net|html?)/\S*$")
_SPACED_URL = re.compile(r"\b((?:https?|ftp)): ?/ ?/ ?((?:[\w~%-]+(?: [./] |[./]))*[\w~%-]*/?)")
MONO_ADVANCE = 0.55
"""A monospaced glyph's width per unit of font size (Courier 0.6, TeX's typewriter 0.525): indents."""
_SENTENCE_END = re.compile(r"[.!?:;)\]\"'\u2019\u201d]$")


@dataclass(frozen=True, slots=True)
class Vocabulary:
    """The words of one document (lower case), and its hyphenated compounds."""

    words: frozenset[str]
    compounds: frozenset[str]

    @classmethod
    def of(cls, texts: Iterable[str]) -> Vocabulary:
        words, compounds = set(), set()
        for text in texts:
            text = _SPLIT_WORD.sub(" ", text)  # the halves of a split word are not words
            text = re.sub(r"[^\W\d_]+-$", " ", text)
            for token in _WORD.findall(text.lower()):
                if "-" in token:
                    compounds.add(token)
                    words.update(token.split("-"))
                else:
                    words.add(token)
        return cls(frozenset(words), frozenset(compounds))

    def rejoin(self, left: str, right: str) -> str:
        """The word a line-end hyphen cut in two, with its hyphen only where the document has one."""
        joined = (left + right).lower()
        if joined in self.words:
            return left + right
        if f"{left}-{right}".lower() in self.compounds:
            return f"{left}-{right}"
        if left.lower() in self.words and right.lower() in self.words:
            return f"{left}-{right}"
        return left + right


def _continues(previous: str, following: str) -> str | None:
    """How two lines meet: "" (no space), " " (a space), or None when it is a hyphen case."""
    if re.search(r"[^\W\d_]-$", previous) and re.match(r"[^\W\d_]*[a-z]", following):
        return None
    if _URL_TAIL.search(previous) and re.match(r"[\w/#?=&%.~-]", following):
        if re.match(r"[\w-]+[/.#?=]\w", following):  # the next line goes on as a host or path
            return ""
        if previous.endswith(("/", "-", "_", "=", "&", "?", "#")):
            return ""
    if re.search(r"[A-Za-z0-9]_$", previous) and re.match(r"\w", following):
        return ""
    return " "


def join_lines(lines: list[str], vocabulary: Vocabulary) -> str:
    """One paragraph's lines as one line of text."""
    text = ""
    for line in lines:
        if not text:
            text = line
            continue
        how = _continues(text, line)
        if how is None:
            left = re.search(r"([^\W\d_]+)-$", text)
            right = re.match(r"[^\W\d_]+", line)
            assert left is not None and right is not None
            text = text[: left.start()] + vocabulary.rejoin(left.group(1), right.group(0)) + line[right.end() :]
        else:
            text += how + line
    text = _SPLIT_WORD.sub(lambda m: vocabulary.rejoin(m.group(1), m.group(2)), text)
    text = text.replace(SOFT_HYPHEN, "-")
    return _SPACED_URL.sub(lambda m: f"{m.group(1)}://{m.group(2).replace(' ', '')}", text)


def paragraph_groups(lines: list[Line]) -> list[list[Line]]:
    """Lines grouped by what the page shows: a wider gap, a short last line, a new size, code or not."""
    if not lines:
        return []
    gaps = [a.y - b.y for a, b in itertools.pairwise(lines) if a.page == b.page and a.y > b.y]
    usual_gap = median(gaps) if gaps else 0.0
    right_edge: dict[int, float] = {}
    for line in lines:
        right_edge[line.page] = max(right_edge.get(line.page, 0.0), line.x1)
    groups: list[list[Line]] = [[lines[0]]]
    for previous, line in itertools.pairwise(lines):
        ends = bool(_SENTENCE_END.search(previous.text))
        # a wider gap after an unfinished sentence is two drawn lines the extractor gave as one
        wide_gap = previous.page == line.page and usual_gap > 0 and previous.y - line.y > 1.45 * usual_gap and ends
        short = previous.x1 < right_edge[previous.page] - 3 * previous.size and ends
        new_size = abs(previous.size - line.size) > 0.15 * max(previous.size, line.size)
        # a term in a code font on its own line, its description indented below: one paragraph
        term = groups[-1] == [previous] and previous.mono and line.x0 > previous.x0 + previous.size
        if (previous.mono != line.mono and not term) or (not line.mono and (wide_gap or short or new_size)):
            groups.append([])
        groups[-1].append(line)
    return groups


def render(group: list[Line], vocabulary: Vocabulary) -> str:
    """One paragraph as text: prose joined into one line, code fenced."""
    return _code(group) if all(x.mono for x in group) else join_lines([x.text for x in group], vocabulary)


def _code(lines: list[Line]) -> str:
    """Code lines as a fenced block, each line indented by how far right of the block it starts."""
    left = min(line.x0 for line in lines)
    return fence("\n".join(" " * round((line.x0 - left) / (MONO_ADVANCE * line.size)) + line.text for line in lines))
