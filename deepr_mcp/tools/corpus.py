"""Corpus tools: the documents research draws on, searched by words (FTS5 bm25) and by meaning (embeddings)."""

from __future__ import annotations

import functools
from typing import Annotated, Any, Literal

import anyio
from pydantic import AfterValidator, Field

from deepr_mcp.errors import InvalidInput
from deepr_mcp.gateway.spec import define_tool
from deepr_mcp.jobs.store import StoreUnavailable
from deepr_mcp.research.corpus.ingest import AddScope
from deepr_mcp.research.samples import SAMPLE_CORPUS
from deepr_mcp.tools.campaigns import Strict
from deepr_mcp.tools.context import ToolContext


def _no_nul(path: str) -> str:
    if "\x00" in path:
        raise ValueError("a path may not contain a NUL character")
    return path


HostPath = Annotated[str, Field(min_length=1, max_length=4096), AfterValidator(_no_nul)]
"""A path on the server's machine as the operating system can take it: no NUL, which no file name holds."""


class AddInput(Strict):
    path: HostPath | None = Field(
        None, description="File or folder on the server's machine, under the configured corpus roots when any are set"
    )
    sample: bool = Field(
        False,
        description="Add the bundled sample instead of a path: six CC0 documents on submarine cables shipped "
        "with deepr-mcp (allowed over HTTP too: they are the package's own files, not the server's disk)",
    )
    exclude: list[Annotated[str, Field(min_length=1, max_length=500)]] = Field(
        default_factory=list,
        max_length=50,
        description="Globs of files or folders to leave out, relative to the folder (e.g. '_build/*', 'genindex*')",
    )


NO_ROOTS = (
    "corpus_add over HTTP reads only under configured corpus roots, and none are set. The server's operator can "
    'set them in the config file ([corpus] roots = ["/srv/docs"]) or the environment '
    "(DEEPR_CORPUS_ROOTS='[\"/srv/docs\"]'), or add files on the server's machine with 'deepr-mcp corpus add PATH'"
)


NEITHER = "corpus_add needs a path (a file or folder to add) or sample=true (the bundled sample corpus), got neither"
BOTH = "corpus_add takes a path or sample=true, not both: call it once for each"


async def not_yet_shared(ctx: ToolContext, done: str) -> str | None:
    """With replicas, send this change to the shared log now; say so when the store cannot take it yet.

    The change is kept in this replica's outbox and sent when the store is back (nothing is lost, and
    calling again is harmless), but the other replicas do not see it until then."""
    try:
        await ctx.services.corpus_sync.durable()
    except StoreUnavailable as exc:
        return (
            f"{done} on this replica, but the other replicas do not see it yet ({exc.message}); "
            "it is sent when the store is back, and calling again is harmless"
        )
    return None


def add_scope(ctx: ToolContext) -> AddScope:
    """Where this caller may read: the configured roots; with none, anywhere on stdio and nowhere over HTTP."""
    corpus = ctx.services.settings.corpus
    if corpus.roots:
        return AddScope.under(corpus.roots, max_files=corpus.max_files_per_call, max_bytes=corpus.max_bytes_per_call)
    if ctx.remote:
        raise InvalidInput(NO_ROOTS)
    return AddScope(None, corpus.max_files_per_call, corpus.max_bytes_per_call)


@define_tool(
    "corpus_add",
    "Add documents (a file or a folder of .md, .txt, .rst, .adoc, .html, .pdf, .docx, .odt, .epub, .ipynb or "
    "man pages, each also as .gz) to the research corpus; "
    "unchanged files are skipped, changed ones replaced; over HTTP only under the configured corpus roots, "
    "and one call reads a bounded number of files and bytes (the rest are listed as left). "
    "sample=true adds the bundled sample corpus (six documents on submarine cables) to try research with.",
    AddInput,
    category="corpus",
    scope="research",
    read_only=False,
    idempotent=True,
)
async def corpus_add(ctx: ToolContext, args: AddInput) -> dict[str, Any]:
    if args.sample == (args.path is not None):
        raise InvalidInput(BOTH if args.sample else NEITHER)
    if args.sample:  # the package's own files, read whole: no roots or per-call limits apply
        add = functools.partial(ctx.services.corpus.add_path, SAMPLE_CORPUS, exclude=args.exclude)
    else:
        add = functools.partial(ctx.services.corpus.add_path, args.path, exclude=args.exclude, scope=add_scope(ctx))
    report = await anyio.to_thread.run_sync(add)
    embedding = ctx.services.engines.embedding
    embedding.wake()  # searchable by words now; vectors follow in the background
    answer: dict[str, Any] = {
        "added": report.count("added"),
        "replaced": report.count("replaced"),
        "unchanged": report.count("unchanged"),
        "skipped": [{"path": f.name or f.path, "reason": f.reason} for f in report.files if f.status == "skipped"],
        "excluded": report.excluded,
        "excluded_why": report.excluded_why,
        "failed": [{"path": f.path, "reason": f.reason} for f in report.files if f.status == "failed"],
        "passages_indexed": report.passages,
        "seconds": round(report.seconds, 2),
        "embedding": await anyio.to_thread.run_sync(embedding.status),
    }
    if unshared := await not_yet_shared(ctx, "the documents were added"):
        answer["not_yet_shared"] = unshared
    if report.left:
        answer["left"] = {
            "count": len(report.left),
            "first": report.left[:10],
            "why": report.limit,
            "to_add_them": "call corpus_add on a subfolder or with exclude, or run 'deepr-mcp corpus add PATH' "
            "on the server's machine (no per-call limit)",
        }
    return answer


class SearchInput(Strict):
    query: str = Field(min_length=1, max_length=2000, description="What to look for: words or a question")
    limit: int = Field(5, ge=1, le=50)
    mode: Literal["lexical", "semantic", "hybrid"] | None = Field(
        None,
        description="lexical = by words (bm25), semantic = by meaning (embeddings), hybrid = both fused; "
        "default: the server's research.retrieval setting (hybrid unless changed)",
    )


EMPTY_CORPUS_SEARCH = (
    "the corpus is empty: add documents with corpus_add (a path, or sample=true for the bundled sample) "
    "or 'deepr-mcp corpus add PATH' on the server's machine"
)


@define_tool(
    "corpus_search",
    "Search the documents in the research corpus: find the passages that match your words or your meaning "
    "(bm25 and embeddings, fused; mode to compare), each with its source file and heading or page.",
    SearchInput,
    category="corpus",
    scope="read",
    read_only=True,
)
async def corpus_search(ctx: ToolContext, args: SearchInput) -> dict[str, Any]:
    mode = args.mode or ctx.services.settings.research.retrieval
    search = ctx.services.engines.search.search
    hits = await anyio.to_thread.run_sync(functools.partial(search, args.query, args.limit, mode))
    answer: dict[str, Any] = {
        "query": args.query,
        "mode": mode,
        "hits": [
            {"passage_id": h.id, "score": h.score, "source": h.source, "location": h.location, "text": h.text}
            for h in hits
        ],
    }
    if not hits and (await anyio.to_thread.run_sync(ctx.services.corpus.stats))["documents"] == 0:
        answer["note"] = EMPTY_CORPUS_SEARCH
    return answer


class ListInput(Strict):
    limit: int = Field(100, ge=1, le=1000)


@define_tool(
    "corpus_list",
    "List the documents in the research corpus with their passage counts and sizes, and how far embedding "
    "(search by meaning) has got.",
    ListInput,
    category="corpus",
    scope="read",
    read_only=True,
)
async def corpus_list(ctx: ToolContext, args: ListInput) -> dict[str, Any]:
    docs = await anyio.to_thread.run_sync(ctx.services.corpus.documents)
    stats = await anyio.to_thread.run_sync(ctx.services.corpus.stats)
    return {
        **stats,
        "embedding": await anyio.to_thread.run_sync(ctx.services.engines.embedding.status),
        "items": [
            {"path": d.path, "name": d.name, "bytes": d.bytes, "passages": d.passages, "added_at": d.added_at}
            for d in docs[: args.limit]
        ],
    }


class RemoveInput(Strict):
    path: HostPath = Field(description="A document path as corpus_list shows it")


@define_tool(
    "corpus_remove",
    "Remove a document and its passages from the research corpus.",
    RemoveInput,
    category="corpus",
    scope="admin",
    read_only=False,
    destructive=True,
    idempotent=True,
)
async def corpus_remove(ctx: ToolContext, args: RemoveInput) -> dict[str, Any]:
    removed = await anyio.to_thread.run_sync(ctx.services.corpus.remove, args.path)
    answer: dict[str, Any] = {"path": args.path, "passages_removed": removed}
    if removed and (unshared := await not_yet_shared(ctx, "the document was removed")):
        answer["not_yet_shared"] = unshared
    return answer


class PassageInput(Strict):
    passage_id: str = Field(min_length=1, max_length=200, description="A passage id from a citation or search")


@define_tool(
    "corpus_passage",
    "Show the full text of one cited passage by its id, with its source file and location.",
    PassageInput,
    category="corpus",
    scope="read",
    read_only=True,
)
async def corpus_passage(ctx: ToolContext, args: PassageInput) -> dict[str, Any]:
    p = await anyio.to_thread.run_sync(ctx.services.corpus.passage, args.passage_id)
    return {"passage_id": p.id, "source": p.source, "path": p.path, "location": p.location, "text": p.text}


TOOLS = [corpus_add, corpus_search, corpus_list, corpus_remove, corpus_passage]
