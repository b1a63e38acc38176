"""Small Word, EPUB and notebook files built in the test, from made-up kiln-manual text."""

from __future__ import annotations

import io
import json
import zipfile
from typing import Any

W_NS = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def zipped(members: dict[str, bytes | str], *, stored: bool = False) -> bytes:
    buffer = io.BytesIO()
    mode = zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED
    with zipfile.ZipFile(buffer, "w", mode) as package:
        for name, data in members.items():
            package.writestr(name, data)
    return buffer.getvalue()


def para(text: str, style: str = "", *, listed: bool = False, deleted: str = "") -> str:
    props = f'<w:pStyle w:val="{style}"/>' if style else ""
    props += '<w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr>' if listed else ""
    gone = f"<w:del><w:r><w:delText>{deleted}</w:delText></w:r></w:del>" if deleted else ""
    return f'<w:p><w:pPr>{props}</w:pPr>{gone}<w:r><w:t xml:space="preserve">{text}</w:t></w:r></w:p>'


STYLES = f"""<?xml version="1.0" encoding="UTF-8"?>
<w:styles {W_NS}>
  <w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/></w:style>
  <w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style>
  <w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/></w:style>
  <w:style w:type="paragraph" w:styleId="ListBullet">
    <w:name w:val="List Bullet"/><w:pPr><w:numPr><w:numId w:val="1"/></w:numPr></w:pPr>
  </w:style>
  <w:style w:type="paragraph" w:styleId="KilnHeading">
    <w:name w:val="Kiln Heading"/><w:basedOn w:val="Heading2"/>
  </w:style>
</w:styles>"""


def docx(*paragraphs: str, styles: str = STYLES) -> bytes:
    body = "".join(paragraphs)
    document = f'<?xml version="1.0" encoding="UTF-8"?><w:document {W_NS}><w:body>{body}</w:body></w:document>'
    return zipped({"[Content_Types].xml": "<Types/>", "word/document.xml": document, "word/styles.xml": styles})


def table(*rows: tuple[str, ...]) -> str:
    cells = "".join(
        "<w:tr>" + "".join(f"<w:tc><w:p><w:r><w:t>{c}</w:t></w:r></w:p></w:tc>" for c in row) + "</w:tr>"
        for row in rows
    )
    return f"<w:tbl>{cells}</w:tbl>"


CONTAINER = """<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles>
</container>"""


def chapter(title: str, body: str) -> str:
    return (
        '<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml">'
        f"<head><title>{title}</title></head><body>{body}</body></html>"
    )


def epub(chapters: dict[str, str], order: list[str]) -> bytes:
    items = "".join(f'<item id="{name}" href="{name}" media-type="application/xhtml+xml"/>' for name in chapters)
    spine = "".join(f'<itemref idref="{name}"/>' for name in order)
    opf = (
        '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0">'
        f"<manifest>{items}</manifest><spine>{spine}</spine></package>"
    )
    members: dict[str, bytes | str] = {"mimetype": "application/epub+zip", "META-INF/container.xml": CONTAINER}
    members["OEBPS/content.opf"] = opf
    members.update({f"OEBPS/{name}": text for name, text in chapters.items()})
    return zipped(members)


OUTPUT = {"outputs": [{"output_type": "stream", "name": "stdout", "text": "1200"}]}


def notebook(*cells: tuple[str, str | list[str]], language: str = "python", **extra: Any) -> bytes:
    body = {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {"language_info": {"name": language}},
        "cells": [
            {
                "cell_type": kind,
                "source": source,
                "metadata": {},
                **({"outputs": [{"text": "1200"}]} if kind == "code" else {}),
            }
            for kind, source in cells
        ],
        **extra,
    }
    return json.dumps(body).encode()


ODT_NS = (
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
    'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"'
)


def odt(body: str) -> bytes:
    content = (
        f'<?xml version="1.0" encoding="UTF-8"?><office:document-content {ODT_NS}>'
        f"<office:body><office:text>{body}</office:text></office:body></office:document-content>"
    )
    return zipped({"mimetype": "application/vnd.oasis.opendocument.text", "content.xml": content})


def encrypted(raw: bytes) -> bytes:
    """``raw`` with every entry flagged as encrypted, in the local headers and the central directory."""
    locked = bytearray(raw)
    for signature, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        start = 0
        while (at := locked.find(signature, start)) >= 0:
            locked[at + offset] |= 0x1
            start = at + 4
    return bytes(locked)


def entity_bomb() -> bytes:
    """A Word package whose body declares nested XML entities ("billion laughs")."""
    laughs = (
        '<?xml version="1.0"?><!DOCTYPE w:document [<!ENTITY a "haha"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>'
        f"<w:document {W_NS}><w:body><w:p><w:r><w:t>&b;</w:t></w:r></w:p></w:body></w:document>"
    )
    return zipped({"word/document.xml": laughs, "word/styles.xml": STYLES})
