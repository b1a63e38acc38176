"""Asking a human through their client: budget decisions over elicitation/create (handshake era) or a
tool call's InputRequiredResult (2026-07-28), and who may be asked about a campaign."""
