"""AsciiDoc's inline markup read as the text a reader sees.

A rendered AsciiDoc page shows ``*bold*`` as bold words, ``https://x[the guide]`` as "the guide" and
``{product}`` as the product's name; kept raw, the markup adds tokens no sentence says and splits
words from their punctuation. The substitutions run in Asciidoctor's order where it matters:
passthroughs and escapes first (their text is literal), then attribute references (a value may be a
URL that a link macro then reads), code spans (kept in backticks, as the Markdown and HTML readers
keep them: code is what a reader copies and searches for), macros by their visible text, the quote
markers, and the character replacements AsciiDoc makes ((C), (R), (TM), and ``--`` between words
as an em dash). Arrows and ellipses are left as typed: they are what a reader would search for.

Every pattern bounds how far a pair of markers may stretch, so a paragraph of ten thousand
unmatched ``*`` is read in linear time, left as it was.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping

__all__ = ["CHARACTER_ATTRIBUTES", "InlineAsciiDoc", "readable_id", "strip_tags"]

# A quoted span (``*...*``), a macro's text or a passthrough holds at most 400 characters (1,600 for
# passthroughs, footnotes and math): AsciiDoc's spans are phrases, and the bound keeps unmatched markers linear.

_ESCAPED = re.compile(
    r"\\(\+\+\+|\+\+|[*_`#^~+{]|\[\[|<<|\((?:C|R|TM)\)|(?:https?|link|xref|mailto|image|kbd|btn|menu|footnote|pass):)"
)
_TRIPLE_PASS = re.compile(r"\+\+\+(.{0,1600}?)\+\+\+|\$\$(.{0,1600}?)\$\$", re.S)
_DOUBLE_PASS = re.compile(r"\+\+(.{1,400}?)\+\+", re.S)
_PASS_MACRO = re.compile(r"pass:[a-z,]*\[([^\[\]]{0,1600})\]")
_MONO_PASS = re.compile(r"(?<![\w`])`\+(.{1,400}?)\+`(?![\w`])", re.S)
_SINGLE_PASS = re.compile(r"(^|[^\w;:\\+])\+(\S|\S.{0,400}?\S)\+(?![\w+])", re.S)
_ATTRIBUTE = re.compile(r"(?<!\\)\{([A-Za-z0-9_][\w-]*)\}")
_CURVED = re.compile(r"([\"'])`(\S|\S.{0,400}?\S)`\1", re.S)
_MONO = re.compile(r"``(.{1,400}?)``|(^|[^\w;:\"'`}])`(\S|\S.{0,400}?\S)`(?![\w`])", re.S)
_URL_MACRO = re.compile(
    r"(?<![\w/])((?:https?|ftp|irc|file)://[^\s\[\]<>\"]{1,2000}|mailto:[^\s\[\]<>\"]{1,400})\[([^\]]{0,400})\]"
)
_LINK_MACRO = re.compile(r"(?<![\w])link:(\+\+[^\n]{1,400}?\+\+|[^\s\[]{1,500})\[([^\]]{0,400})\]")
_XREF_MACRO = re.compile(r"(?<![\w])xref:([^\s\[]{1,500})\[([^\]]{0,400})\]")
_XREF = re.compile(r"<<([^\s<>,]{1,400})(?:,[ \t]*([^>]{1,400}?))?>>")
_ANGLE_URL = re.compile(r"<((?:https?|ftp|irc)://[^\s<>]+)>")
_BARE_URL = re.compile(r"(?<![\w/\"'=])(?:https?|ftp|irc)://[^\s\[\]<>\"]+")
_ATTRIBUTE_LINK = re.compile(r"(?<![\w])\{[A-Za-z0-9_][\w-]{0,80}\}[^\s\[\]]{0,400}\[([^\]]{0,400})\]")
"""A link whose target starts with an attribute the document does not define (an Antora site defines
``{url-org}`` in its component descriptor): read by its text, as the page shows it."""
_ICON = re.compile(r"(?<![\w])icon:[\w-]{1,80}\[[^\]]{0,400}\]")
_IMAGE = re.compile(r"(?<![\w:])image:(?!:)[^\s\[]{0,500}\[([^\]]{0,400})\]")
_UI = re.compile(r"(?<![\w])(kbd|btn):\[([^\]]{0,400})\]")
_MENU = re.compile(r"(?<![\w])menu:([^\s\[]{1,400})\[([^\]]{0,400})\]")
_FOOTNOTE = re.compile(r"(?<![\w])footnote(?:ref)?:[\w-]*\[([^\[\]]{0,1600})\]")
_MATH = re.compile(r"(?<![\w])(?:stem|latexmath|asciimath):\[([^\[\]]{0,1600})\]")
_INDEX_HIDDEN = re.compile(r"\(\(\((.{0,400}?)\)\)\)|(?<![\w])indexterm:\[[^\]]{0,400}\]")
_INDEX_SHOWN = re.compile(r"\(\((.{1,400}?)\)\)|(?<![\w])indexterm2:\[([^\]]{0,400})\]")
_ANCHOR = re.compile(r"\[\[\[?[\w:.-]{1,200}(?:,[^\]]{0,400})?\]\]\]?|(?<![\w])anchor:[\w:.-]{1,200}\[[^\]]{0,400}\]")
_UNCONSTRAINED = re.compile(r"(?:\[[^\[\]\n]{0,80}\])?(\*\*|__|##)(.{1,400}?)\1", re.S)
"""Strong, emphasis and mark inside a word (``**Kiln**Ctl``), a role or id before it allowed."""
_CONSTRAINED = re.compile(r"(^|[^\w;:}\\])(?:\[[^\[\]\n]{0,80}\])?([*_#])(\S|\S.{0,400}?\S)\2(?!\w)", re.S)
"""The same around whole words only: ``snake_case_name`` and ``5 * 3 * 2`` are no emphasis."""
_SUPER_SUB = re.compile(r"(?<!\\)([\^~])(\S{1,80}?)\1")
_EM_DASH = re.compile(r"(?<=\w)--(?=\w)|(?:^|(?<=[ \n]))--(?=[ \n]|$)", re.M)
_SYMBOLS = {"(C)": "\u00a9", "(R)": "\u00ae", "(TM)": "\u2122"}
_SYMBOL = re.compile(r"(?<!\\)\((?:C|R|TM)\)")
_ENTITY = re.compile(r"&(?:[A-Za-z][A-Za-z0-9]{1,31}|#[0-9]{1,7}|#x[0-9A-Fa-f]{1,6});")
_TAG = re.compile(r"<[A-Za-z/!][^<>]{0,2000}>")
_HIDDEN = re.compile(r"<(script|style)\b|<!--", re.I)
CHARACTER_ATTRIBUTES = {
    "empty": "", "sp": " ", "nbsp": " ", "zwsp": "", "wj": "", "apos": "'", "quot": '"',
    "lsquo": "\u2018", "rsquo": "\u2019", "ldquo": "\u201c", "rdquo": "\u201d", "deg": "\u00b0",
    "plus": "+", "brvbar": "\u00a6", "vbar": "|", "amp": "&", "lt": "<", "gt": ">", "startsb": "[",
    "endsb": "]", "caret": "^", "asterisk": "*", "tilde": "~", "backslash": "\\", "backtick": "`",
    "two-colons": "::", "two-semicolons": ";;", "cpp": "C++", "pp": "++",
}  # fmt: skip
"""AsciiDoc's built-in attributes that stand for a character: defined in every document, read literally."""
_SPACES = re.compile(r"(?<=\S)[ \t]{2,}(?=\S)")
_HOLD = re.compile(r"\x00(\d+)\x00")


def readable_id(target: str) -> str:
    """A cross reference's target as words when its title is unknown: ``install.adoc#_proxy_settings``
    reads "proxy settings" (Asciidoctor builds section ids from the title's words joined by ``_``)."""
    name = target.rsplit("#", 1)[-1] or target.rsplit("/", 1)[-1]
    name = re.sub(r"\.(?:adoc|asciidoc|asc|html?)$", "", name)
    return " ".join(re.split(r"[_\-]+", name)).strip() or target


def strip_tags(markup: str) -> str:
    """Raw HTML's text: tags, comments, scripts and styles dropped, entities resolved.

    Scripts, styles and comments are cut with ``str.find`` rather than a lazy pattern, so a thousand
    ``<script`` that never close cost one scan, not one each."""
    lower, kept, at = markup.lower(), [], 0
    while found := _HIDDEN.search(markup, at):
        kept.append(markup[at : found.start()])
        closing = "-->" if found.group(0) == "<!--" else f"</{found.group(1).lower()}"
        end = lower.find(closing, found.end())
        if end < 0:
            at = len(markup)
            break
        close = markup.find(">", end)
        at = close + 1 if close >= 0 else len(markup)
    kept.append(markup[at:])
    return html.unescape(_TAG.sub(" ", "".join(kept)))


class InlineAsciiDoc:
    """Renders one AsciiDoc paragraph, heading or cell as plain text; built once per document with its
    attributes (``:name: value`` entries, filled in as the reader meets them) and its section titles."""

    def __init__(self, attributes: Mapping[str, str], titles: Mapping[str, str]) -> None:
        self.attributes = attributes
        self.titles = titles

    def text(self, source: str) -> str:
        held: list[str] = []

        def hold(value: str) -> str:
            held.append(value)
            return f"\x00{len(held) - 1}\x00"

        def holding(group: int, template: Callable[[str], str] = lambda s: s) -> Callable[[re.Match[str]], str]:
            return lambda m: hold(template(m.group(group)))

        s = source.replace("\x00", "")
        s = _ESCAPED.sub(holding(1), s)
        s = _MONO_PASS.sub(holding(1, lambda code: f"`{code}`"), s)
        s = _TRIPLE_PASS.sub(lambda m: hold(strip_tags(m.group(1) if m.group(1) is not None else m.group(2))), s)
        s = _PASS_MACRO.sub(holding(1, strip_tags), s)
        s = _DOUBLE_PASS.sub(holding(1), s)
        s = _SINGLE_PASS.sub(lambda m: m.group(1) + hold(m.group(2)), s)
        s = _ATTRIBUTE.sub(lambda m: self._attribute(m.group(1).lower(), m.group(0), hold), s)
        s = _CURVED.sub(lambda m: m.group(1) + m.group(2) + m.group(1), s)
        s = _MONO.sub(self._code_span(hold), s)
        s = _MATH.sub(holding(1), s)
        s = _LINK_MACRO.sub(lambda m: _link_text(m.group(2)) or hold(m.group(1).strip("+")), s)  # link:https://...
        s = _URL_MACRO.sub(lambda m: _link_text(m.group(2)) or hold(m.group(1).removeprefix("mailto:")), s)
        s = _XREF_MACRO.sub(lambda m: _link_text(m.group(2)) or self._title_of(m.group(1)), s)
        s = _XREF.sub(lambda m: (m.group(2) or "").strip() or self._title_of(m.group(1)), s)
        s = _ANGLE_URL.sub(holding(1), s)
        s = _BARE_URL.sub(lambda m: _hold_url(m.group(0), hold), s)
        s = _ATTRIBUTE_LINK.sub(lambda m: _link_text(m.group(1)) or m.group(0), s)
        s = _ICON.sub("", s)
        s = _IMAGE.sub(lambda m: _positional(m.group(1)), s)
        s = _UI.sub(lambda m: m.group(2).strip(), s)
        s = _MENU.sub(lambda m: " > ".join(p.strip() for p in [m.group(1), *m.group(2).split(">")] if p.strip()), s)
        s = _FOOTNOTE.sub(lambda m: f" ({m.group(1).strip()})" if m.group(1).strip() else "", s)
        s = _INDEX_HIDDEN.sub("", s)
        s = _INDEX_SHOWN.sub(lambda m: m.group(1) if m.group(1) is not None else m.group(2), s)
        s = _ANCHOR.sub("", s)
        s = _UNCONSTRAINED.sub(lambda m: m.group(2), s)
        s = _CONSTRAINED.sub(lambda m: m.group(1) + m.group(3), s)
        s = _SUPER_SUB.sub(lambda m: m.group(2), s)
        s = _SYMBOL.sub(lambda m: _SYMBOLS[m.group(0)], s)
        s = _EM_DASH.sub("\u2014", s)
        s = _ENTITY.sub(lambda m: html.unescape(m.group(0)), s)
        for _ in range(4):  # a held span may hold another (a passthrough inside a code span)
            if "\x00" not in s:
                break
            s = _HOLD.sub(lambda m: held[int(m.group(1))], s)
        return "\n".join(_SPACES.sub(" ", line).strip() for line in s.split("\n"))

    def _attribute(self, name: str, reference: str, hold: Callable[[str], str]) -> str:
        """A ``{name}`` reference's value: the document's own, else a built-in character, else left as it is."""
        if name in self.attributes:
            return self.attributes[name]
        return hold(CHARACTER_ATTRIBUTES[name]) if name in CHARACTER_ATTRIBUTES else reference

    def _code_span(self, hold: Callable[[str], str]) -> Callable[[re.Match[str]], str]:
        def span(m: re.Match[str]) -> str:
            if m.group(1) is not None:
                return hold(f"`{m.group(1)}`")
            return m.group(2) + hold(f"`{m.group(3)}`")

        return span

    def _title_of(self, target: str) -> str:
        key = target.rsplit("#", 1)[-1] if "#" in target else target
        return self.titles.get(key) or readable_id(target)


def _link_text(attributes: str) -> str:
    """A link macro's text: its first attribute, without ``^`` (new window) and named attributes."""
    return _positional(attributes).removesuffix("^").strip()


def _positional(attributes: str) -> str:
    """The first positional attribute of ``[text, role=x]`` (quoted or not); empty when there is none."""
    attributes = attributes.strip()
    if attributes[:1] in ('"', "'"):
        end = attributes.find(attributes[0], 1)
        if end > 0:
            return attributes[1:end]
    first = attributes.split(",", 1)[0] if re.search(r",\s*\w+=", attributes) else attributes
    return "" if re.fullmatch(r"\w+=.*", first.strip()) else first.strip()


def _hold_url(url: str, hold: Callable[[str], str]) -> str:
    """A bare URL kept whole (its ``_`` are no emphasis); trailing sentence punctuation stays outside."""
    trail = re.search(r"[.,;:!?)]+$", url)
    cut = trail.start() if trail else len(url)
    return hold(url[:cut]) + url[cut:]
