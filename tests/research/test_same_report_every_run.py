"""The local provider is deterministic: the same request gives the same findings in every process.

Python hashes strings with a per-process seed, so a set of terms comes out in another order in each run. A float
sum taken in that order rounds differently, and where two sentences tie the tie then breaks differently: the bench
saw the same question, over the same corpus, cite its passages in another order from one run to the next. The
weighted shares are summed exactly (``math.fsum``), so the order no longer matters.
"""

from __future__ import annotations

import os
import subprocess
import sys

SHARES = """
from deepr_mcp.research.providers.local import _share
from deepr_mcp.research.retrieval.signals import coordination
words = [f"glaze{i}" for i in range(24)]
weight = {w: 0.1 * (i + 1) + 1 / 3 for i, w in enumerate(words)}
wanted, held = set(words), set(words[::2])
print(repr(_share(wanted, held, weight)), repr(coordination({w: weight[w] for w in wanted}, held)))
"""


def test_weighted_shares_are_the_same_whatever_order_the_process_hashes_terms_in() -> None:
    seen = set()
    for seed in range(8):
        env = {**os.environ, "PYTHONHASHSEED": str(seed)}
        done = subprocess.run([sys.executable, "-c", SHARES], env=env, capture_output=True, text=True, check=True)
        seen.add(done.stdout)
    assert len(seen) == 1, seen
