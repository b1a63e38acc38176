"""Markdown's inline markup read as the text a reader sees.

A Markdown page's prose carries its markup: ``see [package-lock](/using/package-lock)``, ``**Note:**``,
``<kbd>Ctrl</kbd>``. Kept raw, a link's target adds words the sentence never says to word search
and to the embedding, and a quoted claim shows syntax instead of prose, where an HTML page's text,
read through its parser, has none. markdown-it-py (CommonMark, the parser rich and MyST build on)
reads the inline syntax, and its tokens give the text: a link's or an image's words, code spans kept
in backticks (code is what a reader copies and searches for), emphasis markers and inline HTML tags
dropped, escapes and entities resolved. Reference links resolve against the page's definitions,
which are not text themselves.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import normalizeReference

__all__ = ["InlineText", "is_reference_definition"]

_DEFINITION = re.compile(r"^ {0,3}\[(?P<label>[^\]]+)\]:[ \t]*<?(?P<href>[^\s>]+)>?")
_TAG = re.compile(r"<(/?)([A-Za-z][\w-]*)([^>]*)>")
_VOID = frozenset({"br", "hr", "img", "wbr"})
"""HTML's void elements that pages write inline (the HTML standard's list): tags with no text, never a word."""
_SPACES = re.compile(r"(?<=\S)[ \t]{2,}(?=\S)")
"""Spaces left doubled where a tag was dropped ("and <br> then")."""
_QUOTE = re.compile(r"^(?:[ \t]*>[ \t]?)+")
"""Blockquote markers at a line's start: block structure, not words ("> **Note:** ...")."""


def is_reference_definition(line: str) -> bool:
    """``[label]: https://...``: where a reference link points, not a sentence of the page."""
    return bool(_DEFINITION.match(line))


class InlineText:
    """Renders a Markdown page's headings and paragraphs as plain text, code spans kept; built once per page,
    with the page's reference definitions."""

    def __init__(self, page_lines: Iterable[str] = ()) -> None:
        self._parser = MarkdownIt("commonmark")
        references: dict[str, dict[str, Any]] = {}
        for line in page_lines:
            if found := _DEFINITION.match(line):
                references.setdefault(normalizeReference(found["label"]), {"href": found["href"], "title": ""})
        self._env: dict[str, Any] = {"references": references}

    def text(self, lines: str) -> str:
        """A line, or a paragraph's lines joined by newlines (a link may wrap), as a reader sees them: line
        breaks and the first line's indentation kept, blockquote markers dropped."""
        body = "\n".join(_QUOTE.sub("", line) for line in lines.split("\n"))
        stripped = body.lstrip()
        if not any(mark in stripped for mark in "[]*_`<>&\\!"):
            return body
        indent = body[: len(body) - len(stripped)]
        tokens = self._parser.parseInline(stripped, self._env)
        out: list[str] = []
        for token in tokens[0].children or ():
            if token.type == "text":
                out.append(token.content)
            elif token.type == "code_inline":
                out.append(f"{token.markup}{token.content}{token.markup}")
            elif token.type == "image":
                out.append(token.content)  # its alt text
            elif token.type in ("softbreak", "hardbreak"):
                out.append("\n")
            elif token.type == "html_inline" and not _is_markup(token.content, stripped):
                out.append(token.content)  # "npm install <pkg>": a placeholder, not a tag
        return indent + _SPACES.sub(" ", "".join(out)).strip()


def _is_markup(tag: str, line: str) -> bool:
    """Whether an inline HTML tag is markup to drop: a closing tag, one with attributes, a void element, or an
    opening tag closed on the same line (``<kbd>Ctrl</kbd>``). A bare ``<name>`` left open is a placeholder."""
    found = _TAG.fullmatch(tag.strip())
    if found is None:
        return True  # a comment, a processing instruction, a declaration
    closing, name, rest = found.groups()
    return bool(closing or rest.strip() or name.lower() in _VOID or f"</{name}>" in line)
