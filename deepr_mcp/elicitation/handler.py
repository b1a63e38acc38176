"""Asking a human for a budget decision over ``elicitation/create`` (handshake-era clients).

The connection that started the campaign is asked first; if it is gone or cannot elicit, any
other connected subscriber of the campaign that declared the capability. An invalid answer is
asked again once, then treated as a decline; decline or cancel means abort. If nobody can be
asked, the question waits for ``budget_decide`` (any client) or the timeout's default.
"""

from __future__ import annotations

import logging
from typing import Any

import anyio
import mcp_types as types
from mcp.shared.exceptions import MCPError

from deepr_mcp.elicitation import form
from deepr_mcp.errors import Conflict, InvalidInput
from deepr_mcp.jobs.models import BudgetQuestion, Campaign

logger = logging.getLogger(__name__)

ELICITATION = types.ClientCapabilities(elicitation=types.ElicitationCapability())


class ConnectionRegistry:
    """Live handshake-era connections by id; each removes itself when its connection closes."""

    def __init__(self) -> None:
        self._connections: dict[str, Any] = {}

    def register(self, connection_id: str, connection: Any) -> None:
        if connection_id not in self._connections:
            self._connections[connection_id] = connection
            connection.exit_stack.callback(self._connections.pop, connection_id, None)

    def get(self, connection_id: str | None) -> Any:
        return self._connections.get(connection_id) if connection_id else None

    def __len__(self) -> int:
        return len(self._connections)


class ElicitationHandler:
    def __init__(self, registry: ConnectionRegistry, services: Any, *, timeout_s: float) -> None:
        self.registry = registry
        self.services = services
        self.timeout_s = timeout_s

    def candidates(self, campaign: Campaign) -> list[str]:
        status_uri = campaign.uris()["status"]
        subscribers = [s.connection_id for s in self.services.notifier.subscribers_of(status_uri)]
        ordered = [campaign.owner_connection, *sorted(subscribers)]
        out: list[str] = []
        for cid in ordered:
            connection = self.registry.get(cid)
            if cid and cid not in out and connection is not None and connection.check_capability(ELICITATION):
                out.append(cid)
        return out

    async def ask(self, campaign: Campaign, question: BudgetQuestion) -> None:
        """Try each capable connection in turn until one answers (or the question is settled elsewhere)."""
        for cid in self.candidates(campaign):
            answer = await self._ask_connection(self.registry.get(cid), campaign, question)
            if answer is None:
                continue  # that channel failed (closed, no back-channel, timed out): try the next
            try:
                await self.services.jobs.decide(
                    campaign.id,
                    answer.decision,
                    new_budget=answer.new_budget,
                    channel="elicitation",
                    answered_by=f"connection {cid}",
                )
            except (Conflict, InvalidInput) as exc:
                logger.info("elicited answer for %s not applied: %s", campaign.id, exc.message)
            return

    async def _ask_connection(self, connection: Any, campaign: Campaign, q: BudgetQuestion) -> form.Answer | None:
        problem: str | None = None
        for _attempt in range(2):
            request = types.ElicitRequest(
                params=types.ElicitRequestFormParams(
                    message=form.message(campaign.id, campaign.question, q, problem), requested_schema=form.schema(q)
                )
            )
            try:
                with anyio.fail_after(self.timeout_s):
                    result = await connection.send_request(request)
            except (MCPError, TimeoutError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                return None
            if result.action != "accept":
                return form.Answer("abort")  # decline or cancel: stop, keep the partial report
            checked = form.validate(result.content, q)
            if isinstance(checked, form.Answer):
                return checked
            problem = checked
        return form.Answer("abort")  # asked again once, still invalid: treated as a decline
