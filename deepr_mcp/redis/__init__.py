"""The Redis (or Valkey) engines behind the store, bus, lease and count seams, for several replicas.

Each implements a seam whose embedded default lives beside its Protocol (SQLite in ``jobs/``,
``experts/``, ``objects/``); this room holds only what ``store.url`` turns on, so a single-process
server never imports the redis client. (Inside the package, ``import redis`` is still the client
library: imports are absolute.)
"""
