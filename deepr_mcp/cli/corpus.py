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


def cmd_corpus(args: argparse.Namespace) -> int:
    from deepr_mcp.research.corpus.storage import Corpus

    settings = _settings(args)
    corpus = Corpus(settings.data_dir / "corpus.db", max_bytes=settings.corpus.max_file_bytes)
    try:
        if args.corpus_command == "add":
            from deepr_mcp.research.corpus.ingest import for_stream

            failed = 0
            for path in args.paths:  # a bar on a terminal, plain lines in a pipe or CI
                report = corpus.add_path(path, exclude=args.exclude, progress=for_stream(sys.stdout))
                failed += report.count("failed")
            return 1 if failed else 0
        if args.corpus_command == "search":
            if not 1 <= args.limit <= 200:
                raise InvalidInput(f"--limit must be 1-200, got {args.limit}")
            for hit in corpus.search(args.query, args.limit):
                print(f"{hit.score:7.3f}  {hit.source} [{hit.location}]\n         {hit.text[:160]}")
            return 0
        for doc in corpus.documents():
            print(f"{doc.passages:5d} passages  {doc.bytes:9,d} bytes  {doc.path}")
        return 0
    finally:
        corpus.close()
