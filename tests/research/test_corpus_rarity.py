"""The question's terms are weighed by their rarity in the whole corpus, not among the passages shown.

Passages retrieved for a question all hold its main words, so counted among them the word the
question is about looks common and an incidental one ("kiln", in a potter's manual where every
page names the kiln) looks rare: the sentence quoting the incidental word would lead.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from deepr_mcp.research.corpus.storage import Corpus
from deepr_mcp.research.engine import Engine, new_state
from deepr_mcp.research.providers.base import Completion, FindingsRequest, Request
from deepr_mcp.research.providers.local import LocalProvider, findings_text
from deepr_mcp.text.tokenizer import tokenize
from tests.research.requests import findings_request

QUESTION = "Why does glaze crawl in the kiln?"
PAGES = {
    "loading.md": "# Loading\n\nStack the kiln shelves on three posts. The kiln lid closes on the top shelf.\n",
    "firing.md": "# Firing\n\nThe kiln climbs to top heat in eight hours. Vent the kiln until red heat.\n",
    "cooling.md": "# Cooling\n\nLeave the kiln shut until it falls below a hundred degrees.\n",
    "faults.md": "# Glaze faults\n\nGlaze crawls when dust on the bisque keeps it from sticking to the clay.\n",
}


class Recording(LocalProvider):
    """The real local provider, keeping the findings requests it was handed."""

    def __init__(self) -> None:
        self.requests: list[FindingsRequest] = []

    async def research(self, request: Request, *, max_tokens: int = 1024) -> Completion:
        if isinstance(request, FindingsRequest):
            self.requests.append(request)
        return await super().research(request, max_tokens=max_tokens)


async def test_the_engine_hands_the_provider_corpus_wide_rarity(tmp_path: Path) -> None:
    for name, text in PAGES.items():
        (tmp_path / name).write_text(text)
    corpus = Corpus(tmp_path / "corpus.db")
    corpus.add_path(tmp_path)
    provider = Recording()
    await Engine(corpus, provider).run(new_state(QUESTION))
    assert provider.requests
    kiln, crawl = tokenize("kiln")[0], tokenize("crawl")[0]
    for request in provider.requests:
        passages, counts = request.corpus_counts
        assert passages == corpus.passage_count() == 4
        assert dict(counts)[kiln] == 3 and dict(counts)[crawl] == 1  # every page but one names the kiln


def test_the_sentence_about_the_rare_term_leads() -> None:
    passages = [
        (1, "glazes.md, Glazes > Firing", "The kiln vents stay open until the glaze has dried on every pot."),
        (2, "glazes.md, Glazes > Faults", "Glaze crawls when dust on the bisque keeps it from sticking to the clay."),
        (3, "glazes.md, Glazes > Repairs", "Crawl marks can be ground smooth and fired again."),
    ]
    request = findings_request(QUESTION, passages)
    # counted among these three passages "kiln" (one of three) is rarer than "crawl" (two of three)
    assert findings_text(request).startswith("- The kiln vents")
    counts = {tokenize("kiln")[0]: 40, tokenize("glaze")[0]: 6, tokenize("crawl")[0]: 1}
    weighed = findings_text(dataclasses.replace(request, corpus_counts=(40, tuple(counts.items()))))
    assert weighed.startswith("- Glaze crawls when dust on the bisque"), weighed
