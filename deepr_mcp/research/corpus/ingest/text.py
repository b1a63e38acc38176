"""Markdown and reStructuredText by heading path, with their code blocks kept as fenced code.

Both are read line by line so that a ``# comment`` inside a code block is never taken for a
heading, and code (Markdown fences or indented blocks, rst ``::`` literal blocks, ``code-block``
directives and ``>>>`` doctests) comes out as one fenced block with its line breaks.

A heading closes every open heading of its level or deeper, whatever level the document starts at
(a page of ``###`` sections has sibling sections, not each nested in the one before). A Markdown
page's YAML front matter (the ``---`` block static-site generators read) is not text: its ``title``
is the root of every heading path, as an HTML page's first heading is, and its ``description``
the page's opening line.
"""

from __future__ import annotations

import re

from deepr_mcp.research.corpus.ingest.markdown_inline import InlineText, is_reference_definition
from deepr_mcp.research.corpus.ingest.model import Section, Sections, fence

_FENCE = re.compile(r"^([ \t]*)(`{3,}|~{3,})\s*([\w+#.-]*)")
"""A fence at any indentation: one inside a list item is indented with the item's text."""
_ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s")
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(?P<body>.*?)\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.S)
_FIELD = re.compile(r"^(?P<key>[A-Za-z_][\w-]*):[ \t]*(?P<value>.*?)[ \t]*$")


def front_matter(text: str) -> tuple[dict[str, str], str]:
    """A page's top-level ``key: value`` front-matter fields (quotes removed) and the text after it."""
    match = _FRONT_MATTER.match(text)
    if not match:
        return {}, text
    fields = {}
    for line in match.group("body").splitlines():
        if field := _FIELD.match(line):
            fields[field.group("key").lower()] = field.group("value").strip("'\"")
    return fields, text[match.end() :]


def markdown_sections(text: str) -> list[Section]:
    """Sections of a Markdown page; prose and headings as plain text (``markdown_inline``), code as code."""
    out = Sections()
    fields, text = front_matter(text)
    lines = text.splitlines()
    inline = InlineText(lines)
    if title := fields.get("title", ""):
        out.heading(0, inline.text(title))  # the page's root, above its level-1 headings
    if description := fields.get("description", ""):
        out.lines += [inline.text(description), ""]
    prose: list[str] = []  # a paragraph's lines, read together: a link or a code span may wrap
    previous = ""  # the last non-blank source line of this section's body: list items continue indented
    in_list = False  # since a list item, only indented lines: an indented block after a blank is the item's

    def end_paragraph() -> None:
        if prose:
            out.lines.extend(inline.text("\n".join(prose)).split("\n"))
            prose.clear()

    i = 0
    while i < len(lines):
        line = lines[i]
        opened = _FENCE.match(line)
        if opened:
            end_paragraph()
            indent, marker, language = opened.groups()
            body, i = [], i + 1
            while i < len(lines) and not lines[i].strip().startswith(marker):
                code = lines[i]
                body.append(code[len(indent) :] if code.startswith(indent) else code.lstrip())
                i += 1
            out.lines += ["", fence("\n".join(body).strip("\n"), language), ""]
            previous = lines[i] if i < len(lines) else marker  # the closing fence, indented as it was
            i += 1
            continue
        atx = _ATX.match(line)
        if atx:
            end_paragraph()
            out.heading(len(atx.group(1)), inline.text(atx.group(2)))
            previous, in_list = "", False
            i += 1
            continue
        after_blank = not prose and (not out.lines or not out.lines[-1].strip())
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if line.strip() and re.fullmatch(r" {0,3}(=+|-+)\s*", nxt) and not _LIST_ITEM.match(line):
            if after_blank:  # a one-line paragraph: a setext heading
                out.heading(1 if nxt.strip()[0] == "=" else 2, inline.text(line))
                previous = ""
                i += 2
                continue
        if line.startswith(("    ", "\t")) and line.strip() and after_blank:
            if not in_list and not previous.startswith(("    ", "\t")):
                body = []
                while i < len(lines) and (not lines[i].strip() or lines[i].startswith(("    ", "\t"))):
                    body.append(lines[i][4:] if lines[i].startswith("    ") else lines[i][1:])
                    i += 1
                out.lines += [fence("\n".join(body).strip("\n")), ""]
                previous = "```"
                continue
        if not line.strip():
            end_paragraph()
            out.lines.append(line)
        elif not is_reference_definition(line):
            prose.append(line)
            previous = line
            in_list = bool(_LIST_ITEM.match(line)) or (in_list and line.startswith((" ", "\t")))
        i += 1
    end_paragraph()
    out.flush()
    return out.sections


_RST_ADORNMENT = re.compile(r"^([=\-~^\"'`#*+:.<>_])\1{2,}\s*$")
_RST_CODE = re.compile(r"^\.\. (?:code-block|code|sourcecode|highlight|doctest|testcode)::\s*(\S*)")
_RST_DROP = re.compile(r"^\.\. (?:toctree|contents|index|only|raw|include|image|figure|_[^:]+:|\|[^|]+\|)|^\.\.\s*$")
_RST_DIRECTIVE = re.compile(r"^\.\. ([\w:-]+)::\s*(.*)$")


def rst_sections(text: str) -> list[Section]:
    """Sections of reStructuredText, with code fenced and directives named.

    Longer than 60 lines on purpose: one pass over the lines, where each construct (titles,
    code, doctests, dropped and named directives) moves the same cursor; split apart, the pieces
    would pass that cursor and state back and forth and read worse.
    """
    out = Sections()
    styles: list[tuple[str, bool]] = []
    lines = text.splitlines()
    i = 0
    literal_next = False

    def indented_block(start: int) -> tuple[list[str], int]:
        """The indented lines from ``start`` (blank lines inside included), dedented."""
        body, j = [], start
        while j < len(lines) and (not lines[j].strip() or lines[j][:1] in (" ", "\t")):
            body.append(lines[j])
            j += 1
        while body and not body[-1].strip():
            body.pop()
            j -= 1
        width = min((len(x) - len(x.lstrip()) for x in body if x.strip()), default=0)
        return [x[width:] for x in body], j

    while i < len(lines):
        line = lines[i]
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        after = lines[i + 2] if i + 2 < len(lines) else ""
        # Over- and underlined title, then underlined title.
        if _RST_ADORNMENT.match(line) and nxt.strip() and after.strip() == line.strip() and len(line.strip()) >= 3:
            style = (line.strip()[0], True)
            title, i = nxt.strip(), i + 3
        elif (
            line.strip()
            and not line[:1].isspace()
            and _RST_ADORNMENT.match(nxt)
            and len(nxt.strip()) >= len(line.strip())
        ):
            style = (nxt.strip()[0], False)
            title, i = line.strip(), i + 2
        else:
            style = None
        if style is not None:
            if style not in styles:
                styles.append(style)
            out.heading(styles.index(style) + 1, title)
            continue
        code = _RST_CODE.match(line)
        if code or (literal_next and line[:1] in (" ", "\t") and line.strip()):
            start = i + 1 if code else i
            while code and start < len(lines) and re.match(r"^\s+:[\w-]+:", lines[start]):
                start += 1  # directive options such as :linenos:
            body, i = indented_block(start)
            out.lines += ["", fence("\n".join(body).strip("\n"), code.group(1) if code else ""), ""]
            literal_next = False
            continue
        if line.strip():
            literal_next = line.rstrip().endswith("::")
        if line.lstrip().startswith(">>> ") and (not out.lines or not out.lines[-1].strip()):
            body = []
            while i < len(lines) and lines[i].strip():
                body.append(lines[i])
                i += 1
            width = min(len(x) - len(x.lstrip()) for x in body)
            out.lines += [fence("\n".join(x[width:] for x in body), "pycon"), ""]
            continue
        if _RST_DROP.match(line):
            _, i = indented_block(i + 1)
            continue
        directive = _RST_DIRECTIVE.match(line)
        if directive:  # admonitions and the like: keep the content, named
            name, argument = directive.group(1), directive.group(2).strip()
            body, i = indented_block(i + 1)
            body = [x for x in body if not re.match(r"^:[\w-]+:", x)]
            while body and not body[0].strip():
                body.pop(0)
            label = name.replace("versionadded", "New in version").replace("versionchanged", "Changed in version")
            out.lines += ["", f"{label.capitalize()}: {argument}".rstrip(), *body, ""]
            continue
        out.lines.append(re.sub(r"\s?::$", ":", line) if line.rstrip().endswith("::") else line)
        i += 1
    out.flush()
    return out.sections


def plain_sections(text: str) -> list[Section]:
    return [Section(text, "", 0)] if text.strip() else []
