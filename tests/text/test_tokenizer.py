"""The tokenizer: identifier splitting, stop words, stemming; property-tested for robustness."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from deepr_mcp.text.tokenizer import STOP_WORDS, expand_query, tokenize


def test_splits_identifiers_and_stems() -> None:
    assert tokenize("campaign_start") == ["campaign", "start"]
    assert tokenize("campaignStart") == ["campaign", "start"]
    assert tokenize("HTTPServer") == ["http", "server"]
    assert tokenize("Starting campaigns!") == ["start", "campaign"]
    assert tokenize("sandbox-read/path.txt") == ["sandbox", "read", "path", "txt"]


def test_stop_words_are_dropped() -> None:
    assert tokenize("what is the status of my campaign") == ["status", "campaign"]


def test_query_expansion_adds_action_synonyms_after_originals() -> None:
    tokens = tokenize("kick off an investigation")
    expanded = expand_query(tokens)
    assert expanded[: len(tokens)] == tokens
    assert "start" in expanded and "research" in expanded


@given(st.text(max_size=300))
def test_any_text_tokenizes_to_lowercase_non_stop_words(text: str) -> None:
    tokens = tokenize(text)
    assert all(t and t == t.lower() and t not in STOP_WORDS for t in tokens)
    assert all(t in expand_query(tokens) for t in tokens)


@given(st.lists(st.sampled_from(["campaign", "start", "budget", "report", "sandbox"]), min_size=1, max_size=4))
def test_snake_and_camel_spellings_agree(words: list[str]) -> None:
    snake = "_".join(words)
    camel = words[0] + "".join(w.capitalize() for w in words[1:])
    assert tokenize(snake) == tokenize(camel) == tokenize(" ".join(words))
