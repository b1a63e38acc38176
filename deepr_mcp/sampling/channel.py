"""Which connected client a campaign's sampling requests go to, and putting them there.

The connection that started the campaign is asked first (its user asked the question, its model
is the one they chose); then any other subscriber of the campaign that declared ``sampling`` and
whose principal may read the campaign, since the request shows the campaign's passages. A
connection that fails or refuses once (closed, timed out, its user declined, an unusable answer) is
not asked again for that run: a client whose user said no is not asked at every step.
"""

from __future__ import annotations

import logging

import anyio
import mcp_types as types
from mcp.shared.exceptions import MCPError

from deepr_mcp.elicitation.audience import AsksClients, ClientConnection
from deepr_mcp.jobs.models import Campaign
from deepr_mcp.research.providers.sampling import Sampler, text_of

SAMPLING = types.ClientCapabilities(sampling=types.SamplingCapability())

logger = logging.getLogger(__name__)


class ClientSampling(AsksClients):
    """Given who is connected and who subscribes; makes each campaign's ``Sampler``."""

    def candidates(self, campaign: Campaign) -> list[str]:
        """Connections that can sample for ``campaign``, the starter first; the request shows the
        campaign's passages, so only a principal that may read the campaign is asked."""
        return self.audience.candidates(campaign, SAMPLING, lambda p: p.can_see(campaign.owner, campaign.shared_with))

    def for_campaign(self, campaign: Campaign) -> Sampler:
        failed: set[str] = set()

        async def sample(request: types.CreateMessageRequest) -> types.CreateMessageResult | None:
            for cid in self.candidates(campaign):
                connection = self.audience.connection(cid)
                if cid in failed or connection is None:
                    continue
                result = await self._ask(connection, request, cid)
                if result is not None:
                    return result
                failed.add(cid)
            return None

        return sample

    async def _ask(
        self, connection: ClientConnection, request: types.CreateMessageRequest, cid: str
    ) -> types.CreateMessageResult | None:
        try:
            with anyio.fail_after(self.timeout_s):
                result = await connection.send_request(request)
        except (MCPError, TimeoutError, ValueError, anyio.BrokenResourceError, anyio.ClosedResourceError) as exc:
            # ValueError: a result that does not validate (pydantic's ValidationError is one) or an unknown version
            logger.info("connection %s did not sample: %s", cid, exc)
            return None
        if not isinstance(result, types.CreateMessageResult) or not (text_of(result) or "").strip():
            logger.info("connection %s answered a sampling request with no text", cid)
            return None
        return result
