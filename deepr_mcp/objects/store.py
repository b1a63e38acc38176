"""Where stored objects live: a Protocol, and the in-memory backend with a TTL that is the default.

An object belongs to the principal whose call produced it; every read names the owner, and an
object of another owner answers exactly as an unknown id does, so ids cannot be probed. Ids carry
96 random bits (``secrets``): knowing one object's id says nothing about another's.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = ["MemoryObjectStore", "ObjectStore", "StoredObject", "kind_of", "new_object_id"]

ID_PREFIX = "obj_"
ID_HEX = 24


def new_object_id() -> str:
    return ID_PREFIX + secrets.token_hex(ID_HEX // 2)


def kind_of(value: Any) -> str:
    """The JSON type name of a value: what errors and previews call it."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "null" if value is None else type(value).__name__


@dataclass(frozen=True, slots=True)
class StoredObject:
    id: str
    owner: str
    value: Any
    size_bytes: int
    expires_at: float

    @property
    def kind(self) -> str:
        return kind_of(self.value)


class ObjectStore(Protocol):
    """A backend for stored objects (async, so a networked one such as Redis fits the same seam)."""

    async def put(self, owner: str, value: Any, size_bytes: int) -> StoredObject: ...

    async def get(self, owner: str, object_id: str) -> StoredObject | None:
        """The object if it exists, has not expired and belongs to ``owner``; else ``None``."""
        ...


class MemoryObjectStore:
    """Objects in this process's memory, each kept ``ttl_s`` seconds.

    Each owner holds at most ``max_bytes_per_owner``; storing past it drops that owner's oldest
    objects first, so one principal's flood never evicts another's. All owners together hold at most
    ``max_total_bytes`` (OAuth subjects are unbounded in number, so per-owner limits alone do not bound
    memory): past it, the owner holding the most bytes loses its oldest first, so the principal
    flooding the store pays for it.
    """

    def __init__(
        self,
        *,
        ttl_s: float,
        max_bytes_per_owner: int,
        max_total_bytes: int | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.ttl_s = ttl_s
        self.max_bytes_per_owner = max_bytes_per_owner
        self.max_total_bytes = max_total_bytes or max_bytes_per_owner * 8
        self._clock = clock
        self._objects: OrderedDict[str, StoredObject] = OrderedDict()
        self._bytes: dict[str, int] = {}
        self.evicted = 0
        """Objects dropped before their TTL to keep the total under ``max_total_bytes``."""
        self._lock = threading.Lock()

    @property
    def total_bytes(self) -> int:
        return sum(self._bytes.values())

    async def put(self, owner: str, value: Any, size_bytes: int) -> StoredObject:
        if size_bytes > self.max_bytes_per_owner:
            raise ValueError(f"{size_bytes} bytes is over the per-owner limit of {self.max_bytes_per_owner}")
        if size_bytes > self.max_total_bytes:
            raise ValueError(f"{size_bytes} bytes is over the total limit of {self.max_total_bytes}")
        with self._lock:
            now = self._clock()
            self._expire(now)
            for old in [o for o in self._objects.values() if o.owner == owner]:
                if self._bytes.get(owner, 0) + size_bytes <= self.max_bytes_per_owner:
                    break
                self._drop(old)
            while sum(self._bytes.values()) + size_bytes > self.max_total_bytes:
                biggest = max(self._bytes, key=lambda o: self._bytes[o] + (size_bytes if o == owner else 0))
                self._drop(next(o for o in self._objects.values() if o.owner == biggest))
                self.evicted += 1
            stored = StoredObject(new_object_id(), owner, value, size_bytes, now + self.ttl_s)
            self._objects[stored.id] = stored
            self._bytes[owner] = self._bytes.get(owner, 0) + size_bytes
            return stored

    async def get(self, owner: str, object_id: str) -> StoredObject | None:
        with self._lock:
            self._expire(self._clock())
            found = self._objects.get(object_id)
            return found if found is not None and found.owner == owner else None

    def __len__(self) -> int:
        return len(self._objects)

    def _expire(self, now: float) -> None:
        # Insertion order is expiry order (one TTL for all), so the expired are at the front.
        while self._objects:
            first = next(iter(self._objects.values()))
            if first.expires_at > now:
                break
            self._drop(first)

    def _drop(self, stored: StoredObject) -> None:
        del self._objects[stored.id]
        self._bytes[stored.owner] -= stored.size_bytes
        if not self._bytes[stored.owner]:
            del self._bytes[stored.owner]
