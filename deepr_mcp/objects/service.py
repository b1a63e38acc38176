"""The object store's use cases: keep a big result, read part of one, resolve references in arguments.

The gateway calls ``resolve`` on a call's arguments before validating them and ``finish`` on
its result after the handler (its own tools and upstream ones alike); ``object_get`` and
``object_slice`` call ``get`` and ``slice``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from deepr_mcp.auth.principals import LOCAL
from deepr_mcp.errors import InvalidInput, NotFound
from deepr_mcp.gateway.outcome import ToolOutcome
from deepr_mcp.gateway.spec import ToolSpec
from deepr_mcp.objects.paths import Ref, ReferenceProblem, parse_ref, walk
from deepr_mcp.objects.preview import claimed_output_schema, dumps, shrink
from deepr_mcp.objects.store import ObjectStore, StoredObject, kind_of

__all__ = ["MAX_REFS_PER_CALL", "Objects"]

MAX_REFS_PER_CALL = 32
"""References followed for one call, nested ones included: a bound on the work a call can ask for."""

_JSON_TYPES = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
    "null": (type(None),),
}


class UnknownObject(ReferenceProblem):
    """No such object for this owner (never existed, expired, or another principal's)."""


def owner_of(ctx: Any) -> str:
    """Objects belong to the calling principal (every connection of that principal sees them)."""
    return getattr(ctx, "principal", LOCAL).name


@dataclass
class Objects:
    store: ObjectStore
    threshold_bytes: int
    preview_chars: int
    max_object_bytes: int
    ttl_s: float
    _claims: dict[int, tuple[dict[str, Any], dict[str, Any] | None]] = field(default_factory=dict, repr=False)

    # -- the gateway's hooks ---------------------------------------------------------------

    def output_schema(self, spec: ToolSpec) -> dict[str, Any] | None:
        """What ``tools/list`` may claim for ``spec``: its results can be previews (``finish``)."""
        if spec.output_schema is None or spec.handles_objects:
            return spec.output_schema
        key = id(spec.output_schema)
        if key not in self._claims:  # the schema object is kept in the entry, so its id stays its own
            if len(self._claims) >= 10_000:  # upstreams re-listed many times: start over
                self._claims.clear()
            self._claims[key] = (spec.output_schema, claimed_output_schema(spec.output_schema))
        return self._claims[key][1]

    async def finish(self, ctx: Any, spec: ToolSpec, outcome: ToolOutcome) -> ToolOutcome:
        """A result over ``threshold_bytes`` (its text or its structured content) is stored and previewed.

        Both are measured: an upstream may answer a short text beside a huge ``structuredContent``.
        """
        if outcome.is_error or spec.handles_objects:
            return outcome
        size = 0 if len(outcome.text) * 4 <= self.threshold_bytes else len(outcome.text.encode())
        if outcome.structured is not None and outcome.content is not None:  # an upstream's: measured apart
            size = max(size, len(dumps(outcome.structured).encode()))
        if size <= self.threshold_bytes:
            return outcome  # a char is at most 4 bytes: most results never pay for encoding
        value = outcome.structured if outcome.structured is not None else outcome.text
        if size > self.max_object_bytes:
            return self._not_stored(
                value,
                size,
                f"the result of {spec.name} is {size:,} bytes, over objects.max_object_bytes "
                f"({self.max_object_bytes:,}); only this preview is kept. Ask {spec.name} for less.",
            )
        try:
            stored = await self.store.put(owner_of(ctx), value, size)
        except ValueError as exc:  # over what the backend keeps for one principal
            return self._not_stored(value, size, f"the result of {spec.name} was not stored: {exc}")
        return self._preview(stored, Ref(stored.id, (), "@" + stored.id), value, spec.name)

    async def resolve(self, ctx: Any, spec: ToolSpec, arguments: dict[str, Any]) -> dict[str, Any] | ToolOutcome:
        """Replace every ``"@obj_..."`` string in ``arguments`` by the value it names, nested ones too.

        ``"@@obj_..."`` passes the text with one ``@`` less. Errors name the argument, the
        reference and what went wrong (unknown id, bad path, a cycle, a type the schema refuses).
        """
        if spec.handles_objects or not _mentions_refs(arguments):
            return arguments
        budget = [MAX_REFS_PER_CALL]
        owner = owner_of(ctx)
        props = spec.input_schema.get("properties", {}) if isinstance(spec.input_schema, dict) else {}
        out: dict[str, Any] = {}
        for name, value in arguments.items():
            try:
                out[name] = await self._resolve_value(owner, value, (), budget)
            except ReferenceProblem as exc:
                return ToolOutcome.error(f"argument {name!r} of {spec.name}: {exc}", code="bad_reference")
            if isinstance(value, str) and value.startswith("@obj_"):
                problem = _type_problem(props.get(name), out[name])
                if problem:
                    return ToolOutcome.error(
                        f"argument {name!r} of {spec.name}: {value[:120]} is {problem}", code="bad_reference"
                    )
        return out

    # -- the object tools' use cases -------------------------------------------------------

    async def get(self, ctx: Any, ref_text: str) -> ToolOutcome:
        ref, value = await self._follow(owner_of(ctx), ref_text)
        size = len(dumps(value).encode())
        if size <= self.threshold_bytes:
            answer = {"ref": ref.text, "type": kind_of(value), "size_bytes": size, "value": value}
            return ToolOutcome(text=dumps(answer), structured=answer)
        stored = await self.store.get(owner_of(ctx), ref.object_id)
        assert stored is not None  # _follow just read it
        return self._preview(stored, ref, value, "object_get")

    async def slice(self, ctx: Any, ref_text: str, start: int, end: int | None) -> ToolOutcome:
        ref, value = await self._follow(owner_of(ctx), ref_text)
        if not isinstance(value, list | str):
            raise InvalidInput(f"{ref.text} is {kind_of(value)}; object_slice takes an array or a string")
        stop = len(value) if end is None else min(end, len(value))
        start = min(start, stop)
        part = value[start:stop]
        truncated = False
        while len(dumps(part).encode()) > self.threshold_bytes and len(part) > 1:
            part, truncated = part[: len(part) // 2], True
        oversized = None
        if isinstance(part, list) and part and len(dumps(part).encode()) > self.threshold_bytes:
            # One item alone is over the answer's limit: never sent whole here (object_get previews it).
            size = len(dumps(part[0]).encode())
            oversized = {"index": start, "size_bytes": size, "read_with": f"object_get(ref='{ref.text}[{start}]')"}
            part, truncated = part[:0], True
        stop = start + len(part)
        answer: dict[str, Any] = {"ref": ref.text, "type": kind_of(value), "total": len(value), "start": start}
        answer.update(end=stop, truncated=truncated, items=part)
        if oversized is not None:
            answer["item_too_big"] = oversized
            stop += 1  # the next page starts after it
        if truncated or stop < len(value):
            answer["next_start"] = stop
        return ToolOutcome(text=dumps(answer), structured=answer)

    # -- inside ----------------------------------------------------------------------------

    async def _follow(self, owner: str, ref_text: str) -> tuple[Ref, Any]:
        try:
            ref = parse_ref(ref_text.strip())
            stored = await self._load(owner, ref)
            return ref, walk(stored.value, ref)
        except ReferenceProblem as exc:
            raise (NotFound if isinstance(exc, UnknownObject) else InvalidInput)(str(exc)) from None

    async def _load(self, owner: str, ref: Ref) -> StoredObject:
        stored = await self.store.get(owner, ref.object_id)
        if stored is None:  # expired, never existed, or another principal's: the same answer
            raise UnknownObject(
                f"unknown object @{ref.object_id}: it does not exist, has expired (objects live "
                f"{self.ttl_s:g} s), was dropped to keep the store within its limits, or belongs to another "
                "principal; run the tool again for a fresh one"
            )
        return stored

    async def _resolve_value(self, owner: str, value: Any, chain: tuple[str, ...], budget: list[int]) -> Any:
        if isinstance(value, str):
            if value.startswith("@@obj_"):
                return value[1:]
            if not value.startswith("@obj_"):
                return value
            ref = parse_ref(value)
            if ref.object_id in chain:
                loop = " -> ".join("@" + c for c in (*chain, ref.object_id))
                raise ReferenceProblem(f"reference cycle: {loop}; an object cannot contain a reference to itself")
            budget[0] -= 1
            if budget[0] < 0:
                raise ReferenceProblem(f"more than {MAX_REFS_PER_CALL} references in one call")
            found = walk((await self._load(owner, ref)).value, ref)
            return await self._resolve_value(owner, found, (*chain, ref.object_id), budget)
        if isinstance(value, list):
            return (
                [await self._resolve_value(owner, v, chain, budget) for v in value] if _mentions_refs(value) else value
            )
        if isinstance(value, dict):
            if not _mentions_refs(value):
                return value
            return {k: await self._resolve_value(owner, v, chain, budget) for k, v in value.items()}
        return value

    def _not_stored(self, value: Any, size: int, reason: str) -> ToolOutcome:
        preview, cut = shrink(value, self.preview_chars)
        answer = {
            "truncated": True,
            "object": None,
            "type": kind_of(value),
            "size_bytes": size,
            "preview": preview,
            "cut": cut,
            "not_stored": reason,
        }
        return ToolOutcome(text=dumps(answer), structured=answer)

    def _preview(self, stored: StoredObject, ref: Ref, value: Any, tool: str) -> ToolOutcome:
        preview, cut = shrink(value, self.preview_chars)
        size = len(dumps(value).encode()) if ref.steps else stored.size_bytes
        length = len(value) if isinstance(value, list | str | dict) else None
        answer = {
            "truncated": True,
            "object": {
                "id": stored.id,
                "ref": ref.text,
                "type": kind_of(value),
                "size_bytes": size,
                "length": length,
                "expires_in_s": self.ttl_s,
            },
            "preview": preview,
            "cut": cut,
            "how": f"the result of {tool} was too big to send ({size:,} bytes); preview: arrays cut to their first "
            f"{cut.get('items', 0)} items, strings to {cut['chars']} characters. Read parts with "
            f"object_get(ref='{ref.text}.key' or '{ref.text}[0]'), ranges with object_slice(ref, start, end), "
            f"or pass '{ref.text}...' as any tool argument.",
        }
        return ToolOutcome(text=dumps(answer), structured=answer)


def _mentions_refs(value: Any) -> bool:
    """Cheap pre-check so arguments without references (nearly all) are not rebuilt."""
    if isinstance(value, str):
        return value.startswith(("@obj_", "@@obj_"))
    if isinstance(value, dict):
        return any(_mentions_refs(v) for v in value.values())
    if isinstance(value, list):
        return any(_mentions_refs(v) for v in value)
    return False


def _type_problem(schema: Any, value: Any) -> str | None:
    """``"an array; query takes a string"`` when the schema's plain ``type`` refuses the value."""
    if not isinstance(schema, dict) or "type" not in schema:
        return None
    wanted = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
    for name in wanted:
        types = _JSON_TYPES.get(name)
        if types is None:
            return None
        if isinstance(value, types) and not (isinstance(value, bool) and name in ("integer", "number")):
            return None
    kind = kind_of(value)
    return f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}; it takes {' or '.join(wanted)}"
