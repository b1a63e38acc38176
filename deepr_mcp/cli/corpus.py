"""``deepr-mcp corpus``: add, search and list the documents research draws on."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from deepr_mcp.cli.args import settings_for as _settings
from deepr_mcp.errors import InvalidInput

if TYPE_CHECKING:
    from deepr_mcp.embedding import Embedder
    from deepr_mcp.research.corpus.storage import Corpus


def add_corpus_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    corpus = sub.add_parser("corpus", help="the documents research draws on")
    corpus_sub = corpus.add_subparsers(dest="corpus_command", required=True)
    corpus_add = corpus_sub.add_parser("add", help="add files or folders (.md .txt .rst .adoc .html .pdf, man pages)")
    corpus_add.add_argument("paths", nargs="+", type=Path)
    corpus_add.add_argument(
        "--exclude", action="append", default=[], metavar="GLOB", help="skip matching files or folders (repeatable)"
    )
    corpus_search = corpus_sub.add_parser("search", help="search passages")
    corpus_search.add_argument("query")
    corpus_search.add_argument("--limit", type=int, default=5)
    corpus_search.add_argument(
        "--mode",
        choices=("lexical", "semantic", "hybrid"),
        default=None,
        help="by words, by meaning, or both fused (default: the research.retrieval setting, hybrid)",
    )
    corpus_sub.add_parser("list", help="list documents and how many passages are embedded")
    corpus_embed = corpus_sub.add_parser(
        "embed", help="embed the passages that have no vector yet (after an interruption or a model change)"
    )
    corpus_embed.add_argument("--rebuild", action="store_true", help="drop every stored vector and embed all again")


def embed_with_progress(corpus: Corpus, embedder: Embedder, stream: TextIO) -> None:
    """Embed what has no vector yet, with a progress line (``\r`` on a terminal, plain lines in a pipe)."""
    from deepr_mcp.research.corpus.backfill import embed_pending

    terminal = stream.isatty()
    shown = [0.0]

    def progress(done: int, total: int, seconds: float) -> None:
        rate = done / seconds if seconds > 0 else 0.0
        eta = (total - done) / rate if rate > 0 else 0.0
        line = f"embedding {done:,}/{total:,} passages ({rate:.0f}/s, {eta:.0f} s left)"
        if terminal:
            stream.write(f"\r{line}")
        elif done == total or seconds - shown[0] >= 10:
            shown[0] = seconds
            stream.write(line + "\n")
        stream.flush()

    done = embed_pending(corpus, embedder, progress=progress)
    if terminal and done:
        stream.write("\n")
    status = corpus.embedding_status(embedder.name)
    embedded, passages = status["embedded"], status["passages"]
    stream.write(f"searchable by meaning: {embedded:,} of {passages:,} passages ({embedder.name})\n")


def no_documents(data_dir: Path) -> str:
    return (
        f"no documents yet: the corpus in {data_dir} is empty; add some with `deepr-mcp corpus add PATH` "
        "(files or folders: .md .txt .rst .adoc .html .pdf, man pages)"
    )


def cmd_corpus(args: argparse.Namespace) -> int:
    from deepr_mcp.embedding import make_embedder
    from deepr_mcp.research.corpus.storage import Corpus
    from deepr_mcp.research.retrieval.hybrid import HybridSearch

    settings = _settings(args)
    corpus = Corpus(
        settings.data_dir / "corpus.db",
        max_bytes=settings.corpus.max_file_bytes,
        pdf_memory_bytes=settings.corpus.pdf_reader_memory_bytes,
    )
    embedder = make_embedder(settings.research.embedder)
    try:
        if args.corpus_command == "add":
            from deepr_mcp.research.corpus.ingest import for_stream

            new_failures = 0
            for path in args.paths:  # a bar on a terminal, plain lines in a pipe or CI; each failure once
                report = corpus.add_path(path, exclude=args.exclude, progress=for_stream(sys.stdout))
                new_failures += report.new_failures
            embed_with_progress(corpus, embedder, sys.stdout)  # in the foreground: interrupted, `corpus embed` goes on
            return 1 if new_failures else 0  # a file that failed the same way last time is not news
        if args.corpus_command == "embed":
            if args.rebuild:
                print(f"dropped {corpus.forget_embeddings():,} stored vectors")
            embed_with_progress(corpus, embedder, sys.stdout)
            return 0
        if args.corpus_command == "search":
            if not 1 <= args.limit <= 200:
                raise InvalidInput(f"--limit must be 1-200, got {args.limit}")
            if corpus.stats()["documents"] == 0:
                print(no_documents(settings.data_dir))
                return 1
            mode = args.mode or settings.research.retrieval
            hits = HybridSearch(corpus, embedder).search(args.query, args.limit, mode)
            if not hits:
                print(f"no passage matches {args.query!r} in {corpus.stats()['documents']} documents; try other words")
                return 1
            for hit in hits:
                print(f"{hit.score:7.3f}  {hit.source} [{hit.location}]\n         {hit.text[:160]}")
            return 0
        documents = corpus.documents()
        if not documents:
            print(no_documents(settings.data_dir))
        for doc in documents:
            print(f"{doc.passages:5d} passages  {doc.bytes:9,d} bytes  {doc.path}")
        status = corpus.embedding_status(embedder.name)
        if embedder.dimensions and status["passages"]:
            print(f"embedded: {status['embedded']:,} of {status['passages']:,} passages ({embedder.name})")
        return 0
    finally:
        corpus.close()
