"""Path rules for sandbox files, applied before any file system call.

Paths are relative, split into components (``/`` and ``\\`` both separate), and normalised
lexically. That is sound only because the operations in ``fs.py`` never follow a symlink:
``..`` can then only mean the parent directory inside the sandbox.
"""

from __future__ import annotations

import re

from deepr_mcp.errors import PathRejected

NAME_MAX = 255
PATH_MAX = 4096
_DRIVE = re.compile(r"^[A-Za-z]:")
_CAMPAIGN_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def check_sandbox_id(sandbox_id: str) -> str:
    if not _CAMPAIGN_ID.match(sandbox_id):
        raise PathRejected(sandbox_id, "bad_id", "a sandbox id is 1-64 letters, digits, '_' or '-'")
    return sandbox_id


def _short(path: str) -> str:
    return path if len(path) <= 80 else path[:80] + "…"


def split_path(path: str, *, allow_root: bool = False, max_depth: int | None = None) -> list[str]:
    """Validated components of ``path`` relative to the sandbox root; ``[]`` is the root itself.

    Every limit is checked here, before any file system call, so a refused write creates nothing.
    """
    if not isinstance(path, str):
        raise PathRejected(repr(path), "not_text", "a path must be a string")
    if "\x00" in path:
        raise PathRejected(path, "nul_byte", "paths may not contain NUL bytes")
    if path.startswith(("\\\\", "//")):
        raise PathRejected(path, "unc", "UNC and network paths (\\\\server\\share, //host) are not allowed")
    if _DRIVE.match(path):
        raise PathRejected(path, "drive", "Windows drive paths (C:\\, C:) are not allowed; use a relative path")
    if path.startswith(("/", "\\")):
        raise PathRejected(path, "absolute", "absolute paths are not allowed; use a path relative to the sandbox")
    if (size := len(path.encode("utf-8", "surrogatepass"))) > PATH_MAX:
        raise PathRejected(
            _short(path),
            "path_too_long",
            f"this path is {size:,} bytes; paths are limited to {PATH_MAX} bytes (UTF-8; fixed, not a setting)",
        )
    parts: list[str] = []
    for raw in re.split(r"[\\/]", path):
        if raw in ("", "."):
            continue
        if raw == "..":
            if not parts:
                raise PathRejected(path, "parent_escape", "'..' would leave the sandbox")
            parts.pop()
            continue
        if (size := len(raw.encode("utf-8", "surrogatepass"))) > NAME_MAX:
            raise PathRejected(
                _short(path),
                "name_too_long",
                f"a name here is {size} bytes; each file or folder name is limited to {NAME_MAX} bytes"
                " (UTF-8; the file system's limit, not a setting)",
            )
        if _DRIVE.match(raw):
            raise PathRejected(path, "drive", "drive-qualified names are not allowed")
        parts.append(raw)
    if max_depth is not None and len(parts) > max_depth:
        raise PathRejected(
            _short(path),
            "too_deep",
            f"this path is {len(parts)} levels deep; a sandbox path may have at most {max_depth}"
            " (folders plus the file name; setting sandbox.max_depth)",
        )
    if not parts and not allow_root:
        raise PathRejected(path, "empty", "the path names no file; give a relative file path such as 'notes/a.md'")
    return parts
