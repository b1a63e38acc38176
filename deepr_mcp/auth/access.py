"""What a principal may do: the one place scopes and ownership are checked.

The gateway asks ``authorize`` before every catalogue tool runs (the tool's declared scope, and
the record its ``campaign_id``/``expert_id`` names); resources, subscriptions and tasks ask
``campaign``/``expert``/``uri``. A denial is ``Forbidden`` naming the missing scope or the
ownership, so the caller knows what to ask for.
"""

from __future__ import annotations

from typing import Any

from deepr_mcp.auth.principals import Principal
from deepr_mcp.errors import Forbidden, InvalidInput, NotFound
from deepr_mcp.experts.models import Expert
from deepr_mcp.experts.store import ExpertStore
from deepr_mcp.jobs.models import Campaign
from deepr_mcp.jobs.store import CampaignStore
from deepr_mcp.jobs.uris import parse_uri

__all__ = ["Access", "require_scope", "visible_to"]


def require_scope(principal: Principal, scope: str, action: str) -> None:
    if not principal.has(scope):
        raise Forbidden(f"{action} needs scope {scope!r}; {principal.describe()} lacks it")


def check_owner(principal: Principal, kind: str, record: Campaign | Expert, ownership: str = "see") -> None:
    """``see``: owner, shared with, or admin. ``own``: owner or admin (e.g. sharing it further)."""
    if ownership == "own":
        if record.owner != principal.name and not principal.has("admin"):
            raise Forbidden(
                f"{kind} {record.id} belongs to principal {record.owner!r}; only its owner (or an admin) may do this"
            )
        return
    if not principal.can_see(record.owner, record.shared_with):
        raise Forbidden(
            f"{kind} {record.id} belongs to principal {record.owner!r} and is not shared with {principal.name!r}; "
            "its owner can share it with campaign_share"
        )


def visible_to(principal: Principal) -> str | None:
    """The ``visible_to`` filter for store listings: ``None`` (everything) for an admin."""
    return None if principal.has("admin") else principal.name


class Access:
    """Scope and ownership checks over the campaign and expert stores."""

    def __init__(self, campaigns: CampaignStore, experts: ExpertStore) -> None:
        self.campaigns = campaigns
        self.experts = experts

    async def authorize(self, principal: Principal, tool: str, scope: str, ownership: str, arguments: Any) -> None:
        """Before a tool runs: its scope, then the records its arguments name."""
        require_scope(principal, scope, f"tool {tool}")
        if ownership == "none":  # a federated tool: its arguments name the upstream's things, not deepr's records
            return
        arguments = arguments if isinstance(arguments, dict) else {}
        try:
            if isinstance(campaign_id := arguments.get("campaign_id"), str):
                await self.campaign(principal, campaign_id, scope, ownership=ownership, action=f"tool {tool}")
            if isinstance(expert_id := arguments.get("expert_id"), str):
                await self.expert(principal, expert_id, scope, ownership=ownership, action=f"tool {tool}")
        except NotFound:
            # No record, so no owner: an admin (the local principal too) reaches what is left (e.g.
            # an orphaned sandbox) and the tool says what is missing; anyone else is told "no campaign".
            if not principal.has("admin"):
                raise

    async def campaign(
        self, principal: Principal, campaign_id: str, scope: str, *, ownership: str = "see", action: str = "this"
    ) -> Campaign:
        require_scope(principal, scope, action)
        campaign = await self.campaigns.get(campaign_id)
        check_owner(principal, "campaign", campaign, ownership)
        return campaign

    async def expert(
        self, principal: Principal, expert_id: str, scope: str, *, ownership: str = "see", action: str = "this"
    ) -> Expert:
        require_scope(principal, scope, action)
        expert = await self.experts.get(expert_id)
        check_owner(principal, "expert", expert, ownership)
        return expert

    async def uri(self, principal: Principal, uri: str, action: str) -> None:
        """Reading or subscribing to a resource: ``read``, and the campaign or expert it belongs to.

        A ``deepr:`` URI naming a record that does not exist passes (it may never fire); others
        are not ours and pass too.
        """
        require_scope(principal, "read", action)
        if not uri.startswith("deepr:") or principal.has("admin"):
            return  # not ours, or a principal that sees every record (no store round trip)
        try:
            ref = parse_uri(uri)
        except InvalidInput:
            return
        try:
            if ref.collection == "experts":
                await self.expert(principal, ref.id, "read", action=action)
            else:
                await self.campaign(principal, ref.id, "read", action=action)
        except NotFound:
            return
