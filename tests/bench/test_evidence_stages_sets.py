"""``bench.evidence_stages`` traces any set already run and refuses those written to be run once."""

from __future__ import annotations

import pytest

from bench import evidence_stages
from bench.quality_corpora import QUESTION_SETS
from tests.bench.question_sets import RUN_ONCE_SETS


def test_every_set_but_those_written_to_be_run_once_may_be_traced() -> None:
    assert set(evidence_stages.DIAGNOSED) == set(QUESTION_SETS) - set(RUN_ONCE_SETS)


@pytest.mark.parametrize("refused", RUN_ONCE_SETS)
def test_a_set_run_once_is_refused_with_the_allowed_names(refused: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        evidence_stages.main(["--set", refused])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert f"invalid choice: '{refused}'" in err and all(name in err for name in evidence_stages.DIAGNOSED)


def test_the_sets_not_run_yet_are_run_once_sets_and_the_rest_have_had_their_run() -> None:
    assert evidence_stages.UNTOUCHED == ("scout",)  # ranger had its run at the twentieth session's end
    assert set(evidence_stages.UNTOUCHED) <= set(evidence_stages.RUN_ONCE)
    assert evidence_stages.RAN_ONCE == tuple(s for s in evidence_stages.RUN_ONCE if s != "scout")
