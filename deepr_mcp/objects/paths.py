"""References to stored objects: ``@obj_<id>`` followed by ``.name``, ``[3]`` or ``["key"]`` steps.

Parsing and walking are pure functions; every failure is a ``ReferenceProblem`` whose message
says what was wrong and what is allowed.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from deepr_mcp.objects.store import kind_of

__all__ = ["MAX_REF_CHARS", "MAX_STEPS", "Ref", "ReferenceProblem", "parse_ref", "walk"]

MAX_REF_CHARS = 1000
MAX_STEPS = 64
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*")
_HEAD = re.compile(r"@(obj_[A-Za-z0-9]*)")
_STEP = re.compile(r"\.([A-Za-z_][A-Za-z0-9_\-]*)|\[(-?\d{1,18})\]|\[(\"(?:[^\"\\]|\\.)*\")\]|\['([^'\\]*)'\]")
SYNTAX = '@obj_<id> then steps like .name, [3] or ["key with spaces"], e.g. @obj_ab12.items[3].title'


class ReferenceProblem(ValueError):
    """A reference that cannot be followed: bad syntax, unknown id, missing key, wrong type."""


@dataclass(frozen=True, slots=True)
class Ref:
    object_id: str
    steps: tuple[str | int, ...]
    text: str

    def with_steps(self, *more: str | int) -> str:
        """The reference text of a value below this one."""
        return "@" + self.object_id + "".join(step_text(step) for step in (*self.steps, *more))


def step_text(step: str | int) -> str:
    if isinstance(step, int):
        return f"[{step}]"
    return f".{step}" if _NAME.fullmatch(step) else f"[{json.dumps(step)}]"


def parse_ref(text: str) -> Ref:
    if len(text) > MAX_REF_CHARS:
        raise ReferenceProblem(f"reference is {len(text)} characters; at most {MAX_REF_CHARS} are allowed")
    head = _HEAD.match(text)
    if head is None:
        raise ReferenceProblem(f"{text[:80]!r} is not a reference; write {SYNTAX}")
    steps: list[str | int] = []
    pos = head.end()
    while pos < len(text):
        step = _STEP.match(text, pos)
        if step is None:
            raise ReferenceProblem(
                f"bad path in {text[:80]!r} at character {pos}: {text[pos : pos + 20]!r}; write {SYNTAX}"
            )
        name, index, quoted, single = step.groups()
        if index is not None:
            steps.append(int(index))
        elif quoted is not None:
            steps.append(json.loads(quoted))
        else:
            steps.append(name if name is not None else single)
        if len(steps) > MAX_STEPS:
            raise ReferenceProblem(f"path of {text[:80]!r}... has more than {MAX_STEPS} steps")
        pos = step.end()
    return Ref(head.group(1), tuple(steps), text)


def walk(value: Any, ref: Ref) -> Any:
    """Follow ``ref``'s steps into ``value``; a step that does not fit names where and why."""
    here = "@" + ref.object_id
    for step in ref.steps:
        if isinstance(step, int):
            if not isinstance(value, list):
                raise ReferenceProblem(f"{here} is {_a(kind_of(value))}, so [{step}] does not apply; index arrays only")
            if not -len(value) <= step < len(value):
                raise ReferenceProblem(f"{here}[{step}] is out of range: {here} has {len(value)} items")
            value = value[step]
            here += f"[{step}]"
        else:
            if not isinstance(value, dict):
                raise ReferenceProblem(
                    f"{here} is {_a(kind_of(value))}, so .{step} does not apply; name keys of objects"
                )
            if step not in value:
                keys = ", ".join(list(value)[:20]) or "none"
                raise ReferenceProblem(f"{here} has no key {step!r}; its keys: {keys}")
            value = value[step]
            here += step_text(step)
    return value


def _a(kind: str) -> str:
    return ("an " if kind[0] in "aeiou" else "a ") + kind
