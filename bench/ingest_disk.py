"""How much ``corpus add`` writes to disk for the database it leaves: the write amplification.

Run: ``timeout 900 .venv/bin/python -m bench.ingest_disk [FOLDER]`` (default: the Python 3.11 HTML
documentation of the Debian package python3.11-doc, about 500 pages, two minutes on 2 cores).
Adds the folder into a fresh data dir in this process and prints, from ``/proc/self/io``, the bytes
this process passed to ``write()`` (``wchar``) and the bytes it sent to the storage layer
(``write_bytes``, 0 on tmpfs), beside the size of the database it left (db + WAL), and the ratio.
The data dir is made under ``--where`` (default: the current directory, so a real disk; tmpfs
would show no block writes) and deleted afterwards.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import tempfile
import time
from pathlib import Path

from deepr_mcp.research.corpus.storage import Corpus

DEFAULT = Path("/usr/share/doc/python3.11/html")


def io_counters() -> dict[str, int]:
    pairs = (line.split(": ") for line in Path("/proc/self/io").read_text().splitlines())
    return {key: int(value) for key, value in pairs}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, nargs="?", default=DEFAULT)
    parser.add_argument("--where", type=Path, default=Path.cwd())
    args = parser.parse_args()
    if not args.folder.is_dir():
        raise SystemExit(f"{args.folder}: not a folder (the default needs `apt-get install python3.11-doc`)")
    scratch = Path(tempfile.mkdtemp(prefix="deepr-ingest-disk-", dir=args.where))
    try:
        corpus = Corpus(scratch / "corpus.db")
        before, cpu, start = io_counters(), resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
        report = corpus.add_path(args.folder)
        corpus.close()  # checkpoints the WAL into the database file: counted too
        wall = time.perf_counter() - start
        after, cpu_after = io_counters(), resource.getrusage(resource.RUSAGE_SELF)
        size = sum(p.stat().st_size for p in scratch.iterdir() if p.name.startswith("corpus.db"))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    wchar = after["wchar"] - before["wchar"]
    block = after["write_bytes"] - before["write_bytes"]
    seconds = cpu_after.ru_utime + cpu_after.ru_stime - cpu.ru_utime - cpu.ru_stime
    print(f"corpus add {args.folder}: {len(report.files)} files, {report.passages:,} passages\n")
    print("| database left | written (write calls) | written (to storage) | written / database | CPU | wall |")
    print("|---|---|---|---|---|---|")
    print(
        f"| {size / 1e6:.1f} MB | {wchar / 1e6:.1f} MB | {block / 1e6:.1f} MB | {wchar / size:.1f}x "
        f"| {seconds:.1f} s | {wall:.1f} s |"
    )


if __name__ == "__main__":
    main()
