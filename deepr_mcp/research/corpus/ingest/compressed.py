"""Gzip-compressed documents (``NEWS.md.gz``) read as the document inside, one layer, with a size cap.

Debian compresses most of ``/usr/share/doc``; skipping ``.gz`` left much of it out. The name without
``.gz`` says the format (``python-policy.txt.gz`` is plain text), and a file that is still a gzip
after one layer is refused, never unpacked again. A small file may inflate to gigabytes (a gzip
bomb): it is inflated as a stream and refused once it passes the per-file limit that plain files
have, so no more than that limit plus one byte is ever held.
"""

from __future__ import annotations

import gzip
import io
import zlib
from pathlib import Path, PurePath

from deepr_mcp.errors import InvalidInput
from deepr_mcp.research.corpus.ingest.regular import LIMIT_SETTING

SUFFIX = ".gz"
_MAGIC = b"\x1f\x8b"


def is_compressed(path: PurePath) -> bool:
    return path.suffix.lower() == SUFFIX


def inner_name(path: PurePath) -> PurePath:
    """The document's own name: ``NEWS.md.gz`` -> ``NEWS.md``; any other path as it is."""
    return path.with_suffix("") if is_compressed(path) else path


def inflate(path: Path, raw: bytes, max_bytes: int) -> bytes:
    """The bytes inside ``raw`` (a gzip file), at most ``max_bytes``; ``InvalidInput`` says what is wrong."""
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(raw), mode="rb") as stream:
            data = stream.read(max_bytes + 1)
    except EOFError:
        raise InvalidInput(f"{path}: the gzip data is truncated (it ends before its end marker)") from None
    except gzip.BadGzipFile as exc:
        raise InvalidInput(f"{path}: has a .gz name but is not valid gzip data ({exc})") from None
    except zlib.error as exc:
        raise InvalidInput(f"{path}: the gzip data is damaged ({exc})") from None
    if len(data) > max_bytes:
        raise InvalidInput(
            f"{path}: decompresses to more than the {max_bytes:,}-byte limit per file {LIMIT_SETTING}; "
            "refused without unpacking the rest"
        )
    if data.startswith(_MAGIC):
        raise InvalidInput(f"{path}: holds another gzip file inside; only one layer of compression is read")
    return data
