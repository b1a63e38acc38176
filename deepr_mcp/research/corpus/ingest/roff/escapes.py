"""roff escape sequences to the characters a reader sees: fonts and sizes gone, named glyphs as text.

Escapes that draw, move or set state (``\\h``, ``\\v``, ``\\D``, ``\\X``, ``\\s``, ``\\m`` ...) leave
nothing; a glyph name nobody listed here leaves nothing either, rather than a stray backslash
in a passage. A string (``\\*(lq``) is expanded when it is defined (``reader``), so here it is
expanded once, to at most ``MAX_STRING`` characters, and a line's strings to at most a few times
the line's length: a page whose strings refer to themselves cannot blow up or loop.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping

MAX_STRING = 10_000

GLYPHS = {
    "lq": "“", "rq": "”", "oq": "‘", "cq": "’", "aq": "'", "dq": '"', "Bq": "„", "bq": "‚",
    "Fo": "«", "Fc": "»", "fo": "‹", "fc": "›",
    "em": "—", "en": "–", "hy": "-", "mi": "-", "pl": "+", "eq": "=", "ul": "_", "ru": "_", "rn": "‾",
    "bu": "•", "ci": "○", "sq": "□", "lz": "◊", "dg": "†", "dd": "‡", "ps": "¶", "sc": "§", "ba": "|",
    "br": "|", "bv": "|", "or": "|", "sl": "/", "rs": "\\", "ti": "~", "ha": "^", "ga": "`", "aa": "´",
    "a^": "^", "a~": "~", "ad": "¨", "ac": "¸", "ab": "˘", "ah": "ˇ", "ao": "˚", "a-": "¯",
    "at": "@", "sh": "#", "Do": "$", "ct": "¢", "Po": "£", "Ye": "¥", "Eu": "€", "eu": "€", "Cs": "¤",
    "co": "©", "rg": "®", "tm": "™", "de": "°", "%0": "‰", "fm": "′", "sd": "″", "mc": "µ",
    "mu": "×", "di": "÷", "+-": "±", "-+": "∓", "<=": "≤", ">=": "≥", "!=": "≠", "==": "≡", "=~": "≅",
    "~~": "≈", "ap": "∼", "pt": "∝", "if": "∞", "sr": "√", "no": "¬", "AN": "∧", "OR": "∨", "is": "∫",
    "pd": "∂", "gr": "∇", "mo": "∈", "nm": "∉", "sb": "⊂", "sp": "⊃", "ib": "⊆", "ip": "⊇", "ca": "∩",
    "cu": "∪", "es": "∅", "fa": "∀", "te": "∃", "st": "∋", "**": "∗", "md": "⋅", "pc": "·", "tf": "∴",
    "->": "→", "<-": "←", "<>": "↔", "da": "↓", "ua": "↑", "rA": "⇒", "lA": "⇐", "hA": "⇔", "uA": "⇑",
    "dA": "⇓", "an": "⎯", "ff": "ff", "fi": "fi", "fl": "fl", "Fi": "ffi", "Fl": "ffl", "ss": "ß",
    "ae": "æ", "AE": "Æ", "oe": "œ", "OE": "Œ", "/o": "ø", "/O": "Ø", "/l": "ł", "/L": "Ł", "-D": "Đ",
    "Sd": "ð", "TP": "Þ", "Tp": "þ", "IJ": "Ĳ", "ij": "ĳ", ".i": "ı", ".j": "ȷ", "r!": "¡", "r?": "¿",
    "12": "½", "14": "¼", "34": "¾", "S1": "¹", "S2": "²", "S3": "³", "Of": "ª", "Om": "º",
    "lh": "☜", "rh": "☞", "CR": "↵", "OK": "✓", "tno": "¬", "t+-": "±", "tmu": "×", "tdi": "÷",
    "lB": "[", "rB": "]", "lC": "{", "rC": "}", "la": "⟨", "ra": "⟩", "lt": "⎧", "rt": "⎫", "lk": "⎨",
    "rk": "⎬", "lb": "⎩", "rb": "⎭", "bracketleft": "[", "bracketright": "]", "braceleft": "{",
    "braceright": "}", "quotedbl": '"', "quoteright": "’", "quoteleft": "‘", "dollar": "$",
    "slash": "/", "backslash": "\\", "minus": "-", "hyphen": "-", "bullet": "•", "dash": "—",
}  # fmt: skip
"""groff_char(7) names, ASCII where the glyph is ASCII (``\\(aq`` is the quote a shell command needs)."""

GREEK = dict(zip("abgdezyhiklmncoprstufxqw", "αβγδεζηθικλμνξοπρστυφχψω", strict=True))
ACCENTS = {"'": "\u0301", "`": "\u0300", "^": "\u0302", ":": "\u0308", "~": "\u0303", ",": "\u0327",
           "v": "\u030c", "o": "\u030a", '"': "\u030b", "-": "\u0304"}  # fmt: skip

SIMPLE = {
    "-": "-", "e": "\\", "\\": "\\", ".": ".", "&": "", ")": "", "|": "", "^": "", " ": " ",
    "~": " ", "0": " ", "%": "", ":": "", "/": "", ",": "", "'": "'", "`": "`", "t": "\t", "a": "",
    "c": "", "p": "", "r": "", "u": "", "d": "", "{": "", "}": "", "!": "", "?": "", "z": "", "\n": "",
}  # fmt: skip
"""One-character escapes; ``\\'`` is an acute accent to groff, but pages use it as an apostrophe."""

_DELIMITED = frozenset("hvDXlLbxoSHwRNAZBCYVO")
"""Escapes that take a quoted argument (``\\h'-1p'``); the argument is read, then mostly dropped."""
_NAMED = frozenset("fFsmMgknVY*$")
"""Escapes whose argument is a name: one character, ``(xy`` or ``[long name]``."""

Strings = Mapping[str, str]


def glyph(name: str) -> str:
    """The text of a named character (``em``, ``'e``, ``*a``, ``u00E9``, ``char233``), or '' if unknown."""
    if name in GLYPHS:
        return GLYPHS[name]
    if len(name) == 2 and name[0] == "*" and name[1].lower() in GREEK:
        letter = GREEK[name[1].lower()]
        return letter.upper() if name[1].isupper() else letter
    if len(name) == 2 and name[0] in ACCENTS and name[1].isalpha():
        return unicodedata.normalize("NFC", name[1] + ACCENTS[name[0]])
    code = re.fullmatch(r"u([0-9A-Fa-f]{4,6})(?:_[0-9A-Fa-f_]+)?|char(\d{1,7})", name)
    if code:
        value = int(code.group(1), 16) if code.group(1) else int(code.group(2))
        if 32 <= value <= 0x10FFFF and not 0xD800 <= value <= 0xDFFF:
            return chr(value)
    return ""


def render(text: str, strings: Strings | None = None, *, expand_strings: bool = True) -> str:
    """``text`` with every escape replaced by what it prints; never raises, whatever the input."""
    if "\\" not in text:
        return text
    strings = strings or {}
    budget = 4 * len(text) + MAX_STRING  # characters strings may add to this line
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        j = text.find("\\", i)
        if j < 0:
            out.append(text[i:])
            break
        out.append(text[i:j])
        i = j + 1
        if i >= n:
            break
        kind = text[i]
        i += 1
        if kind == "E" and i < n:  # the escape character itself, not read in copy mode: same thing here
            kind = text[i]
            i += 1
        if kind == '"' or kind == "#":  # a comment to the end of the line
            k = text.find("\n", i)
            if k < 0:
                break
            i = k + (0 if kind == '"' else 1)
        elif kind == "(":
            out.append(glyph(text[i : i + 2]))
            i += 2
        elif kind == "[":
            k = text.find("]", i)
            k = n if k < 0 else k
            out.append(glyph(text[i:k].split(" ")[0]))
            i = k + 1
        elif kind in _NAMED:
            name, i = _name(text, i, sizes=kind == "s", signed=kind in "sn")
            if kind == "*" and expand_strings and budget > 0:
                value = render(strings.get(name.split(" ")[0], "")[:MAX_STRING], strings, expand_strings=False)
                budget -= len(value)
                out.append(value)
        elif kind in _DELIMITED:
            argument, i = _delimited(text, i)
            if kind in "oZ":  # overstruck or zero-width text: its letters, once
                out.append(render(argument, strings, expand_strings=False))
            elif kind == "C":
                out.append(glyph(argument))
            elif kind == "N" and argument.isdigit():
                out.append(glyph(f"char{argument}"))
            elif kind == "h" and argument[:1] not in ("-", ""):
                out.append(" ")
        else:
            out.append(SIMPLE.get(kind, kind))
    return "".join(out)


def _name(text: str, i: int, *, sizes: bool = False, signed: bool = False) -> tuple[str, int]:
    """A name after ``\\f``, ``\\*``, ...: ``x``, ``(xy`` or ``[long name]`` (``\\s`` also takes ``-1``)."""
    if i >= len(text):
        return "", i
    first = text[i]
    if first == "(":
        return text[i + 1 : i + 3], i + 3
    if first == "[":
        k = text.find("]", i)
        k = len(text) if k < 0 else k
        return text[i + 1 : k], k + 1
    if signed and first in "+-" and i + 1 < len(text):  # \s-1, \s+2, \n+x (but \*- is the string "-")
        return _name(text, i + 1, sizes=sizes)
    if first.isdigit():  # \f1, \s0, and \s12 (groff reads two digits when the first is 1-3)
        k = i + 1
        if sizes and k < len(text) and text[k].isdigit() and first in "123":
            k += 1
        return text[i:k], k
    if first == "'":  # \s'12'
        argument, k = _delimited(text, i)
        return argument, k
    return first, i + 1


def _delimited(text: str, i: int) -> tuple[str, int]:
    """The argument between a delimiter and its repeat (``'...'``); escapes inside are skipped over."""
    if i >= len(text):
        return "", i
    delimiter = text[i]
    k = i + 1
    while k < len(text) and text[k] != delimiter:
        if text[k] == "\n":
            break
        k += 2 if text[k] == "\\" else 1
    k = min(k, len(text))
    return text[i + 1 : k], k + 1
