"""The README's tool catalogue table is exactly what the registry holds, and its shell commands run."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from deepr_mcp.cli import catalogue_table
from deepr_mcp.gateway import ToolRegistry
from deepr_mcp.tools import all_tools

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_catalogue_matches_the_registry() -> None:
    text = README.read_text()
    match = re.search(r"<!-- catalogue:start -->\n(.*?)\n<!-- catalogue:end -->", text, re.S)
    assert match, "README lost its catalogue markers"
    assert match.group(1).strip() == catalogue_table(ToolRegistry(all_tools())).strip(), (
        "README catalogue is stale: regenerate it with `deepr-mcp tools list --markdown`"
    )


# -- the README's shell commands, run as written ----------------------------------------------------

ROOT = README.parent
CLI = ".venv/bin/deepr-mcp"


def shell_commands(text: str) -> list[str]:
    """Every command line of the README's ```bash blocks, without its trailing comment."""
    commands = []
    for block in re.findall(r"^```(?:bash|sh|shell|console)\n(.*?)^```", text, re.S | re.M):
        for line in block.splitlines():
            command = re.sub(r"\s+#\s.*$", "", line).strip()
            if command and not command.startswith("#"):
                commands.append(command)
    return commands


PLACEHOLDER = re.compile(r"\[|\]|\.\.\.|…|\bPATH\b|\bHOST\b|\$TOKEN|sk-")
"""A template to fill in, not a command to run: optional groups, ellipses, names in capitals, keys."""

SKIPPED = {
    "bash scripts/test.sh": "the test command itself",
    "bash scripts/demo.sh": "tests/cli/test_demo.py runs the demo",
    "redis-server": "starts a Redis server (tests/stores start their own on a free port)",
    "claude": "Claude Code's CLI, not part of this project",
    "uvx --from dist/": "needs the built wheel and downloads the dependencies from PyPI (tried by hand)",
    "docker ": "needs a Docker engine; tests/test_container.py checks the Dockerfile and compose file",
}


def how_to_check(command: str) -> str:
    """``run``, ``parse`` (a deepr-mcp command whose arguments are checked, not run: it serves, calls a
    provider, or holds placeholders) or ``skip: why`` for other programs."""
    for prefix, why in SKIPPED.items():
        if command.startswith(prefix):
            return f"skip: {why}"
    words = shlex.split(command)
    program = next((w for w in words if "=" not in w or w.startswith("-")), "")
    assert program == CLI, f"README runs the CLI as {CLI!r} everywhere (one form), not {program!r}: {command}"
    args = words[words.index(program) + 1 :]
    if args[:1] == ["serve"] or command.endswith("&") or words[0] != program or PLACEHOLDER.search(command):
        return "parse"
    return "run"


def parseable(command: str) -> list[str]:
    """The deepr-mcp arguments with the README's placeholders filled in."""
    command = command.rstrip("&").strip()
    command = re.sub(r"\s\[[^\]]*\]", "", command)  # optional groups
    words = shlex.split(command.replace("PATH...", "docs").replace('"..."', '"a question?"'))
    return words[words.index(CLI) + 1 :]


def test_readme_shell_commands_use_one_form_and_are_all_classified() -> None:
    commands = shell_commands(README.read_text())
    kinds = {command: how_to_check(command) for command in commands}
    assert sum(kind == "run" for kind in kinds.values()) >= 2, kinds
    assert any(kind.startswith("skip") for kind in kinds.values())


@pytest.mark.parametrize(
    "command", [c for c in shell_commands(README.read_text()) if how_to_check(c) == "parse"], ids=lambda c: c[:60]
)
def test_readme_commands_that_serve_or_need_input_parse(command: str) -> None:
    from deepr_mcp.cli import build_parser

    build_parser().parse_args(parseable(command))  # exits 2 with argparse's message when a flag is wrong


@pytest.mark.parametrize(
    "command", [c for c in shell_commands(README.read_text()) if how_to_check(c) == "run"], ids=lambda c: c[:60]
)
def test_readme_commands_run_as_written(command: str, tmp_path: Path) -> None:
    """In a throwaway data dir and home, from the checkout's root, as a user pastes it."""
    cli = ROOT / CLI
    if not cli.exists():
        pytest.skip(f"{CLI} is missing: bash scripts/test.sh creates it")
    env = {
        **os.environ,
        "HOME": str(tmp_path),
        "DEEPR_DATA_DIR": str(tmp_path / "data"),
        "DEEPR_CONFIG": "",
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
    }
    done = subprocess.run(command, shell=True, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert "Traceback" not in done.stderr, done.stderr
    # a search on the fresh, empty data dir says so and exits 1; everything else succeeds
    empty = done.returncode == 1 and done.stdout.startswith("no documents yet: ")
    assert done.returncode == 0 or empty, f"{command}: exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    assert done.stdout.strip()
