"""Cold start: how long a user or a client waits for the first answer.

Run: ``timeout 300 .venv/bin/python -m bench.cold_start [--before /path/to/older/checkout]``
(about 20 s; a minute with ``--before``). Each row is the median of 5 fresh processes of
``python -m deepr_mcp`` (what the ``deepr-mcp`` script runs): ``--help`` and ``--version`` wall and
CPU (user + system of the child), and over stdio the time from spawning ``serve`` to the
``initialize`` answer on stdout with the CPU the process had used by then (a throwaway data dir
each time; the services keep opening in the background after the answer). ``--before`` runs the same
commands with that checkout first on PYTHONPATH, for a before/after table on the same machine.
The issue's baseline (dad0bda, measured while the machine was busy) is printed beside it.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

RUNS = 5
HERE = Path(__file__).resolve().parents[1]
ISSUE_BASELINE = {
    "--help": "3.7-4.7 s wall, 1.4 s CPU",
    "--version": "(as --help)",
    "stdio initialize": "3.2-4.4 s",
}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench.cold_start", "version": "1"},
    },
}


def child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def env_for(tree: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(tree), "DEEPR_CONFIG": ""}


def process_cpu(pid: int) -> float | None:
    """User + system CPU seconds a live process has used so far (Linux ``/proc``; None elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_flag(tree: Path, flag: str) -> tuple[float, float]:
    """Wall and CPU seconds of one ``python -m deepr_mcp FLAG``."""
    cpu, start = child_cpu(), time.perf_counter()
    command = [sys.executable, "-m", "deepr_mcp", flag]
    subprocess.run(command, cwd=tree, env=env_for(tree), check=True, capture_output=True)
    return time.perf_counter() - start, child_cpu() - cpu


def run_initialize(tree: Path) -> tuple[float, float]:
    """Spawn ``serve`` (stdio), send ``initialize``, stop the clock at its answer; wall and CPU to exit."""
    with tempfile.TemporaryDirectory(prefix="deepr-cold-") as data:
        env = {**env_for(tree), "DEEPR_DATA_DIR": data}
        cpu, start = child_cpu(), time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "deepr_mcp", "serve"],
            cwd=tree,  # ``-m`` puts the working directory first on sys.path
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
        proc.stdin.flush()
        answer = json.loads(proc.stdout.readline())
        wall = time.perf_counter() - start
        at_answer = process_cpu(proc.pid)
        if "result" not in answer:
            raise SystemExit(f"initialize failed: {answer}")
        proc.stdin.close()
        proc.wait(timeout=60)
        return wall, at_answer if at_answer is not None else child_cpu() - cpu


def median_of(measure: Callable[[], tuple[float, float]]) -> tuple[float, float]:
    runs = [measure() for _ in range(RUNS)]
    return statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs)


def measure_tree(tree: Path) -> dict[str, tuple[float, float]]:
    return {
        "--help": median_of(lambda: run_flag(tree, "--help")),
        "--version": median_of(lambda: run_flag(tree, "--version")),
        "stdio initialize": median_of(lambda: run_initialize(tree)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="an older checkout to measure the same way")
    args = parser.parse_args()
    now = measure_tree(HERE)
    before = measure_tree(args.before.resolve()) if args.before else None
    print(f"cold start, median of {RUNS} fresh processes, {os.cpu_count()} cores ({sys.executable} -m deepr_mcp)\n")
    head = "| command | now: wall | now: CPU |"
    rule = "|---|---|---|"
    if before:
        head += " before: wall | before: CPU |"
        rule += "---|---|"
    print(head + " issue 32 baseline |\n" + rule + "---|")
    for name, (wall, cpu) in now.items():
        row = f"| `{name}` | {wall:.2f} s | {cpu:.2f} s |"
        if before:
            b_wall, b_cpu = before[name]
            row += f" {b_wall:.2f} s | {b_cpu:.2f} s |"
        print(row + f" {ISSUE_BASELINE[name]} |")
    print(
        "\nstdio initialize: wall from spawn to the answer line; CPU the process had used when it answered "
        "(its /proc counters; the services go on opening after the answer)"
    )


if __name__ == "__main__":
    main()
