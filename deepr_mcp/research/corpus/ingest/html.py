"""HTML main content, as a search engine would index it: the page body, not its furniture.

Parsing is selectolax's Lexbor (a maintained, fast HTML5 parser). Generic extractors were tried
on the Python docs first: trafilatura kept the ``¶`` marks and the genindex pages, flattened every
code block inside Sphinx's API entries (``<dl><dd><pre>``) onto one line and took ~0.6 s a page.
Documentation generators mark their structure plainly, so the rules here are explicit: the main
region (Sphinx ``[role=main]``, MkDocs ``article``/``[role=main]``, Javadoc ``main``), minus
navigation, sidebars, tables of contents, permalinks and headers/footers; headings become the
location; ``<pre>`` stays a fenced code block with its line breaks; API entries (Sphinx ``dt``
signatures) are a level of the location under their heading. Index, module-index, search and
table-of-contents pages raise ``NotContent``.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass

from selectolax.lexbor import LexborHTMLParser, LexborNode

from deepr_mcp.research.corpus.ingest.html_furniture import (
    classes_of,
    is_furniture,
    is_link_list,
    is_link_table,
    is_page_links,
)
from deepr_mcp.research.corpus.ingest.model import NotContent, Section, fence

MAIN_REGIONS = (
    "article.md-content__inner",
    "div.body[role=main]",
    "[role=main]",
    "main",
    "div.contentContainer",
    "article",
    "#content",
    "body",
)
NAVIGATION_MARKERS = (
    ("table.modindextable, .modindex-jumpbox", "a module index"),
    ("table.indextable, table.genindextable, .genindex-jumpbox", "an index page"),
    ("#search-results, #mkdocs-search-results, #search-documentation", "a search page"),
    ("dl.index, #all-classes-table, .all-classes-table, #all-packages-table, .all-packages-table", "an index page"),
    ("section.hierarchy, .hierarchy > ul", "a class hierarchy page"),
    ('meta[name=robots][content*="noindex"]', "marked noindex"),
)
HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
BLOCKS = frozenset(
    "address article blockquote caption dd details dialog div dl dt fieldset figcaption figure "
    "hgroup li main ol p section summary ul table tr td th".split()
)
INLINE_CODE = frozenset({"code", "tt", "kbd", "samp", "var"})
PERMALINK_TEXT = frozenset({"¶", "#", "§", "🔗", "link"})
API_DL_CLASSES = frozenset(
    "function class method attribute data exception classmethod staticmethod describe option cmdoption glossary".split()
)
TOC_LINK_SHARE = 0.65
TOC_MAX_TEXT = 2500
"""A page whose text is mostly links and that keeps under this much text is a contents page (a Sphinx
chapter or index.html: a line of introduction above a toctree); measured on python3-doc, where the
chapter pages sit at 0.7-0.99 and real pages below 0.62."""
MAX_DEPTH = 4000
"""Deeper element nesting is no real page: Lexbor's parse time grows with depth squared."""
_BR = "\x00"


@dataclass(frozen=True, slots=True)
class _Block:
    kind: str  # heading, object (an API entry), pop (its end), para, item, code, table
    text: str = ""
    level: int = 0


def html_sections(text: str, *, skip_navigation: bool = True) -> list[Section]:
    """The page's main content by heading path.

    With ``skip_navigation`` (files being indexed) an index, search or contents page raises
    ``NotContent``; a page fetched on request keeps whatever text it has.
    """
    check_depth(text)
    tree = LexborHTMLParser(text)
    title = " ".join((tree.css_first("title").text() if tree.css_first("title") else "").split())
    root = next((node for s in MAIN_REGIONS if (node := tree.css_first(s)) is not None), None)
    if root is None:
        return []
    for selector, what in NAVIGATION_MARKERS if skip_navigation else ():
        if root.css_first(selector) is not None or (what == "marked noindex" and tree.css_first(selector)):
            raise NotContent(f"{what} (navigation, not content)")
    link_share = _link_share(root)
    walker = _Walker()
    sections = _assemble(walker.run(root), title)
    if skip_navigation and walker.links >= 3:
        if not sections:
            raise NotContent("a table of contents (nothing but links)")
        if link_share >= TOC_LINK_SHARE and sum(len(s.text) for s in sections) < TOC_MAX_TEXT:
            raise NotContent("a table of contents page (mostly links, little text)")
    return sections


def _link_share(root: LexborNode) -> float:
    """The share of the main region's text that is link text, before anything is left out."""
    total = len("".join(root.text().split()))
    linked = sum(len("".join(a.text().split())) for a in root.css("a"))
    return linked / total if total else 0.0


def check_depth(text: str) -> None:
    """Refuse pathological nesting before parsing (a cheap tag count, not a parse)."""
    from deepr_mcp.errors import InvalidInput

    depth = deepest = 0
    for closing, name in _TAG.findall(text):
        if name.lower() in _NO_NEST:
            continue
        depth = depth - 1 if closing else depth + 1
        if depth > deepest:
            deepest = depth
            if deepest > MAX_DEPTH:
                raise InvalidInput(f"elements nest more than {MAX_DEPTH:,} deep: not a page that can be indexed")


_TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9]*)")
_NO_NEST = frozenset(
    "area base br col embed hr img input link meta param source track wbr p li dt dd tr td th option "
    "thead tbody tfoot colgroup rt rp optgroup".split()
)


_SIDE_LINK = re.compile(r"\[[^\[\]]{1,24}\]")
"""A heading's bracketed link (``Stream[src]``, ``[source]``, ``[edit]``): a way to the page's source or editor
beside the title, not part of it."""


def _code_text(pre: LexborNode) -> str:
    """A code block's text: its controls (a copy button, a toggle) are no code, and each ``<code>`` it holds is
    a version of the example of its own (a generator shows ES-module and CommonJS versions in one block, one
    at a time), read apart rather than run together on one line."""
    for control in pre.css("button, input, select, textarea, [aria-hidden=true]"):
        control.decompose()
    children = list(pre.iter(include_text=True))
    codes = [c for c in children if c.tag == "code"]
    alone = all(c.tag == "code" or (c.tag == "-text" and not (c.text_content or "").strip()) for c in children)
    parts = [c.text() for c in codes] if len(codes) > 1 and alone else [pre.text()]
    return "\n\n".join(textwrap.dedent(part).strip("\n").rstrip() for part in parts if part.strip())


def _spaced_text(node: LexborNode) -> str:
    """The node's text with a space where one block ends and another starts: a table cell of two paragraphs
    or a list reads "First. Second.", not "First.Second." as the text of its nodes run together does."""
    parts: list[str] = []
    last = None
    for child in node.traverse(include_text=True):
        if child.tag == "br":
            parts.append(" ")
        elif child.tag == "-text":
            block = child.parent
            while block is not None and block.tag not in BLOCKS and block.mem_id != node.mem_id:
                block = block.parent
            here = block.mem_id if block is not None else None
            if last is not None and here != last:
                parts.append(" ")
            parts.append(child.text_content or "")
            last = here
    return "".join(parts)


def _own(container: LexborNode, found: list[LexborNode], tag: str) -> list[LexborNode]:
    """Of ``found`` (a table's rows, or a row's cells), those whose nearest ``tag`` ancestor is ``container``,
    not those of a table nested in a cell: the nested table's text is already its cell's."""
    own = []
    for node in found:
        parent = node.parent
        while parent is not None and parent.tag != tag:
            parent = parent.parent
        if parent is not None and parent.mem_id == container.mem_id:
            own.append(node)
    return own


def _squash(text: str) -> str:
    return "\n".join(" ".join(line.split()) for line in text.split(_BR)).strip()


def _code_language(pre: LexborNode) -> str:
    nodes, up = [pre.css_first("code"), pre], pre.parent
    for _ in range(7):  # MkDocs puts the language class on a div around a line-number table
        if up is None:
            break
        nodes.append(up)
        up = up.parent
    for node in nodes:
        if node is None:
            continue
        for cls in classes_of(node):
            match = re.fullmatch(r"(?:highlight|language|lang)-([\w+#.-]+)", cls)
            if match and match.group(1) not in ("default", "none", "text", "notranslate", "highlight"):
                return match.group(1)
    return ""


def _is_api_dl(node: LexborNode) -> bool:
    dt = node.css_first("dt")
    if dt is None:
        return False
    classes = classes_of(node)
    return "sig" in classes_of(dt) or (bool(classes & API_DL_CLASSES) and "id" in dt.attributes)


def _api_name(dt: LexborNode) -> str:
    if dt.parent is not None and "glossary" in classes_of(dt.parent):
        return " ".join(dt.text().replace("¶", "").split())[:80]  # the term itself, not its anchor id
    parts = [n.text() for n in dt.css(".sig-prename, .sig-name")] or [n.text() for n in dt.css(".descname")]
    name = " ".join("".join(parts).split()) or (dt.attributes.get("id") or "")
    return name or " ".join(dt.text().split())[:80]


class _Walker:
    """Document order, iteratively (no recursion limit), emitting headings and text blocks."""

    def __init__(self) -> None:
        self.blocks: list[_Block] = []
        self._inline: list[str] = []
        self._item_depth = 0
        self._api_depth = 0
        self._prefix = ""
        self.links = 0

    def run(self, root: LexborNode) -> list[_Block]:
        stack: list[tuple[LexborNode, bool]] = [(root, False)]
        while stack:
            node, leaving = stack.pop()
            if leaving:
                self._leave(node)
                continue
            if node.is_text_node:
                self._inline.append((node.text_content or "").replace("¶", ""))
                continue
            if not node.is_element_node:
                continue
            if self._enter(node):
                stack.append((node, True))
                stack.extend((child, False) for child in reversed(list(node.iter(include_text=True))))
        self._flush()
        return self.blocks

    def _enter(self, node: LexborNode) -> bool:
        """Handle an element; True when its children should be walked too.

        Longer than 60 lines on purpose: a flat dispatch on the kind of element, in the order
        the rules must apply (furniture before headings before code before blocks).
        """
        tag = node.tag
        classes = classes_of(node)
        if is_furniture(node, classes):
            self.links += len(node.css("a"))
            return False
        if tag in ("p", "div", "table") and is_page_links(node):
            self.links += len(node.css("a"))
            return False
        if tag in ("ul", "ol") and not self._item_depth and is_link_list(node):
            self.links += len(node.css("a"))
            return False
        if tag == "a":
            self.links += 1
        if tag in HEADINGS:
            self._flush()
            for link in node.css("a"):
                if link.text().strip() in PERMALINK_TEXT or _SIDE_LINK.fullmatch(link.text().strip()):
                    link.decompose()
            title = " ".join(node.text().replace("¶", "").split())
            if title:
                self.blocks.append(_Block("heading", title, HEADINGS[tag]))
            return False
        if tag == "pre":
            self._flush()
            code = _code_text(node)
            if code.strip():
                self.blocks.append(_Block("code", fence(code, _code_language(node))))
            return False
        if tag == "table" and is_link_table(node):
            self.links += len(node.css("a"))
            return False
        if tag == "table" and node.css_first("pre") is None:  # a code table (line numbers) is walked instead
            self._flush()
            rows = []
            for row in _own(node, node.css("tr"), "table"):
                cells = [" ".join(_spaced_text(c).replace("¶", "").split()) for c in _own(row, row.css("th, td"), "tr")]
                if any(cells):
                    rows.append(" | ".join(cells))
            if rows:
                self.blocks.append(_Block("table", "\n".join(rows)))
            return False
        if tag == "br":
            self._inline.append(_BR)
            return False
        if tag in INLINE_CODE:
            code = " ".join(node.text().split())
            if code:
                self._inline.append(f"`{code}`")
            return False
        if tag == "a" and node.text().strip() in PERMALINK_TEXT:
            return False
        if "admonition-title" in classes:
            self._flush()
            self._prefix = " ".join(node.text().split()).rstrip(":") + ": "
            return False
        if "member-signature" in classes:  # Javadoc
            self._flush()
            self.blocks.append(_Block("para", f"`{' '.join(node.text().split())}`"))
            return False
        if tag == "dl" and _is_api_dl(node):
            self._flush()
            self._api_depth += 1
            return True
        if tag == "dt" and self._api_depth and node.parent is not None and _is_api_dl(node.parent):
            self._flush()
            self.blocks.append(_Block("object", _api_name(node), 10 + self._api_depth))
            self.blocks.append(_Block("para", f"`{' '.join(node.text().replace('¶', '').split())}`"))
            return False
        if tag == "li" and node.css_first("h1, h2, h3, h4, h5, h6, section") is None:
            self._flush()
            self._item_depth += 1
            return True
        if tag in BLOCKS:
            self._flush()
        return True

    def _leave(self, node: LexborNode) -> None:
        tag = node.tag
        if tag in BLOCKS:
            self._flush(item=tag == "li")
        if tag == "li" and self._item_depth and node.css_first("h1, h2, h3, h4, h5, h6, section") is None:
            self._item_depth -= 1
        if tag == "dl" and self._api_depth and _is_api_dl(node):
            self.blocks.append(_Block("pop", level=10 + self._api_depth))
            self._api_depth -= 1

    def _flush(self, *, item: bool = False) -> None:
        text = _squash("".join(self._inline))
        self._inline = []
        if not text:
            return
        text, self._prefix = self._prefix + text, ""
        if self._item_depth:
            self.blocks.append(_Block("item", "  " * (self._item_depth - 1) + "- " + text))
        else:
            self.blocks.append(_Block("para", text))


def _assemble(blocks: list[_Block], title: str) -> list[Section]:
    path: list[tuple[int, str]] = []
    sections: list[Section] = []
    paragraphs: list[str] = []
    offset = 0
    has_heading = any(b.kind == "heading" for b in blocks)

    def flush() -> None:
        nonlocal paragraphs, offset
        if paragraphs:
            text = "\n\n".join(paragraphs)
            location = " > ".join(t for _, t in path) or ("" if has_heading else title)
            sections.append(Section(text, location, offset))
            offset += len(text) + 2
        paragraphs = []

    previous = ""
    for block in blocks:
        if block.kind == "object" and path and path[-1] == (block.level, block.text):
            continue  # another signature of the same entry (an overload): same section
        if block.kind in ("heading", "object", "pop"):
            flush()
            path = [(level, t) for level, t in path if level < block.level]
            if block.kind != "pop":
                path.append((block.level, block.text))
        elif block.kind == "item" and previous == "item" and paragraphs:
            paragraphs[-1] += "\n" + block.text
        else:
            paragraphs.append(block.text)
        previous = block.kind
    flush()
    return sections
