"""Big tool outputs kept server-side: stored, previewed, read by path, and passed by reference."""

from deepr_mcp.objects.service import Objects
from deepr_mcp.objects.store import MemoryObjectStore, ObjectStore, StoredObject

__all__ = ["MemoryObjectStore", "ObjectStore", "Objects", "StoredObject"]
