"""``deepr-mcp corpus``: add, search and list the documents research draws on."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from deepr_mcp.cli.args import settings_for as _settings
from deepr_mcp.errors import InvalidInput


def add_corpus_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    corpus = sub.add_parser("corpus", help="the documents research draws on")
    corpus_sub = corpus.add_subparsers(dest="corpus_command", required=True)
    corpus_add = corpus_sub.add_parser("add", help="add files or folders (.md .txt .rst .html .pdf)")
    corpus_add.add_argument("paths", nargs="+", type=Path)
    corpus_add.add_argument(
        "--exclude", action="append", default=[], metavar="GLOB", help="skip matching files or folders (repeatable)"
    )
    corpus_search = corpus_sub.add_parser("search", help="search passages")
    corpus_search.add_argument("query")
    corpus_search.add_argument("--limit", type=int, default=5)
    corpus_sub.add_parser("list", help="list documents")


def no_documents(data_dir: Path) -> str:
    return (
        f"no documents yet: the corpus in {data_dir} is empty; add some with `deepr-mcp corpus add PATH` "
        "(files or folders: .md .txt .rst .html .pdf)"
    )


def cmd_corpus(args: argparse.Namespace) -> int:
    from deepr_mcp.research.corpus.storage import Corpus

    settings = _settings(args)
    corpus = Corpus(settings.data_dir / "corpus.db", max_bytes=settings.corpus.max_file_bytes)
    try:
        if args.corpus_command == "add":
            from deepr_mcp.research.corpus.ingest import for_stream

            new_failures = 0
            for path in args.paths:  # a bar on a terminal, plain lines in a pipe or CI; each failure once
                report = corpus.add_path(path, exclude=args.exclude, progress=for_stream(sys.stdout))
                new_failures += report.new_failures
            return 1 if new_failures else 0  # a file that failed the same way last time is not news
        if args.corpus_command == "search":
            if not 1 <= args.limit <= 200:
                raise InvalidInput(f"--limit must be 1-200, got {args.limit}")
            if corpus.stats()["documents"] == 0:
                print(no_documents(settings.data_dir))
                return 1
            hits = corpus.search(args.query, args.limit)
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
        return 0
    finally:
        corpus.close()
