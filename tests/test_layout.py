"""The package's shape: no import cycle between its modules, and modules small enough to read.

The graph is read from the source with ``ast`` (every ``import deepr_mcp...`` and ``from
deepr_mcp... import``, including those under ``TYPE_CHECKING``), so it also catches the cycles
that lazy imports would hide at run time. ``python -m tests.test_layout`` prints it.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "deepr_mcp"
MAX_MODULE_LINES = 400
OVER_THE_LIMIT_FOR_NOW: set[str] = set()
"""Modules past the limit whose code belongs to the research rewrite (issue 18 touched only their
imports); the test fails once one of them is back under the limit, so the list only shrinks."""


def modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def import_graph() -> dict[str, set[str]]:
    """Module -> the package modules it imports (``from pkg import module`` counts as the module)."""
    mods = modules()
    graph: dict[str, set[str]] = {}
    for name, path in mods.items():
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    targets.add(full if full in mods else node.module)
        graph[name] = {t for t in targets if t in mods and t != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_package_has_no_import_cycle() -> None:
    graph = import_graph()
    assert len(graph) > 50  # the walk found the package
    assert cycles(graph) == []


def test_cycle_detection_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


RESEARCH = "deepr_mcp.research"
PIPELINE = ("passage", "corpus", "reading", "models", "retrieval", "synthesis", "providers")
"""research/ from the bottom up: the passage type, then each stage (``models``, the state of a run, is
read by synthesis and the engine); every other module of research/ (the engine and what it asks) is on top."""


def stage_of(module: str) -> int:
    part = module.removeprefix(RESEARCH + ".").split(".")[0]
    return PIPELINE.index(part) if part in PIPELINE else len(PIPELINE)


def test_research_imports_only_go_down_its_pipeline() -> None:
    graph = import_graph()
    research = {name: targets for name, targets in graph.items() if name.startswith(RESEARCH + ".")}
    assert {stage_of(name) for name in research} == set(range(len(PIPELINE) + 1))  # every stage was found
    upward = sorted(
        f"{name} -> {target}"
        for name, targets in research.items()
        for target in targets
        if target.startswith(RESEARCH + ".") and stage_of(target) > stage_of(name)
    )
    assert upward == []


JOBS_MAY_IMPORT_FROM_MCP = {"mcp.server.subscriptions"}
"""The use cases know no MCP wire types: of the SDK, jobs/ uses only the subscription bus seam (a Protocol
with an in-memory default); the wire mapping lives in transports/ and app/."""


def outside_imports(path: Path) -> set[str]:
    """Every module ``path`` imports by absolute name (``import x.y`` and ``from x.y import z``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def test_jobs_know_no_mcp_wire_types() -> None:
    jobs = {name: path for name, path in modules().items() if name.startswith("deepr_mcp.jobs.")}
    assert len(jobs) > 10  # the walk found jobs/
    wire = sorted(
        f"{name} imports {target}"
        for name, path in jobs.items()
        for target in outside_imports(path)
        if target.split(".")[0] in ("mcp", "mcp_types") and target not in JOBS_MAY_IMPORT_FROM_MCP
    )
    assert wire == []


def test_no_module_is_over_the_size_limit() -> None:
    sizes = {name: len(path.read_text(encoding="utf-8").splitlines()) for name, path in modules().items()}
    over = {name for name, n in sizes.items() if n > MAX_MODULE_LINES}
    assert over == OVER_THE_LIMIT_FOR_NOW, {name: sizes.get(name) for name in over ^ OVER_THE_LIMIT_FOR_NOW}


if __name__ == "__main__":
    graph = import_graph()
    found = cycles(graph)
    print(f"{len(graph)} modules, {sum(map(len, graph.values()))} imports between them, {len(found)} cycles")
    for component in found:
        print("  cycle:", " -> ".join(component))
