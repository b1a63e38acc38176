"""The tool-vector cache forgets what no catalogue wants any more, and other models' files left behind.

Days are a clock the tests move (``ToolVectors(clock=...)``), never waited for.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from deepr_mcp.gateway import ToolRegistry, ToolSpec
from deepr_mcp.gateway import vectors as vectors_module
from deepr_mcp.gateway.vectors import DAY, STALE_DAYS, ToolVectors, text_key, tool_text
from tests.gateway.embedders import Counting

KILN = ToolSpec("kiln_fire", "Fire the kiln to a set temperature.", {"type": "object", "properties": {}})
GLAZE = ToolSpec("glaze_mix", "Mix a glaze from a recipe.", {"type": "object", "properties": {}})
CLAY = ToolSpec("clay_order", "Order clay from the supplier.", {"type": "object", "properties": {}})
START = 20_000 * DAY


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> float:
        return self.now


class Refusing(Counting):
    """Counting's model name, but asked to embed nothing: what it holds came from the cache."""

    def embed(self, texts: list[str], *, query: bool = False) -> np.ndarray:
        raise AssertionError(f"asked to embed {texts}")


def serve(cache: Path, clock: Clock, *specs: ToolSpec) -> None:
    """One server run: the catalogue ``specs`` embedded (or read from the cache), then closed."""
    vectors = ToolVectors(Counting(), cache, clock=clock)
    ToolRegistry(list(specs), vectors=vectors)
    assert vectors.wait_idle(60)
    vectors.close()


def cached(cache: Path) -> set[str]:
    with np.load(next(cache.glob("letters*.npz"))) as data:
        return {str(k) for k in data["keys"]}


def key(spec: ToolSpec) -> str:
    return text_key(tool_text(spec))


def test_a_vector_no_tool_wants_is_dropped_after_the_stale_days(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = Clock()
    serve(tmp_path, clock, KILN, GLAZE)
    assert cached(tmp_path) == {key(KILN), key(GLAZE)}
    clock.now += (STALE_DAYS - 1) * DAY
    serve(tmp_path, clock, KILN)  # the glaze tool's upstream is down for a while: its vector waits
    assert cached(tmp_path) == {key(KILN), key(GLAZE)}
    clock.now += 2 * DAY
    serve(tmp_path, clock, KILN)
    assert cached(tmp_path) == {key(KILN)}
    monkeypatch.setattr(vectors_module, "_seen", {})  # forget this process's vectors: only the file can answer
    kept = ToolVectors(Refusing(), tmp_path, clock=clock)
    ToolRegistry([KILN], vectors=kept)
    assert kept.pending() == 0 and kept.version == 1, "the tool still registered is read back, not embedded"


def test_the_cache_keeps_at_most_the_most_recently_wanted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vectors_module, "MAX_CACHED", 2)
    clock = Clock()
    serve(tmp_path, clock, CLAY)
    clock.now += DAY
    serve(tmp_path, clock, KILN, GLAZE)
    assert cached(tmp_path) == {key(KILN), key(GLAZE)}


def test_other_models_files_and_dead_saves_left_untouched_are_removed(tmp_path: Path) -> None:
    clock = Clock()
    old_model = tmp_path / "retired-model.npz"
    other_model = tmp_path / "model-in-use.npz"
    dead_save = tmp_path / ".letters_test.npz.4242.1.tmp.npz"
    for path, age_days in ((old_model, STALE_DAYS + 1), (other_model, 1), (dead_save, 2)):
        path.write_bytes(b"not ours to read")
        stamp = START - age_days * DAY
        os.utime(path, (stamp, stamp))
    serve(tmp_path, clock, KILN)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["letters_test.npz", "model-in-use.npz"]


def test_a_cache_written_before_the_stamps_is_read_then_pruned_like_any(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vectors_module, "_seen", {})
    rows = Counting().embed([tool_text(KILN), tool_text(CLAY)])
    np.savez(tmp_path / "letters_test.npz", keys=np.array([key(KILN), key(CLAY)]), rows=rows.astype(np.float16))
    clock = Clock()
    old = ToolVectors(Refusing(), tmp_path, clock=clock)
    ToolRegistry([KILN], vectors=old)
    assert old.pending() == 0, "read from the cache, not embedded again"
    old.close()
    clock.now += DAY
    serve(tmp_path, clock, KILN)  # the clay tool counts as wanted the day the old file was read
    assert cached(tmp_path) == {key(KILN), key(CLAY)}
    clock.now += (STALE_DAYS + 1) * DAY
    serve(tmp_path, clock, KILN)
    assert cached(tmp_path) == {key(KILN)}


def test_memory_forgets_what_the_file_forgets_and_a_held_layout_stays_valid() -> None:
    """A server whose upstream catalogues change holds the vectors still wanted, not every text it saw."""
    clock = Clock()
    vectors = ToolVectors(Counting(), None, clock=clock)  # no cache file: memory is all there is
    ToolRegistry([KILN, GLAZE], vectors=vectors)
    assert vectors.wait_idle(60) and vectors.stored == 2
    held = vectors.layout([key(KILN), key(GLAZE)])
    clock.now += (STALE_DAYS + 1) * DAY
    clay = ToolRegistry([CLAY], vectors=vectors)  # today's catalogue: the kiln and glaze tools are gone
    assert vectors.wait_idle(60)
    assert vectors.stored == 1 and vectors.version > held.version
    assert list(vectors.positions([key(KILN), key(GLAZE), key(CLAY)])) == [-1, -1, 0]
    assert [h.name for h in clay.search("order clay", 1, mode="semantic")] == ["clay_order"]
    # a search that took its layout before the forgetting reads the same vectors it took
    np.testing.assert_allclose(held.matrix[held.positions[0]], Counting().embed([tool_text(KILN)])[0])
    ToolRegistry([KILN], vectors=vectors)  # the tool is back: this process still has its vector
    assert vectors.wait_idle(60) and vectors.stored == 2 and vectors.pending() == 0


def test_the_process_wide_vectors_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    from collections import OrderedDict

    monkeypatch.setattr(vectors_module, "_seen", OrderedDict())
    monkeypatch.setattr(vectors_module, "MAX_CACHED", 2)
    vectors = ToolVectors(Counting(), None, clock=Clock())
    ToolRegistry([KILN, GLAZE, CLAY], vectors=vectors)
    assert vectors.wait_idle(60)
    assert len(vectors_module._seen) == 2
