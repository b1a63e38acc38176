"""Where the bundled sample corpus lives (CC0 documents on submarine cables)."""

from pathlib import Path

SAMPLE_CORPUS = Path(__file__).resolve().parent.parent / "data" / "samples" / "cables"
