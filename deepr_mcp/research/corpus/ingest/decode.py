"""Bytes to text: UTF-8 (with or without BOM), UTF-16 with a BOM, or the charset an HTML page declares.

An HTML page that declares nothing and is not UTF-8 is read as windows-1252, as every browser reads it
(the WHATWG encoding standard's default for a page with no declaration, in English and most Western
locales): the legacy pages of old documentation folders were written that way, and a user who opens
one sees it whole. Any other text that is not UTF-8 is refused with a message that says what to do,
rather than guessed: a wrong guess puts mojibake into passages that nobody can search for.
"""

from __future__ import annotations

import codecs
import re
from pathlib import Path

from deepr_mcp.errors import InvalidInput

_DECLARED = re.compile(
    rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:\-]+)|<\?xml[^>]+encoding\s*=\s*["']([A-Za-z0-9_.:\-]+)""",
    re.I,
)


LEGACY_HTML = "cp1252"
"""How a browser reads an HTML page that declares no charset and is not UTF-8 (windows-1252)."""


def declared_charset(raw: bytes) -> str | None:
    """The charset named by ``<meta charset>``, ``http-equiv`` content or an XML declaration, if any."""
    match = _DECLARED.search(raw[:4096])
    if match is None:
        return None
    return (match.group(1) or match.group(2)).decode("ascii").lower()


def decode(path: Path | str, raw: bytes, *, html: bool = False) -> str:
    if raw.startswith(codecs.BOM_UTF8):
        return _strict(path, raw[3:], "utf-8")
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return _strict(path, raw, "utf-16")
    if b"\x00" in raw[:8192]:
        raise InvalidInput(f"{path}: looks binary (contains NUL bytes), not a text document")
    charset = declared_charset(raw) if html else None
    if charset and charset not in ("utf-8", "utf8"):
        try:
            codec = codecs.lookup(charset).name
        except LookupError:
            raise InvalidInput(f"{path}: declares charset {charset!r}, which is not a known encoding") from None
        # Browsers replace the odd bad byte of a page that declares its charset; so do we.
        return raw.decode(codec, errors="replace")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        if html:
            return raw.decode(LEGACY_HTML, errors="replace")  # the five bytes windows-1252 leaves unmapped
        raise InvalidInput(
            f"{path}: not UTF-8 text (invalid byte at offset {exc.start}); convert it to UTF-8 first"
        ) from None


def _strict(path: Path | str, raw: bytes, encoding: str) -> str:
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"{path}: has a {encoding} byte-order mark but byte {exc.start} is not {encoding}") from None
