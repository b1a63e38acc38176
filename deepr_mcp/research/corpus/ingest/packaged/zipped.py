"""Reading a zip package's members with the limits a hostile file needs.

A small package may inflate to gigabytes (a zip bomb), list a million members, lie in its headers about
sizes, or be encrypted. Members are read as streams and refused once the package's inflated total
passes the per-file limit plain files have; XML members that declare a DTD are refused, since no Office
or EPUB part needs one and entity declarations are how XML bombs and external-entity reads work.
"""

from __future__ import annotations

import io
import zipfile
import zlib
from pathlib import Path
from xml.etree import ElementTree

from deepr_mcp.errors import InvalidInput
from deepr_mcp.research.corpus.ingest.regular import LIMIT_SETTING

MAX_MEMBERS = 10_000
"""More entries than any real document package holds (a large EPUB has a few thousand)."""


class Package:
    """One zip file's members by name, read under one inflated-bytes budget."""

    def __init__(self, path: Path, raw: bytes, max_bytes: int, kind: str) -> None:
        self.path, self.kind, self.left = path, kind, max_bytes
        self.max_bytes = max_bytes
        try:
            self.zip = zipfile.ZipFile(io.BytesIO(raw))
            infos = self.zip.infolist()
        except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError) as exc:
            raise InvalidInput(f"{path}: is not a readable {kind} file (a {kind} is a zip package: {exc})") from None
        if len(infos) > MAX_MEMBERS:
            raise InvalidInput(f"{path}: lists {len(infos):,} entries; a {kind} may hold at most {MAX_MEMBERS:,}")
        self.names = {info.filename: info for info in infos}

    def has(self, name: str) -> bool:
        return name in self.names

    def read(self, name: str) -> bytes:
        """A member's bytes; ``InvalidInput`` when it is missing, encrypted, damaged or over the budget."""
        info = self.names.get(name)
        if info is None:
            raise InvalidInput(f"{self.path}: this {self.kind} has no {name!r} part")
        if info.flag_bits & 0x1:
            raise InvalidInput(f"{self.path}: is encrypted (password-protected); save an unprotected copy to add it")
        try:
            with self.zip.open(info) as stream:
                data = stream.read(self.left + 1)
        except (zipfile.BadZipFile, zlib.error, OSError, EOFError, NotImplementedError, RuntimeError) as exc:
            raise InvalidInput(f"{self.path}: its {name!r} part is damaged ({exc})") from None
        self.left -= len(data)
        if self.left < 0:
            raise InvalidInput(
                f"{self.path}: decompresses to more than the {self.max_bytes:,}-byte limit per file {LIMIT_SETTING}; "
                "refused without unpacking the rest"
            )
        return data

    def xml(self, name: str) -> ElementTree.Element:
        """A member parsed as XML, refused if it declares a DTD (see the module's note)."""
        data = self.read(name)
        if b"<!DOCTYPE" in data[:4096].upper() or b"<!ENTITY" in data.upper():
            raise InvalidInput(f"{self.path}: its {name!r} part declares a DTD, which no {self.kind} needs; refused")
        try:
            return ElementTree.fromstring(data)
        except ElementTree.ParseError as exc:
            raise InvalidInput(f"{self.path}: its {name!r} part is not well-formed XML ({exc})") from None
