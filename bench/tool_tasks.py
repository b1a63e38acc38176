"""A tool-retrieval task (a request and the tools that do it) and the fixed split of a task set.

Shared by the public sets bench/tool_retrieval.py measures, so each is split the same way:
in order of sha256(task id), every third task held out (run once, at the end, with ``--heldout``).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass


@dataclass(frozen=True)
class Task:
    id: str
    question: str
    gold: frozenset[str]
    """Bare tool names (any registered tool of that bare name counts)."""


def _order(task: Task) -> str:
    return hashlib.sha256(task.id.encode()).hexdigest()


def split(tasks: list[Task]) -> tuple[list[Task], list[Task]]:
    """(tuning, held out): in order of sha256(task id), every third task is held out."""
    ordered = sorted(tasks, key=_order)
    return [t for i, t in enumerate(ordered) if i % 3 != 2], [t for i, t in enumerate(ordered) if i % 3 == 2]


def sample(tasks: list[Task], size: int) -> list[Task]:
    """The first ``size`` tasks in order of sha256(task id): a fixed sample of a set too big to run whole."""
    return sorted(tasks, key=_order)[:size]
