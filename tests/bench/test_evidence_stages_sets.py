"""``bench.evidence_stages`` traces any set already run and refuses the one nobody has run yet."""

from __future__ import annotations

import pytest

from bench import evidence_stages
from bench.quality_corpora import QUESTION_SETS


def test_every_set_but_the_pristine_one_may_be_traced() -> None:
    assert set(evidence_stages.DIAGNOSED) == set(QUESTION_SETS) - {"pristine"}


def test_the_pristine_set_is_refused_with_the_allowed_names(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        evidence_stages.main(["--set", "pristine"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'pristine'" in err and all(name in err for name in evidence_stages.DIAGNOSED)
