"""``bench.evidence_stages`` traces any set already run and refuses those written to be run once."""

from __future__ import annotations

import pytest

from bench import evidence_stages
from bench.quality_corpora import QUESTION_SETS


def test_every_set_but_the_pristine_newcomer_outsider_and_stranger_ones_may_be_traced() -> None:
    assert set(evidence_stages.DIAGNOSED) == set(QUESTION_SETS) - {"pristine", "newcomer", "outsider", "stranger"}


@pytest.mark.parametrize("refused", ["pristine", "newcomer", "outsider", "stranger"])
def test_a_set_run_once_is_refused_with_the_allowed_names(refused: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        evidence_stages.main(["--set", refused])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert f"invalid choice: '{refused}'" in err and all(name in err for name in evidence_stages.DIAGNOSED)
