"""BFCL as a tool-retrieval set: shaping a few synthetic lines, and a split fixed by sha256 of task ids.

No download: the loader's shaping takes the wheel's members as text, so these lines are written here.
"""

from __future__ import annotations

import hashlib
import json
import random

from bench import bfcl
from bench.tool_tasks import Task, sample, split
from deepr_mcp.gateway import ToolRegistry


def _function(name: str, description: str, **params: str) -> dict[str, object]:
    props = {p: {"type": "string", "description": text} for p, text in params.items()}
    return {
        "name": name,
        "description": description,
        "parameters": {"type": "dict", "properties": props, "required": []},
    }


def _jsonl(*rows: dict[str, object]) -> str:
    return "\n".join(json.dumps(row) for row in rows) + "\n"


def _user(text: str, system: str | None = None) -> list[list[dict[str, str]]]:
    turn = ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": text}]
    return [turn]


KILN = _function("kiln.fire", "Start a firing of the pottery kiln at a temperature.", temperature="Degrees Celsius.")
KILN_REWORDED = _function("kiln.fire", "Heat the kiln for a firing.", temperature="Target heat.")
GLAZE = _function("glaze_mix", "Mix a glaze from a recipe of oxides.", recipe="Oxides and their weights.")
CLAY = _function("clay_order", "Order bags of clay from the supplier.", bags="How many bags.")
WEATHER = _function("weather.now", "Current weather at a place.", place="A city.")

MEMBERS = {
    bfcl.question_member("live_simple"): _jsonl(
        {"id": "live_simple_0-0-0", "question": _user("fire the kiln at 1200 degrees"), "function": [KILN]},
        {
            "id": "live_simple_1-1-0",
            "question": _user("mix me a celadon glaze", system="You are a potter's assistant."),
            "function": [GLAZE, KILN_REWORDED],
        },
        {"id": "live_simple_2-2-0", "question": _user("order clay"), "function": [CLAY]},
    ),
    bfcl.answer_member("live_simple"): _jsonl(
        {"id": "live_simple_0-0-0", "ground_truth": [{"kiln.fire": {"temperature": [1200]}}]},
        {"id": "live_simple_1-1-0", "ground_truth": [{"glaze_mix": {"recipe": ["celadon"]}}]},
    ),
    bfcl.question_member("parallel_multiple"): _jsonl(
        {
            "id": "parallel_multiple_0",
            "question": _user("Fire the kiln and then mix a glaze for the second firing."),
            "function": [KILN_REWORDED, GLAZE],
        }
    ),
    bfcl.answer_member("parallel_multiple"): _jsonl(
        {"id": "parallel_multiple_0", "ground_truth": [{"kiln.fire": {}}, {"glaze_mix": {}}, {"kiln.fire": {}}]}
    ),
    bfcl.question_member("live_irrelevance"): _jsonl(
        {"id": "live_irrelevance_0-0-0", "question": _user("what's the weather?"), "function": [WEATHER]}
    ),
}


def test_every_distinct_function_is_one_tool_in_one_catalogue() -> None:
    specs, bare, _ = bfcl.shape(MEMBERS)
    assert sorted(s.name for s in specs) == ["clay_order", "glaze_mix", "kiln.fire", "weather.now"]
    assert bare == {s.name: s.name for s in specs}
    kiln = next(s for s in specs if s.name == "kiln.fire")
    assert kiln.description == KILN["description"], "a name's first occurrence is the tool registered"
    assert kiln.input_schema["type"] == "object"
    assert kiln.input_schema["properties"]["temperature"]["description"] == "Degrees Celsius."
    assert {s.upstream for s in specs} == {"bfcl"} and {s.category for s in specs} == {"upstream"}


def test_tasks_are_the_users_words_with_the_functions_their_answers_call() -> None:
    _, _, tasks = bfcl.shape(MEMBERS)
    by_id = {t.id: t for t in tasks}
    assert set(by_id) == {"live_simple_0-0-0", "live_simple_1-1-0", "parallel_multiple_0"}, (
        "a request without an answer, and the distractors' requests, are not asked"
    )
    assert by_id["live_simple_0-0-0"].gold == {"kiln.fire"}
    assert by_id["live_simple_1-1-0"].question == "mix me a celadon glaze", "the system prompt is not the request"
    assert by_id["live_simple_1-1-0"].gold == {"glaze_mix"}, "a candidate the answer does not call is no gold"
    assert by_id["parallel_multiple_0"].gold == {"kiln.fire", "glaze_mix"}


def test_the_shaped_tools_are_searched_by_the_products_registry() -> None:
    specs, _, tasks = bfcl.shape(MEMBERS)
    registry = ToolRegistry(specs)
    for task in tasks:
        top = [hit.name for hit in registry.search(task.question, 3, mode="lexical")]
        assert task.gold & set(top), (task.question, top)
    assert [hit.name for hit in registry.search("weather in a city", 1, mode="lexical")] == ["weather.now"]


def _tasks(n: int) -> list[Task]:
    return [Task(f"task_{i}", f"request {i}", frozenset({"tool"})) for i in range(n)]


def test_the_split_holds_out_every_third_task_in_order_of_sha256_of_its_id() -> None:
    tasks = _tasks(30)
    tuning, heldout = split(tasks)
    ordered = sorted(t.id for t in tasks)
    ordered.sort(key=lambda i: hashlib.sha256(i.encode()).hexdigest())
    assert [t.id for t in heldout] == ordered[2::3]
    assert len(tuning) == 20 and not {t.id for t in tuning} & {t.id for t in heldout}
    shuffled = tasks[:]
    random.Random(7).shuffle(shuffled)
    assert split(shuffled) == (tuning, heldout), "the split depends on the ids only, not on their order"


def test_the_sample_is_fixed_by_sha256_and_its_split_pinned() -> None:
    tasks = _tasks(50)
    chosen = sample(tasks, 12)
    shuffled = tasks[::-1]
    assert sample(shuffled, 12) == chosen
    assert len(chosen) == 12 and sample(tasks, 100) == sorted(
        tasks, key=lambda t: hashlib.sha256(t.id.encode()).hexdigest()
    )
    assert bfcl.split_digest(chosen) == bfcl.split_digest(sample(shuffled, 12))
    assert bfcl.split_digest(chosen) != bfcl.split_digest(sample(tasks, 13))
    assert len(bfcl.SPLIT_SHA256) == 64 and bfcl.SAMPLE_SIZE == 300
