"""``bench.evidence_stages`` traces any set already run and refuses those written to be run once."""

from __future__ import annotations

import pytest

from bench import evidence_stages
from bench.quality_corpora import QUESTION_SETS


def test_every_set_but_the_pristine_newcomer_outsider_stranger_and_visitor_ones_may_be_traced() -> None:
    run_once = {"pristine", "newcomer", "outsider", "stranger", "visitor"}
    assert set(evidence_stages.DIAGNOSED) == set(QUESTION_SETS) - run_once


@pytest.mark.parametrize("refused", ["pristine", "newcomer", "outsider", "stranger", "visitor"])
def test_a_set_run_once_is_refused_with_the_allowed_names(refused: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        evidence_stages.main(["--set", refused])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert f"invalid choice: '{refused}'" in err and all(name in err for name in evidence_stages.DIAGNOSED)
