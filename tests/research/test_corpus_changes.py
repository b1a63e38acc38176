"""Corpus changes as replicas exchange them: the outbox, applying another replica's change, the cursor."""

from __future__ import annotations

from pathlib import Path

import pytest

from deepr_mcp.errors import InvalidInput
from deepr_mcp.research.corpus.changes import CorpusChange
from deepr_mcp.research.corpus.storage import Corpus


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text)
    return path


def ship(source: Corpus, target: Corpus, first_id: int = 1) -> list[bool]:
    """Move ``source``'s outbox into ``target`` as a log would; returns what each apply changed."""
    changed = []
    for n, (seq, text) in enumerate(source.outbox(), start=first_id):
        changed.append(target.apply_entry(f"{n}-0", text))
        source.mark_published(seq)
    return changed


@pytest.fixture
def pair(tmp_path: Path):
    one, two = Corpus(tmp_path / "one.db"), Corpus(tmp_path / "two.db")
    one.share(), two.share()
    yield one, two
    one.close(), two.close()


def test_an_unshared_corpus_logs_nothing(tmp_path: Path) -> None:
    corpus = Corpus(tmp_path / "c.db")
    corpus.add_path(write(tmp_path / "docs", "a.md", "# Cables\n\nThe 1858 cable failed after three weeks."))
    assert corpus.outbox() == []
    corpus.close()


def test_an_added_document_becomes_searchable_on_the_other_replica(pair, tmp_path: Path) -> None:
    one, two = pair
    one.add_path(write(tmp_path / "docs", "a.md", "# Cables\n\nThe 1858 cable failed after three weeks."))
    assert ship(one, two) == [True]
    assert one.outbox() == []
    hits = two.search("1858 cable")
    assert hits and "three weeks" in hits[0].text
    assert [d.name for d in two.documents()] == ["a.md"]


def test_replaying_a_change_or_hearing_back_ones_own_changes_nothing(pair, tmp_path: Path) -> None:
    one, two = pair
    one.add_path(write(tmp_path / "docs", "a.md", "# Cables\n\nGutta-percha insulated the core."))
    (_, text), *_ = one.outbox()
    assert two.apply_entry("1-0", text) is True
    assert two.apply_entry("2-0", text) is False  # the same content again: a replay is harmless
    assert one.apply_entry("1-0", text) is False  # its own change, made here already
    assert two.stats() == {"documents": 1, "passages": 1}
    assert two.sync_cursor() == "2-0"


def test_a_removal_and_a_replacement_travel_too(pair, tmp_path: Path) -> None:
    one, two = pair
    doc = write(tmp_path / "docs", "a.md", "# Cables\n\nFirst text about repeaters.")
    one.add_path(doc)
    ship(one, two)
    doc.write_text("# Cables\n\nSecond text about amplifiers.")
    one.add_path(doc)
    ship(one, two, first_id=2)
    assert not two.search("repeaters") and two.search("amplifiers")
    two.remove("a.md")  # removed on the other replica, by its name
    assert ship(two, one, first_id=3) == [True]
    assert one.stats() == {"documents": 0, "passages": 0}


def test_a_failed_file_logs_nothing(pair, tmp_path: Path) -> None:
    one, _ = pair
    empty = write(tmp_path / "docs", "empty.md", "   \n")
    with pytest.raises(InvalidInput):
        one.add_path(empty)
    assert one.outbox() == []


def test_the_cursor_and_origin_survive_a_restart(tmp_path: Path) -> None:
    corpus = Corpus(tmp_path / "c.db")
    origin = corpus.share()
    corpus.apply_entry("7-1", CorpusChange("forget", "/nowhere", "someone-else").to_json())
    corpus.close()
    again = Corpus(tmp_path / "c.db")
    assert again.share() == origin and again.sync_cursor() == "7-1"
    again.close()


@pytest.mark.parametrize(
    "text",
    ["", "not json", "[]", '{"op": "drop", "key": "x"}', '{"op": "replace", "key": ""}', '{"op": "replace", "key": 3}'],
)
def test_a_malformed_change_is_refused_whole(text: str, tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="not a corpus change"):
        CorpusChange.from_json(text)
    corpus = Corpus(tmp_path / "c.db")
    corpus.share()
    assert corpus.apply_entry("3-0", text) is False  # skipped, and never read again
    assert corpus.sync_cursor() == "3-0" and corpus.stats() == {"documents": 0, "passages": 0}
    corpus.close()
