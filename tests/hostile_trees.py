"""Trees no server call can make, planted straight on disk, and a snapshot to show nothing changed."""

from __future__ import annotations

import os
from pathlib import Path


def plant_hostile_tree(root: Path, depth: int = 2000, *, outside: Path | None = None) -> None:
    """What no server call can make, planted straight on disk: ``depth`` nested folders ``d/d/...``
    with a file, a symlink (to ``outside``, or /etc) and a FIFO at the bottom, and a link and a
    FIFO at the top. Made by descriptor: the absolute path would be past the kernel's PATH_MAX."""
    target = str(outside or "/etc")
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.symlink(target, "top-link", dir_fd=fd)
        os.mkfifo("top-pipe", dir_fd=fd)
        for _ in range(depth):
            os.mkdir("d", dir_fd=fd)
            child = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = child
        out = os.open("bottom.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(out, b"deep")
        os.close(out)
        os.symlink(target, "bottom-link", dir_fd=fd)
        os.mkfifo("bottom-pipe", dir_fd=fd)
    finally:
        os.close(fd)


def tree_snapshot(root: Path) -> dict[str, tuple[str, bytes]]:
    """Every name below ``root`` (a shallow tree) with its kind and, for files, its bytes."""
    found: dict[str, tuple[str, bytes]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames:
            found[os.path.relpath(os.path.join(dirpath, name), root)] = ("dir", b"")
        for name in filenames:
            path = os.path.join(dirpath, name)
            data = b"" if os.path.islink(path) or not os.path.isfile(path) else Path(path).read_bytes()
            found[os.path.relpath(path, root)] = ("file", data)
    return found
