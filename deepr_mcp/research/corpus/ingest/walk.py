"""Which files a folder contributes, and the name each is shown under.

Excludes are globs matched against the path relative to the added folder (``library/*``,
``**/genindex*.html``) and against every folder or file name on it (``_sources``, ``*.pdf``).
By default hidden entries, ``node_modules``/``__pycache__`` and two copies of text that a rendered
page already holds are left out: the ``_sources`` folder that Sphinx writes next to its HTML, and
a page's source beside it (see ``twins``). Each left-out file is counted with its reason.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path, PurePosixPath

from deepr_mcp.research.corpus.ingest.formats import is_supported
from deepr_mcp.research.corpus.ingest.twins import RENDERED_SOURCE, rendered_sources

ALWAYS_SKIPPED = frozenset({"node_modules", "__pycache__"})
SPHINX_BUILD_MARKERS = ("objects.inv", "searchindex.js")
BY_PATTERN = "an exclude pattern"
SPHINX_SOURCES = "Sphinx's _sources copy of its HTML pages"


@dataclass(slots=True)
class FileSet:
    root: Path
    files: list[tuple[Path, str]] = field(default_factory=list)
    """``(absolute path, display name)`` in a stable order."""
    excluded: int = 0
    """Supported files left out by an exclude pattern or a default rule."""
    excluded_why: Counter[str] = field(default_factory=Counter)
    """How many of ``excluded`` each reason left out."""
    escaped: list[tuple[Path, str]] = field(default_factory=list)
    """Symbolic links (to files or folders) that ``escapes`` said lead out: not followed."""

    def exclude(self, reason: str, count: int = 1) -> None:
        if count:
            self.excluded += count
            self.excluded_why[reason] += count


def excluded_by(relative: str, patterns: Sequence[str]) -> bool:
    parts = PurePosixPath(relative).parts
    for pattern in patterns:
        pattern = pattern.strip().rstrip("/")
        if not pattern:
            continue
        if fnmatchcase(relative, pattern) or fnmatchcase(relative, pattern.removeprefix("**/")):
            return True
        if "/" not in pattern and any(fnmatchcase(part, pattern) for part in parts):
            return True
    return False


def files_under(root: Path, exclude: Sequence[str] = (), *, escapes: Callable[[Path], bool] | None = None) -> FileSet:
    """Supported files under ``root`` (a folder), sorted, named by their path relative to it.

    Linked folders are never walked into; ``escapes`` (when given) picks out the links, to files
    or folders, that lead somewhere a caller may not read: they are listed in ``escaped``.
    """
    found = FileSet(root)
    for folder, dirs, files in os.walk(root, followlinks=False):
        here = Path(folder)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in ALWAYS_SKIPPED)
        if escapes is not None:
            for name in [d for d in dirs if escapes(here / d)]:
                found.escaped.append((here / name, (here / name).relative_to(root).as_posix()))
                dirs.remove(name)
        if "_sources" in dirs and any((here / m).is_file() for m in SPHINX_BUILD_MARKERS):
            found.exclude(SPHINX_SOURCES, sum(1 for _ in _supported_files(here / "_sources")))
            dirs.remove("_sources")
        kept: list[tuple[Path, str]] = []
        for name in sorted(files):
            path = here / name
            if name.startswith(".") or not is_supported(path):
                continue
            relative = path.relative_to(root).as_posix()
            if excluded_by(relative, exclude):
                found.exclude(BY_PATTERN)
            elif escapes is not None and escapes(path):
                found.escaped.append((path, relative))
            else:
                kept.append((path, relative))
        sources = rendered_sources([path.name for path, _ in kept])
        found.exclude(RENDERED_SOURCE, len(sources))
        found.files += [(path, relative) for path, relative in kept if path.name not in sources]
    return found


def _supported_files(folder: Path) -> Iterator[str]:
    for sub, _, files in os.walk(folder):
        yield from (f for f in files if is_supported(Path(sub, f)))
