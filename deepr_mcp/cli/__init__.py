"""Command line: argument parsing and dispatch; each command calls one part of the package.

The commands with more to them live beside this module: ``corpus`` (the corpus subcommand),
``terminal`` (research at a terminal), ``demo`` and ``install``. Only the standard library is
imported up front: ``--help``, ``--version`` and a parse error never load the SDK, pydantic or
the settings (1.1 s of CPU before), and each command imports what it uses when it runs.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from deepr_mcp import __version__
from deepr_mcp.cli.args import host_port, settings_for
from deepr_mcp.cli.corpus import add_corpus_parser, cmd_corpus
from deepr_mcp.cli.upstreams import add_upstreams_parser, cmd_upstreams
from deepr_mcp.errors import DeeprError, InvalidInput

if TYPE_CHECKING:
    from deepr_mcp.config import Settings


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="deepr-mcp", description="MCP server for long-running, cited research.")
    parser.add_argument("--version", action="version", version=f"deepr-mcp {__version__}")
    parser.add_argument("--config", type=Path, help="TOML config file (default: the per-user config dir)")
    parser.add_argument("--data-dir", type=Path, help="where state lives (env DEEPR_DATA_DIR)")
    parser.add_argument("--log-level", default="WARNING", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="serve MCP over stdio (default) or HTTP")
    serve.add_argument("--http", type=host_port, metavar="HOST:PORT", help="serve /mcp and /sse over HTTP")
    serve.add_argument(
        "--auth-token",
        help="require 'Authorization: Bearer TOKEN', 16+ characters; blank means none (env DEEPR_AUTH_TOKEN)",
    )
    serve.add_argument("--stdio", action="store_true", help="with --http: also serve stdin/stdout, one server")
    serve.add_argument(
        "--store", metavar="URL", help="share state with other replicas: redis://HOST:PORT/DB (env DEEPR_STORE_URL)"
    )
    serve.add_argument("--mode", choices=["proxy", "search", "full"], help="gateway mode (env DEEPR_GATEWAY_MODE)")

    tools = sub.add_parser("tools", help="inspect the tool catalogue without a client")
    tools_sub = tools.add_subparsers(dest="tools_command", required=True)
    search = tools_sub.add_parser("search", help="rank catalogue tools for a query")
    search.add_argument("query")
    search.add_argument("--limit", type=int, default=5)
    search.add_argument(
        "--mode",
        choices=["lexical", "semantic", "hybrid"],
        default="hybrid",
        help="hybrid (default: words and meaning, as the served tool_search ranks), lexical (BM25 only) or semantic",
    )
    tools_list = tools_sub.add_parser("list", help="list every catalogue tool")
    tools_list.add_argument("--markdown", action="store_true", help="as the README's catalogue table")

    research = sub.add_parser("research", help="research a question now and print the cited report")
    research.add_argument("question")
    research.add_argument("--provider", choices=["local", "openai", "anthropic"], help="env DEEPR_PROVIDER")
    research.add_argument("--budget", type=float, help="dollar limit; asks before exceeding it")
    research.add_argument("--max-sub-questions", type=int, default=5, help="how many sub-questions to plan (1-12)")
    research.add_argument("--corpus", type=Path, action="append", default=[], help="add these documents first")
    research.add_argument(
        "--query",
        dest="queries",
        action="append",
        default=[],
        metavar="TEXT",
        help="the question in the documentation's words (a command, option or term it uses), searched beside it; "
        "repeatable, up to 8",
    )
    research.add_argument(
        "--sample",
        action="store_true",
        help="research the bundled sample (six documents on submarine cables) in a throwaway data dir",
    )

    add_corpus_parser(sub)
    add_upstreams_parser(sub)

    demo = sub.add_parser("demo", help="watch the whole idea work end to end (no keys, no network)")
    demo.add_argument("--answer-wait", type=float, default=3.0, help="seconds before the default budget answer")

    install = sub.add_parser("install", help="add deepr-mcp to an MCP client's configuration")
    install.add_argument("client", help="claude-desktop, claude-code, cursor or vscode")
    install.add_argument("--http", dest="http_url", metavar="URL", help="connect over HTTP instead of stdio")
    install.add_argument("--token", help="bearer token for --http")
    install.add_argument("--dry-run", action="store_true", help="print what would be written")
    install.add_argument("--config-path", type=Path, help="write this file instead of the client's default")
    install.add_argument(
        "--provider",
        choices=["local", "openai", "anthropic", "client"],
        help="the provider the installed server uses (client: the client's own model, over MCP sampling)",
    )

    config = sub.add_parser("config", help="configuration")
    config_sub = config.add_subparsers(dest="config_command", required=True)
    config_sub.add_parser("show", help="print the effective configuration, secrets hidden")
    return parser


def cmd_serve(args: argparse.Namespace) -> int:
    import anyio

    from deepr_mcp.transports.event_loop import use_uvloop

    settings = settings_for(args)
    loop = {"use_uvloop": use_uvloop(settings.event_loop)}
    if args.http:
        from deepr_mcp.transports.http import check_bind, serve_http

        check_bind(settings)
        anyio.run(lambda: serve_http(settings, with_stdio=args.stdio), backend_options=loop)
    else:
        from deepr_mcp.transports.stdio import serve_stdio

        anyio.run(serve_stdio, settings, backend_options=loop)
    return 0


def catalogue_table(registry: object) -> str:
    """The README's tool table, generated from the registry (a test keeps the README in step)."""
    rows = ["| tool | category | what it does |", "|---|---|---|"]
    for spec in sorted(registry, key=lambda s: (s.category, s.name)):  # type: ignore[attr-defined]
        rows.append(f"| `{spec.name}` | {spec.category} | {spec.summary()} |")
    return "\n".join(rows)


def cmd_tools(args: argparse.Namespace) -> int:
    from deepr_mcp.gateway import ToolRegistry
    from deepr_mcp.tools import all_tools

    registry = ToolRegistry(all_tools())
    if args.tools_command == "list":
        if args.markdown:
            print(catalogue_table(registry))
            return 0
        for spec in registry:
            print(f"{spec.name:<24} {spec.category:<12} {spec.summary()}")
        return 0
    if not args.query.strip():
        raise InvalidInput("the query is empty; describe the task, e.g. 'start a research campaign'")
    if not 1 <= args.limit <= 20:
        raise InvalidInput(f"--limit must be 1-20, got {args.limit}")
    if args.mode != "lexical":
        from deepr_mcp.cli.catalogue import embed_catalogue

        embed_catalogue(registry, settings_for(args))
    hits = registry.search(args.query, args.limit, mode=args.mode)
    if not hits:
        print(f"no tool matches {args.query!r} among {len(registry)} tools; try other words")
        return 1
    width = max(len(h.name) for h in hits)
    for hit in hits:
        print(f"{hit.name:<{width}}  {hit.score:7.3f}  {hit.spec.summary()}")
    return 0


def cmd_research(args: argparse.Namespace) -> int:
    settings = settings_for(args)
    if args.provider:
        settings.provider = args.provider
    from deepr_mcp.jobs.request import campaign_request

    # The same input model and refusal as campaign_start, before anything is opened.
    args.request = campaign_request(
        {
            "question": args.question,
            "budget": args.budget,
            "max_sub_questions": args.max_sub_questions,
            "queries": args.queries,
        }
    )
    with contextlib.ExitStack() as scratch:
        if args.sample:  # asked for: the sample goes into a data dir that is deleted afterwards
            from deepr_mcp.research.samples import SAMPLE_CORPUS

            settings.data_dir = Path(scratch.enter_context(tempfile.TemporaryDirectory(prefix="deepr-sample-")))
            args.corpus = [SAMPLE_CORPUS, *args.corpus]
            print("research on the bundled sample in a throwaway data dir: nothing is kept", file=sys.stderr)
        import anyio

        return anyio.run(_research, args, settings)


async def _research(args: argparse.Namespace, settings: Settings) -> int:
    import anyio

    from deepr_mcp.app.root import Root
    from deepr_mcp.cli.terminal import run_research

    async with Root(settings) as services:
        for path in args.corpus:
            report = await anyio.to_thread.run_sync(services.corpus.add_path, path)
            print(f"corpus: {path}: {report.count('added')} added, {report.count('failed')} failed", file=sys.stderr)
        embedder = services.engines.search.embedder
        if services.corpus.embedding_status(embedder.name)["pending"] and embedder.dimensions:
            from deepr_mcp.cli.corpus import embed_with_progress  # what the background worker would do, now

            await anyio.to_thread.run_sync(embed_with_progress, services.corpus, embedder, sys.stderr)
        if (await anyio.to_thread.run_sync(services.corpus.stats))["documents"] == 0:
            raise InvalidInput(
                f"the corpus in {settings.data_dir} is empty, so there is nothing to research. Add documents with "
                "`deepr-mcp corpus add PATH` (files or folders: .md .txt .rst .html .pdf .docx .epub and more) or pass "
                "--corpus PATH; "
                "or try the bundled sample with --sample"
            )
        campaign = await run_research(
            services.campaigns, services.feed, args.request, default_decision=settings.budget.default_decision
        )
        print(campaign.research.report or f"(no report: campaign {campaign.phase.value}: {campaign.error})")
        where = "a throwaway data dir" if args.sample else settings.data_dir / "sandboxes" / campaign.id
        print(f"sandbox: {where}", file=sys.stderr)
        if campaign.phase.value != "complete":
            print(f"deepr-mcp: research {campaign.phase.value}: {campaign.error or 'see the report'}", file=sys.stderr)
        return 0 if campaign.phase.value == "complete" else 1


def cmd_demo(args: argparse.Namespace) -> int:
    from deepr_mcp.cli.demo import run_demo

    return run_demo(answer_wait_s=args.answer_wait, data_dir=args.data_dir)


def cmd_install(args: argparse.Namespace) -> int:
    from deepr_mcp.cli.install import PROVIDER_ENV, install

    env = {name: os.environ[name] for name in PROVIDER_ENV if os.environ.get(name)} if not args.http_url else {}
    if args.provider:
        env["DEEPR_PROVIDER"] = args.provider
    result = install(
        args.client,
        http_url=args.http_url,
        token=args.token,
        dry_run=args.dry_run,
        config_path=args.config_path,
        data_dir=args.data_dir,
        config=args.config,
        env=env,
    )
    if result.action == "dry-run":
        print(f"would write {result.path}:\n{result.text}", end="")
    else:
        backup = f" (previous version kept as {result.backup})" if result.backup else ""
        print(f"{result.action} {result.path}{backup}")
    if result.hint:
        print(f"equivalent: {result.hint}")
    provider = env.get("DEEPR_PROVIDER")
    if provider in ("openai", "anthropic"):
        key = f"DEEPR_{provider.upper()}_API_KEY"
        print(f"note: {key} is not written to the client's file; set it in the client's environment")
    return 0


def cmd_config(args: argparse.Namespace) -> int:
    print(json.dumps(settings_for(args).public_dict(), indent=2))
    return 0


COMMANDS = {
    "serve": cmd_serve,
    "tools": cmd_tools,
    "research": cmd_research,
    "corpus": cmd_corpus,
    "demo": cmd_demo,
    "install": cmd_install,
    "config": cmd_config,
    "upstreams": cmd_upstreams,
}


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=args.log_level, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    try:
        return COMMANDS[args.command](args)
    except DeeprError as exc:
        print(f"deepr-mcp: error: {exc.message}", file=sys.stderr)
        return 2
    except BaseExceptionGroup as group:  # raised inside a task group (the services' lifespan)
        ours = group.subgroup(lambda e: isinstance(e, DeeprError))
        if ours is None:
            raise
        print(f"deepr-mcp: error: {_first_leaf(ours).message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def _first_leaf(group: BaseExceptionGroup) -> DeeprError:
    first = group.exceptions[0]
    return _first_leaf(first) if isinstance(first, BaseExceptionGroup) else first  # type: ignore[return-value]


if __name__ == "__main__":
    sys.exit(main())
