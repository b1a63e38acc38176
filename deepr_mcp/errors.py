"""One error tree for the whole package.

Services raise these with a message a user can act on (what was wrong, what is allowed);
the wiring layer maps them once onto MCP: an ``isError`` tool result, or a JSON-RPC error
for protocol misuse. Nothing else catches broad exceptions except fan-out boundaries.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the CLI imports this module; --help must not pay for pydantic
    from pydantic import ValidationError

__all__ = [
    "BudgetExceeded",
    "Conflict",
    "DeeprError",
    "Forbidden",
    "InvalidInput",
    "NotFound",
    "PathRejected",
    "ProviderError",
    "QuotaExceeded",
    "describe_validation_error",
]


class DeeprError(Exception):
    """Base of every error deepr-mcp raises on purpose; its message is shown to the client."""

    code: str = "error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidInput(DeeprError):
    """The caller sent something the tool cannot accept; the message says what is allowed."""

    code = "invalid_input"


class NotFound(DeeprError):
    """A named thing (tool, campaign, expert, file, resource) does not exist."""

    code = "not_found"


class Forbidden(DeeprError):
    """The caller's principal lacks a scope or does not own (and was not shared) the record; says which."""

    code = "forbidden"


class Conflict(DeeprError):
    """The request is valid but not in the current state (cancel a finished campaign, ...)."""

    code = "conflict"


class PathRejected(InvalidInput):
    """A sandbox path broke a rule; ``rule`` names which one."""

    code = "path_rejected"

    def __init__(self, path: str, rule: str, detail: str) -> None:
        super().__init__(f"path {path!r} rejected ({rule}): {detail}")
        self.path = path
        self.rule = rule


class QuotaExceeded(DeeprError):
    """A write would take a sandbox past its byte or file-count quota."""

    code = "quota_exceeded"


class BudgetExceeded(DeeprError):
    """Spending more would pass the campaign's budget without an approval."""

    code = "budget_exceeded"


class ProviderError(DeeprError):
    """An LLM, search or fetch provider failed; the message names the provider and why."""

    code = "provider_error"

    def __init__(self, provider: str, message: str, *, status: int | None = None, retryable: bool = False) -> None:
        super().__init__(f"{provider}: {message}")
        self.provider = provider
        self.status = status
        self.retryable = retryable


def describe_validation_error(tool: str, exc: ValidationError) -> str:
    """One line per problem, naming the argument, what was wrong and what is allowed.

    Every way into a tool (a call, a task, a prompt, the command line) words its refusal with this.
    """
    parts = []
    for err in exc.errors(include_url=False):
        where = ".".join(str(p) for p in err["loc"]) or "arguments"
        if err["type"] == "extra_forbidden":
            parts.append(f"{where}: unknown argument")
        elif err["type"] == "missing":
            parts.append(f"{where}: required")
        else:
            parts.append(f"{where}: {err['msg'].removeprefix('Value error, ')}")
    return f"invalid arguments for {tool}: " + "; ".join(parts)
