"""The question's key words as written (not stemmed), which the engine hands every provider.

A model reads "Key terms: heat, pumps" better than stems, and the local provider weighs a finding
by the same words, so both get them from the one analysis the engine made of the question.
"""

from __future__ import annotations

import re

from deepr_mcp.research.reading.analysis import QuestionAnalysis
from deepr_mcp.research.reading.terms import terms
from deepr_mcp.research.retrieval.lexical import key_terms


def key_words(analysis: QuestionAnalysis) -> list[str]:
    """The words of the question, its entities and its action whose terms are key terms, in order."""
    wanted = set(key_terms(analysis))
    out: list[str] = []
    for word in re.findall(
        r"[A-Za-z_][\w.]*\w|\d+", " ".join([*analysis.entities, analysis.action, analysis.question])
    ):
        if word.lower() not in out and set(terms(word)) & wanted:
            out.append(word.lower())
    return out[:12]  # a prompt's key terms, not the whole question
