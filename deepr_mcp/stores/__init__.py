"""Shared engines behind the store and lease seams: Redis (or Valkey) for several replicas.

SQLite stays the default and lives beside its Protocol in ``jobs/``; this room holds only what
``store.url`` turns on, so a single-process server never imports the redis client.
"""
