"""``bench.evidence_stages`` traces the dev sets only and refuses those written to be run once."""

from __future__ import annotations

import pytest

from bench import evidence_stages
from bench.question_sets import DEV_SETS, QUESTION_SETS, RUN_ONCE


def test_every_set_but_those_written_to_be_run_once_may_be_traced() -> None:
    assert set(evidence_stages.DIAGNOSED) == set(QUESTION_SETS) - set(RUN_ONCE) == set(DEV_SETS)


@pytest.mark.parametrize("refused", RUN_ONCE)
def test_a_set_run_once_is_refused_with_the_allowed_names(refused: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        evidence_stages.main(["--set", refused])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert f"invalid choice: '{refused}'" in err and all(name in err for name in evidence_stages.DIAGNOSED)
