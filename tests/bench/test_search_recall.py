"""``bench.search_recall``: which sets it reads, how it scores a ranking, and the fusion it compares."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

import pytest

from bench.evidence_stages import DIAGNOSED
from bench.question_sets import RAN_ONCE, RUN_ONCE, TRACED, UNTOUCHED
from bench.search_recall import chosen_sets, recall, weighted


@dataclass(frozen=True)
class Hit:
    id: str
    score: float = 0.0


def test_sets_by_group_or_by_name_and_an_unknown_name_says_what_is_allowed() -> None:
    assert chosen_sets("used") == list(DIAGNOSED)
    assert chosen_sets("run-once") == list(RAN_ONCE)
    assert chosen_sets("tuned, visitor") == ["tuned", "visitor"]
    with pytest.raises(argparse.ArgumentTypeError, match="unknown set 'kilns'; allowed: used, run-once, tuned"):
        chosen_sets("tuned,kilns")


def test_run_once_means_the_sets_already_run() -> None:
    """``run-once`` reads every set written to be run once that has had its run, and none waiting for it."""
    assert set(chosen_sets("run-once")) == set(RUN_ONCE) - set(UNTOUCHED) - set(TRACED) == set(RAN_ONCE)
    assert {"nomad", "roamer", "ranger"} <= set(chosen_sets("run-once"))
    assert not {"wayfarer", "pilgrim"} & set(chosen_sets("run-once"))  # traced as dev sets since their run


@pytest.mark.parametrize("waiting", UNTOUCHED)
def test_a_set_not_run_yet_is_refused_by_group_and_by_name(waiting: str) -> None:
    """A set written to be run once that waits for its run (the end of the session its entry in
    ``bench/question_sets.py`` names): ``run-once`` leaves it out, and naming it is refused with the names allowed
    (which do not include it)."""
    assert waiting in RUN_ONCE and waiting not in chosen_sets("run-once") + chosen_sets("used")
    with pytest.raises(argparse.ArgumentTypeError, match=f"'{waiting}' is kept untouched") as refused:
        chosen_sets(f"visitor,{waiting}")
    allowed = {name.strip() for name in str(refused.value).split("allowed:")[1].split(",")}  # whole names, not parts
    assert {"visitor", "strider", "roamer", *RAN_ONCE} <= allowed and waiting not in allowed


def test_recall_is_the_share_of_gold_phrases_held_by_a_ranked_passage() -> None:
    gold = {"cones bend at known heats": {"p1", "p7"}, "open the lid below 100 degrees": {"p3"}}
    phrases = [*gold, "a phrase no passage holds"]
    assert recall(gold, phrases, ["p7", "p2"]) == pytest.approx(1 / 3)
    assert recall(gold, phrases, ["p3", "p1"]) == pytest.approx(2 / 3)


def test_a_heavier_meaning_rank_lifts_what_only_meaning_found() -> None:
    words, meaning = [Hit("w"), Hit("both")], [Hit("m"), Hit("both")]
    assert weighted(words, meaning, 1.0, 3)[1:] == ["w", "m"]  # a tie: the first seen first
    assert weighted(words, meaning, 2.0, 3) == ["both", "m", "w"]
