"""Federation: upstream MCP servers whose tools join deepr-mcp's catalogue.

One idea per module (the ``[[upstreams]]`` and ``[[research.sources]]`` entries are settings, in
``config/upstreams.py``): ``transport`` (the SDK transport for an entry), ``stdio`` (the SDK's
stdio transport with a linear, bounded line reader), ``breaker`` (refuse fast after repeated
failures), ``errors``, ``connection`` (the one shared session: lazy, reconnecting, coalesced
listing, bounded calls), ``catalogue`` (its tools in the registry, kept in step), ``pool`` (every
upstream, owned by the server's lifespan) and ``research_source`` (an upstream tool as a
campaign's evidence source).

Upstream resources and prompts are not federated in this version: deepr's resources carry
per-principal ownership checks and subscriptions fanned out by its own notifier, and proxying an
upstream's ``resources/subscribe`` and prompt arguments through both protocol eras is its own
piece of work. Only tools are mapped; an upstream's resources stay reachable through its tools.
"""
