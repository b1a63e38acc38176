"""AsciiDoc's line-level grammar: what a line opens, and the preprocessor pass before blocks are read.

The preprocessor runs over every line, code blocks included, as Asciidoctor's does: ``include::``
lines are dropped (a corpus adds files, it does not follow them), and ``ifdef``/``ifndef`` keep or
drop what they wrap by the attributes the document itself sets, as a render outside any build
(no ``env-github``, no ``backend``) would; ``ifeval`` cannot be evaluated here, so its content stays.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = [
    "ADMONITIONS",
    "BlockAttributes",
    "attribute_entry",
    "block_attributes",
    "delimiter",
    "description_item",
    "hard_breaks",
    "heading",
    "image_alt",
    "links_only",
    "list_item",
    "one_line",
    "preprocess",
    "section_id",
]

ADMONITIONS = ("NOTE", "TIP", "IMPORTANT", "WARNING", "CAUTION")
_DELIMITER = re.compile(r"(-{4,}|\.{4,}|={4,}|\*{4,}|_{4,}|\+{4,}|/{4,}|--|[|,:!]={3,}|```.*)")
_ATTRIBUTE_ENTRY = re.compile(r"^:(!?)(\w[\w-]*?)(!?):(?:[ \t]+(.*))?$")
_CONDITIONAL = re.compile(r"^(ifdef|ifndef|ifeval|endif)::([^\[]*)\[(.*)\]$")
_ESCAPED_DIRECTIVE = re.compile(r"^\\(?:include|ifdef|ifndef|ifeval|endif)::")
_ATX = re.compile(r"^(={1,6}|#{1,6})[ \t]+(\S.*)$")
_SETEXT = {"=": 0, "-": 1, "~": 2, "^": 3, "+": 4}
_LIST = re.compile(r"^[ \t]*(\*{1,5}|-|\.{1,5}|\d{1,9}\.|[a-zA-Z]\.|[IVXivx]{1,9}\)|<(?:\d{1,3}|\.)>)[ \t]+(\S.*)$")
_DESCRIPTION = re.compile(r"(?<=\S)(:{2,4}|;;)(?=[ \t]|$)")
_ATTRIBUTE_LIST = re.compile(r"^\[(|[\w.#%{,\"'].*)\]$")
_LINKS_ONLY = re.compile(
    r"(?:\s*(?:xref:[^\s\[]+\[[^\]]*\]|<<[^>]+>>|link:[^\s\[]+\[[^\]]*\]|https?://[^\s\[]+\[[^\]]*\])[\s,;|]*)+"
)
_ANCHOR_LINE = re.compile(r"^\[\[([A-Za-z_:][\w:.-]*)(?:,[^\]]*)?\]\]$")


@dataclass
class BlockAttributes:
    """What ``[style,positional,name=value]`` lines and ``[[id]]`` anchors say about the next block."""

    positional: list[str] = field(default_factory=list)
    named: dict[str, str] = field(default_factory=dict)
    id: str = ""

    @property
    def style(self) -> str:
        return self.positional[0] if self.positional else ""

    @property
    def attribution(self) -> str:
        """A quote's or verse's ``[quote, Author, Source]``, as "Author, Source"; empty for other blocks."""
        if self.style.lower() not in ("quote", "verse"):
            return ""
        return ", ".join(p.strip() for p in self.positional[1:3] if p.strip())


def preprocess(lines: list[str]) -> list[str]:
    """The lines a reader sees: include directives dropped, conditionals decided (see the module doc)."""
    defined: set[str] = set()
    keeping: list[bool] = []  # one per open conditional: whether its content is kept
    out: list[str] = []
    for line in lines:
        found = _CONDITIONAL.match(line)
        if found:
            directive, names, inline = found.groups()
            if directive == "endif":
                if keeping:
                    keeping.pop()
                continue
            if directive == "ifeval":
                keep = True
            else:
                wanted = [n.strip().lower() for n in re.split(r"[,+]", names) if n.strip()]
                hits = [n in defined for n in wanted]
                present = (all(hits) if "+" in names else any(hits)) if hits else False
                keep = present if directive == "ifdef" else not present
            if inline and directive != "ifeval":
                if keep and all(keeping):
                    out.append(inline)
                continue
            keeping.append(keep)
            continue
        if not all(keeping):
            continue
        if line.startswith("include::"):
            continue
        if _ESCAPED_DIRECTIVE.match(line):  # shown, not run: the backslash goes
            line = line[1:]
        entry = _ATTRIBUTE_ENTRY.match(line)
        if entry:
            name = entry.group(2).lower()
            if entry.group(1) or entry.group(3):
                defined.discard(name)
            else:
                defined.add(name)
        out.append(line)
    return out


def attribute_entry(line: str) -> tuple[str, str | None] | None:
    """``(name, value)`` of a ``:name: value`` line, value ``None`` for ``:name!:``; ``None`` otherwise."""
    found = _ATTRIBUTE_ENTRY.match(line)
    if found is None:
        return None
    unset = bool(found.group(1) or found.group(3))
    return found.group(2).lower(), None if unset else (found.group(4) or "").strip()


def delimiter(line: str) -> str | None:
    """The block delimiter this line is (``----``, ``====``, ``|===``, a ````` fence ...), if any."""
    return line if _DELIMITER.fullmatch(line) else None


def heading(line: str, following: str) -> tuple[int, str, int] | None:
    """``(level, title, lines used)`` when ``line`` is a section title: ``== Title`` (or Markdown's ``#``),
    or a title over an underline of ``=-~^+`` as long as it, give or take one (AsciiDoc 1's style)."""
    atx = _ATX.match(line)
    if atx:
        marker, title = atx.groups()
        title = title.rstrip()
        if title.endswith(" " + marker):
            title = title[: -len(marker)].rstrip()
        return len(marker) - 1, title, 1
    if not following or following[0] not in _SETEXT or following.strip(following[0]):
        return None
    title = line.strip()
    if (
        len(following) < 2
        or abs(len(line) - len(following)) > 1
        or line[:1] in (" ", "\t", ".", "[", "/", "|", ":")
        or not re.search(r"\w", title)
        or delimiter(line) is not None
        or list_item(line) is not None
    ):
        return None
    return _SETEXT[following[0]], title, 2


def list_item(line: str) -> tuple[str, str] | None:
    """``(marker, text)`` of a list item line: ``*``/``-`` bullets, ``.`` or ``1.`` numbers, ``<1>`` callouts."""
    found = _LIST.match(line)
    return (found.group(1), found.group(2)) if found else None


def description_item(line: str) -> tuple[str, str] | None:
    """``(term, description)`` of a ``term:: description`` (or ``term;;``) line; description may be empty."""
    if line.startswith("//") or line.lstrip()[:1] in ("[", "."):
        return None
    found = _DESCRIPTION.search(line)
    if found is None or _ATX.match(line):
        return None
    term = line[: found.start()].strip()
    return term, line[found.end() :].strip()


def block_attributes(line: str, into: BlockAttributes) -> bool:
    """Reads a ``[...]`` attribute line or a ``[[id]]`` anchor line into ``into``; False if it is neither."""
    anchor = _ANCHOR_LINE.match(line)
    if anchor:
        into.id = anchor.group(1)
        return True
    found = _ATTRIBUTE_LIST.match(line)
    if found is None:
        return False
    for k, raw in enumerate(_split_attributes(found.group(1))):
        name, eq, value = raw.partition("=")
        if eq and re.fullmatch(r"[\w-]+", name.strip()):
            into.named[name.strip().lower()] = value.strip().strip("\"'")
            continue
        value = raw.strip().strip("\"'")
        if k == 0:  # the style, with #id, .role and %option shorthands
            shorthand = re.match(r"^([^#.%]*)(.*)$", value)
            value = shorthand.group(1) if shorthand else value
            if shorthand and (ident := re.search(r"#([\w:.-]+)", shorthand.group(2))):
                into.id = ident.group(1)
            if shorthand and "%header" in shorthand.group(2):
                into.named["options"] = "header"
        into.positional.append(value)
    return True


def _split_attributes(body: str) -> list[str]:
    """Splits at commas outside double quotes."""
    parts, current, quoted = [], [], False
    for char in body:
        if char == '"':
            quoted = not quoted
        if char == "," and not quoted:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return parts


def section_id(title: str, attributes: dict[str, str]) -> str:
    """The id Asciidoctor gives a section from its title (``idprefix`` ``_``, ``idseparator`` ``_``)."""
    prefix = attributes.get("idprefix", "_")
    separator = attributes.get("idseparator", "_")
    words = re.sub(r"&#?\w+;|[^\w \-.]+", "", title.lower())
    joined = re.sub(r"[ .\-]+", separator, words.strip()) if separator else re.sub(r"[ .\-]+", "", words)
    return prefix + joined.strip(separator or " ")


def links_only(source: str) -> bool:
    """Whether a list item's source is nothing but cross references or links (a navigation entry)."""
    return bool(_LINKS_ONLY.fullmatch(source))


def hard_breaks(lines: list[str]) -> list[str]:
    """Lines with AsciiDoc's hard line break marker (a trailing `` +``) removed; the break itself stays."""
    return [line[:-2].rstrip() if line.endswith(" +") else line for line in lines]


def one_line(lines: list[str]) -> str:
    """A list item's or a description's wrapped lines as one line, hard line breaks (`` +``) kept."""
    return "".join(line[:-2].rstrip() + "\n" if line.endswith(" +") else line + " " for line in lines).strip()


def image_alt(attributes: str) -> str:
    """An image macro's alt text: ``alt=`` or its first positional attribute; empty when it has none."""
    first = attributes.split(",", 1)[0].strip().strip("\"'")
    named = re.search(r"(?:^|,)\s*alt=\"?([^,\"]*)", attributes)
    return named.group(1).strip() if named else ("" if "=" in first else first)
