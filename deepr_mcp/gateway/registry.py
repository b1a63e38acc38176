"""The tool catalogue and its search: BM25 over the tools' words, fused with their meaning.

Registering is cheap and search is lazy: the index is rebuilt once, before the first
search after any change, so loading 10,000 tools costs one build, not 10,000. With tool
vectors attached (``use_vectors``), each tool's BM25 score and its cosine with the query are
fused (``MEANING_WEIGHT``), so "keep a note of this for later" finds a memory tool that never says "note";
tools not embedded yet are ranked by words alone meanwhile.
"""

from __future__ import annotations

import difflib
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Final, Literal, get_args

import numpy as np

from deepr_mcp.gateway.index import BM25Index
from deepr_mcp.gateway.spec import SearchHit, ToolSpec
from deepr_mcp.gateway.vectors import ToolVectors, text_key, tool_text
from deepr_mcp.text.tokenizer import expand_query, tokenize

__all__ = ["DESTRUCTIVE_WORDS", "SEARCH_MODES", "SearchMode", "ToolRegistry"]

SearchMode = Literal["lexical", "semantic", "hybrid"]
SEARCH_MODES: Final[tuple[str, ...]] = get_args(SearchMode)

MEANING_WEIGHT: Final = 0.6
"""Share of meaning in the fused score ``(1 - w) * BM25 / best BM25 + w * cosine / best cosine``.

Measured on LiveMCPBench's tuning two thirds (bench/tool_retrieval.py), Recall@3: reciprocal rank
fusion (k = 60) 0.524; this fusion 0.587 at w = 0.4, 0.619 from 0.5 to 0.6, 0.587 at 0.7 (the
catalogue's own 132 queries: 0.841-0.856 throughout). Rank fusion throws away how far ahead the best
match is; these scores keep it, each half relative to its best so BM25's unbounded scores and
cosines weigh alike. Relative to the best, not min-max rescaled: with a handful of tools, min-max
would blow a hair's difference in cosine up to the whole scale. BFCL's tuning two thirds agree (with
``LENGTH_NORMALISATION`` 0.3, Recall@3 0.790 / 0.810 / 0.815 / 0.810 / 0.800 at w = 0.5 / 0.55 / 0.6 /
0.65 / 0.7). Measured there and on LiveMCPBench's 94 tasks (b 0.75; 0.800 and 0.617 as it is) and not
kept: min-max or z-scores over each half's top 5-50 (BFCL 0.780-0.810, LiveMCPBench 0.511-0.606); only
cosines min-max over their top 10-20 at w 0.5 (BFCL 0.825, LiveMCPBench 0.596-0.606); fusing only the
union of each half's top 5-50 (0.795-0.800, 0.606-0.617)."""

LENGTH_NORMALISATION: Final = 0.3
"""BM25's ``b`` over tool text: how far a longer tool document's term matches are discounted.

A tool's document grows with the parameters it documents (half of BFCL's tool words are parameter
names and descriptions; length and parameter count correlate at 0.79), not with drifting off its
subject as a long web page does, so the usual 0.75 mostly punishes well-documented tools. Measured
(bench/tool_retrieval.py, fused, ``MEANING_WEIGHT`` 0.6): BFCL tuning two thirds, Recall@3 / MRR 0.800 /
0.726 at 0.75, 0.805 / 0.734 at 0.5, 0.810-0.815 / 0.744-0.753 for every b from 0 to 0.4 (0.815 / 0.750
at 0.3); LiveMCPBench's 94 tasks, Recall@3 0.617 at every b, MRR 0.511 at 0.75 and 0.521 at 0.3. By
words alone, 0.3 against 0.75: BFCL 0.760 / 0.701 against 0.755 / 0.709, LiveMCPBench 0.511 / 0.460
against 0.500 / 0.439, and this server's own 44 tools (bench/queries.py, Recall@1 / @3) 0.545 / 0.773
against 0.598 / 0.803, where fused goes 0.644 / 0.841 -> 0.636 / 0.864: the default ranking gains;
words alone (``embedder none``) gain on the public sets and lose four of 132 queries written beside
the tools. ``k1`` from 1.0 to 2.5 at 0.3: fused Recall@3 0.805-0.815 on BFCL, 0.606-0.617 on
LiveMCPBench; it stays 1.5."""

NAME_WEIGHT = 3
"""How many times a tool's name tokens count against its description's: names are the
most deliberate words a tool author writes."""

DESTRUCTIVE_WORDS = frozenset(
    tokenize(
        "delete remove drop erase purge destroy wipe cancel kill abort stop halt terminate overwrite replace "
        "reset clear uninstall revoke forget discard trash unlink truncate rm del unshare"
    )
)
"""Stems of verbs that ask for something to be destroyed or ended; a query with none of them
is a read or create request, and destructive tools step back in its ranking."""

DESTRUCTIVE_DAMPING = 0.7
"""A destructive tool's score multiplier for a query without a destructive verb: enough that a
read-only tool of similar score comes first, not so much that a clearly better match drops out."""


def document_tokens(spec: ToolSpec) -> list[str]:
    """Name (weighted), description, and every parameter's name and description."""
    tokens = tokenize(spec.name) * NAME_WEIGHT
    tokens += tokenize(spec.description)
    tokens += tokenize(spec.category)
    for param, body in _properties(spec.input_schema).items():
        tokens += tokenize(param)
        if isinstance(body, dict) and isinstance(body.get("description"), str):
            tokens += tokenize(body["description"])
    return tokens


def _properties(schema: dict[str, Any]) -> dict[str, Any]:
    props = schema.get("properties")
    return props if isinstance(props, dict) else {}


@dataclass(frozen=True, slots=True)
class _Snapshot:
    """One consistent build: the index, its tools in name order, and the per-tool arrays ranking uses."""

    index: BM25Index
    specs: list[ToolSpec]
    keys: list[str]
    """Each tool's text hash: where its vector is found in ``ToolVectors``."""
    calm: np.ndarray
    """Score multiplier per tool for a query without a destructive verb."""
    groups: dict[str, tuple[dict[str, int], np.ndarray]]
    """"category" | "source" -> (value -> code, each tool's code), for filtering without a loop."""

    @classmethod
    def build(cls, specs: list[ToolSpec]) -> _Snapshot:
        index = BM25Index([document_tokens(spec) or ["_"] for spec in specs], b=LENGTH_NORMALISATION)
        calm = np.array(
            [DESTRUCTIVE_DAMPING if s.annotations is not None and s.annotations.may_destroy else 1.0 for s in specs]
        )
        groups = {}
        for attr in ("category", "source"):
            codes: dict[str, int] = {}
            column = np.array([codes.setdefault(getattr(s, attr), len(codes)) for s in specs], dtype=np.int32)
            groups[attr] = (codes, column)
        return cls(index, specs, [text_key(tool_text(s)) for s in specs], calm, groups)

    def mask(self, attr: str, value: str) -> np.ndarray | None:
        codes, column = self.groups[attr]
        code = codes.get(value)
        return None if code is None else column == code


STALE_SHARE = 2
"""Score a copy of the catalogue's own rows once the vector store holds more than this many times as many
(vectors kept on disk for tools of earlier catalogues, loaded at start, are otherwise scored every search)."""


class ToolRegistry:
    """Named tools plus a BM25 index over their text; safe to share between connections."""

    def __init__(self, specs: Iterable[ToolSpec] = (), *, vectors: ToolVectors | None = None) -> None:
        self._specs: dict[str, ToolSpec] = {}
        self._lock = threading.Lock()
        self._snapshot: _Snapshot | None = None
        self._positions: tuple[_Snapshot, int, np.ndarray, np.ndarray] | None = None
        """The snapshot's rows in ``vectors`` at a version (refreshed when vectors are added or forgotten),
        and the matrix they index: the store's, or those rows copied out when most stored vectors belong
        to tools no longer listed (then the positions are 0..n-1, -1 where not embedded)."""
        self.vectors: ToolVectors | None = None
        self.register_many(specs)
        if vectors is not None:
            self.use_vectors(vectors)

    def use_vectors(self, vectors: ToolVectors | None) -> None:
        """Rank by meaning too, with ``vectors``' embedder; every tool is queued to be embedded."""
        with self._lock:
            self.vectors = vectors
            self._positions = None
            specs = list(self._specs.values())
        if vectors is not None:
            vectors.want(specs)

    def register(self, spec: ToolSpec) -> None:
        """Add or replace a tool; a name must be 1-64 chars of letters, digits, ``_``, ``-``, ``.``."""
        _check_name(spec.name)
        with self._lock:
            self._specs[spec.name] = spec
            self._snapshot = None
        if self.vectors is not None:
            self.vectors.want([spec])

    def register_many(self, specs: Iterable[ToolSpec]) -> None:
        specs = list(specs)
        for spec in specs:
            _check_name(spec.name)
        with self._lock:
            for spec in specs:
                self._specs[spec.name] = spec
            self._snapshot = None
        if self.vectors is not None:
            self.vectors.want(specs)

    def unregister(self, name: str) -> None:
        with self._lock:
            if self._specs.pop(name, None) is not None:
                self._snapshot = None

    def get(self, name: str) -> ToolSpec | None:
        return self._specs.get(name)

    def __len__(self) -> int:
        return len(self._specs)

    def __contains__(self, name: object) -> bool:
        return name in self._specs

    def __iter__(self) -> Iterator[ToolSpec]:
        return iter(sorted(self._specs.values(), key=lambda s: s.name))

    def names(self) -> list[str]:
        return sorted(self._specs)

    def categories(self) -> list[str]:
        return sorted({s.category for s in list(self._specs.values())})

    def sources(self) -> list[str]:
        return sorted({s.source for s in list(self._specs.values())})

    def search(
        self,
        query: str,
        limit: int = 3,
        *,
        category: str | None = None,
        source: str | None = None,
        mode: SearchMode = "hybrid",
    ) -> list[SearchHit]:
        """Best ``limit`` tools for ``query``, optionally only of one ``category`` or ``source``.

        ``hybrid`` (the default) fuses BM25 with the nearest tools by meaning when vectors are
        attached, else it is ``lexical``: BM25 alone, where a tool sharing no term with the query
        is never returned. ``semantic`` ranks by cosine alone (to compare; nothing without vectors).
        Ties go by name so results are deterministic. Unless the query asks to destroy or end
        something (``DESTRUCTIVE_WORDS``), tools whose annotations say they may destroy score
        ``DESTRUCTIVE_DAMPING`` times less, so "find documents" reaches a search before a removal.
        """
        if mode not in SEARCH_MODES:
            raise ValueError(f"unknown search mode {mode!r}; allowed: {', '.join(SEARCH_MODES)}")
        tokens = tokenize(query)
        terms = expand_query(tokens)
        snap = self._ensure_index()
        if snap is None or limit <= 0:
            return []
        allowed = np.ones(len(snap.specs), dtype=bool)
        for attr, value in (("category", category), ("source", source)):
            if value is not None:
                mask = snap.mask(attr, value)
                if mask is None:
                    return []
                allowed &= mask
        lexical = snap.index.scores(terms) if terms else np.zeros(len(snap.specs))
        lexical = np.where(allowed, lexical, 0.0)
        similarity = self._similarity(snap, query, allowed) if mode != "lexical" and query.strip() else None
        if mode == "semantic":
            scores = np.zeros(len(snap.specs)) if similarity is None else similarity
        elif similarity is None:
            scores = lexical
        else:
            scores = _fused(lexical, similarity)
        if mode != "semantic" and DESTRUCTIVE_WORDS.isdisjoint(tokens):
            scores = scores * snap.calm
        return _top(snap, scores, limit)

    def needs_model(self, query: str, mode: SearchMode = "hybrid") -> bool:
        """Whether searching ``query`` runs the embedder (milliseconds of CPU: worth a worker thread);
        ``False`` by words alone, with no tool embedded yet, or for a query whose vector is cached."""
        vectors = self.vectors
        return (
            mode != "lexical"
            and vectors is not None
            and vectors.version > 0
            and bool(query.strip())
            and not vectors.knows_query(query)
        )

    def _similarity(self, snap: _Snapshot, query: str, allowed: np.ndarray) -> np.ndarray | None:
        """Cosine of the query with each embedded, allowed tool (0 elsewhere, shifted so hits are > 0);
        ``None`` while no tool of the snapshot has a vector (the query is then not embedded at all)."""
        vectors = self.vectors
        if vectors is None:
            return None
        rows, matrix = self._rows_of(snap, vectors)
        have = (rows >= 0) & allowed
        if not have.any():
            return None
        # einsum runs in this thread; ``@`` hands a matrix-vector product to BLAS's thread pool, whose
        # start-up costs more than the product itself (2.4 against 0.6 CPU-ms at 10,000 tools).
        query_vector = vectors.embed_query(query)
        out = np.zeros(len(snap.specs))
        # cosine in [-1, 1] -> (0, 2]: a tool without a vector stays at 0
        out[have] = 1.0 + np.einsum("ij,j->i", matrix, query_vector)[rows[have]]
        return out

    def _rows_of(self, snap: _Snapshot, vectors: ToolVectors) -> tuple[np.ndarray, np.ndarray]:
        """The snapshot's row per tool and the matrix those rows index, taken together (``vectors.layout``):
        the store's matrix, or a copy of the catalogue's own rows when the store holds more than
        ``STALE_SHARE`` times as many vectors (a cache kept for tools of earlier catalogues: scoring every
        stored row would cost each search for tools no longer listed)."""
        with self._lock:
            cached = self._positions
        if cached is not None and cached[0] is snap and cached[1] == vectors.version:
            return cached[2], cached[3]
        layout = vectors.layout(snap.keys)
        rows, matrix = layout.positions, layout.matrix
        if len(matrix) > STALE_SHARE * max(len(rows), 1):
            matrix = np.where((rows >= 0)[:, None], matrix[np.maximum(rows, 0)], np.float32(0.0))
            rows = np.where(rows >= 0, np.arange(len(rows)), -1)
        with self._lock:
            self._positions = (snap, layout.version, rows, matrix)
        return rows, matrix

    def closest_names(self, name: str, limit: int = 3) -> list[str]:
        """Registered names nearest to an unknown one: spelling first, then meaning."""
        names = list(self._specs)
        close = difflib.get_close_matches(name, names, n=limit, cutoff=0.5)
        if len(close) < limit:
            close += [hit.name for hit in self.search(name.replace("_", " "), limit) if hit.name not in close]
        return close[:limit]

    def _ensure_index(self) -> _Snapshot | None:
        with self._lock:
            if self._snapshot is None and self._specs:
                self._snapshot = _Snapshot.build([self._specs[n] for n in sorted(self._specs)])
            return self._snapshot


def _fused(lexical: np.ndarray, similarity: np.ndarray) -> np.ndarray:
    """BM25 and cosine (clipped at 0), each divided by its best among the candidates, mixed by ``MEANING_WEIGHT``.

    A tool not embedded yet (similarity 0) takes its BM25 share for its meaning too: otherwise a tool
    just registered would lose to every tool with a vector, instead of being ranked by words until
    its vector arrives. ``similarity`` is 0 for a tool a filter leaves out, and so is ``lexical``.
    """
    best = lexical.max()
    by_words = lexical / best if best > 0 else lexical
    embedded = similarity > 0
    cosines = np.where(embedded, np.maximum(similarity - 1.0, 0.0), 0.0)
    top = cosines.max()
    by_meaning = np.where(embedded, cosines / top if top > 0 else cosines, by_words)
    return (1 - MEANING_WEIGHT) * by_words + MEANING_WEIGHT * by_meaning


def _top(snap: _Snapshot, scores: np.ndarray, limit: int) -> list[SearchHit]:
    found = np.flatnonzero(scores > 0)
    if found.size > limit:  # keep everything tied with the limit-th best, then order exactly
        kth = np.partition(scores[found], found.size - limit)[found.size - limit]
        found = found[scores[found] >= kth]
    ranked = found[np.lexsort((found, -scores[found]))][:limit]  # name order breaks ties
    return [SearchHit(snap.specs[i].name, round(float(scores[i]), 4), snap.specs[i]) for i in ranked]


def _check_name(name: str) -> None:
    if not (1 <= len(name) <= 64) or not all(c.isascii() and (c.isalnum() or c in "_-.") for c in name):
        raise ValueError(f"invalid tool name {name!r}: use 1-64 characters of letters, digits, '_', '-' or '.'")
