"""Asking a human for a budget decision over ``elicitation/create`` (handshake-era clients).

The connection that started the campaign is asked first; if it is gone or cannot elicit, any
other connected subscriber of the campaign that declared the capability. An invalid answer is
asked again once, then treated as a decline; decline or cancel means abort. If nobody can be
asked, the question waits for ``budget_decide`` (any client) or the timeout's default.

The handler is given its ports (a connection lookup, the subscribers of a URI) and returns the
decision; the job manager records it. It never sees the services or the store.
"""

from __future__ import annotations

import anyio
import mcp_types as types
from mcp.shared.exceptions import MCPError

from deepr_mcp.elicitation import form
from deepr_mcp.elicitation.audience import AsksClients, ClientConnection
from deepr_mcp.jobs.models import BudgetDecision, BudgetQuestion, Campaign

ELICITATION = types.ClientCapabilities(elicitation=types.ElicitationCapability())


class ElicitationHandler(AsksClients):
    """Given who is connected and who subscribes; returns the decision for its caller to record."""

    def who(self, cid: str) -> str | None:
        principal = self.audience.principal(cid)
        return principal.name if principal is not None else None

    def candidates(self, campaign: Campaign) -> list[str]:
        """Only a connection whose principal holds ``approve`` and may see the campaign is asked."""
        return self.audience.candidates(
            campaign, ELICITATION, lambda p: p.has("approve") and p.can_see(campaign.owner, campaign.shared_with)
        )

    async def ask(
        self, campaign: Campaign, question: BudgetQuestion, asked: set[str] | None = None
    ) -> BudgetDecision | None:
        """Try each capable connection in turn until one answers; ``None`` if none could be asked.

        ``asked`` (connections this question was already put to) are skipped; each one tried is added.
        """
        asked = set() if asked is None else asked
        for cid in self.candidates(campaign):
            if cid in asked:
                continue
            asked.add(cid)
            connection = self.audience.connection(cid)
            if connection is None:
                continue  # it closed since the candidates were listed
            answer = await self._ask_connection(connection, campaign, question)
            if answer is None:
                continue  # that channel failed (closed, no back-channel, timed out): try the next
            principal = self.who(cid)
            return BudgetDecision(
                decision=answer.decision,
                new_budget=answer.new_budget,
                channel="elicitation",
                answered_by=f"connection {cid}",
                principal=principal,
            )
        return None

    async def _ask_connection(
        self, connection: ClientConnection, campaign: Campaign, q: BudgetQuestion
    ) -> form.Answer | None:
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
