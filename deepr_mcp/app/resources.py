"""Resource handlers: list, templates, read, and subscriptions in both protocol eras.

Reads go through the same views as the tools. Subscriptions: handshake clients call
``resources/subscribe`` per connection (cleaned up when the connection closes, through the
connection's exit stack); 2026-07-28 clients open ``subscriptions/listen`` streams served by
the SDK's ``ListenHandler`` over the Notifier's bus.
"""

from __future__ import annotations

import json
import re
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.subscriptions import ListenHandler
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from deepr_mcp.app.connections import connection_id, connection_of
from deepr_mcp.app.services import Services
from deepr_mcp.errors import DeeprError, InvalidInput, NotFound
from deepr_mcp.jobs import views
from deepr_mcp.jobs.uris import CAMPAIGN_KINDS, MAX_URI_LENGTH, parse_uri

Ctx = ServerRequestContext[Services, Any]

RESOURCE_NOT_FOUND = -32002
"""The handshake-era code for an unknown resource (2025-11-25 and earlier)."""

_GENERIC_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:[^\s\x00-\x1f\x7f]+$")

EXPERT_INFO = {
    "profile": ("Expert profile", "What the expert covers, its counts and strongest beliefs"),
    "beliefs": ("Expert beliefs", "Every belief with confidence and sources"),
    "gaps": ("Expert gaps", "Open questions its research could not answer"),
}

KIND_INFO = {
    "status": ("Status", "application/json", "Phase, progress, cost and budget, active tasks, subscriber count"),
    "plan": ("Plan", "application/json", "The research plan: sub-questions and their state"),
    "beliefs": ("Findings", "application/json", "Findings with confidence and numbered source citations"),
    "report": ("Report", "text/markdown", "The cited report (partial if the campaign was stopped)"),
}


def check_subscribable(uri: str) -> None:
    """Any well-formed URI may be subscribed (it may simply never fire); ours must parse."""
    if len(uri) > MAX_URI_LENGTH:
        raise InvalidInput(f"resource URI is {len(uri)} characters; at most {MAX_URI_LENGTH} are allowed")
    if not _GENERIC_URI.match(uri):
        raise InvalidInput(f"malformed resource URI {uri!r}; expected scheme:rest with no spaces or control characters")
    if uri.startswith("deepr:"):
        parse_uri(uri)


def _protocol_error(exc: DeeprError, ctx: Ctx) -> MCPError:
    if isinstance(exc, NotFound):
        code = INVALID_PARAMS if ctx.protocol_version >= "2026" else RESOURCE_NOT_FOUND
        return MCPError(code=code, message=exc.message)
    return MCPError(code=INVALID_PARAMS, message=exc.message)


def _short(question: str, limit: int = 60) -> str:
    return question if len(question) <= limit else question[: limit - 1] + "…"


def build_resource_handlers(services: Services) -> dict[str, Any]:
    """The ``on_*`` keyword arguments for the lowlevel ``Server``."""
    listen = ListenHandler(services.notifier.bus)

    async def list_resources(ctx: Ctx, params: types.PaginatedRequestParams | None) -> types.ListResourcesResult:
        offset = int(params.cursor) if params is not None and params.cursor and params.cursor.isdigit() else 0
        page = 25
        campaigns, total = await services.store.list(limit=page, offset=offset)
        resources = []
        for campaign in campaigns:
            for kind in CAMPAIGN_KINDS:
                title, mime, description = KIND_INFO[kind]
                resources.append(
                    types.Resource(
                        uri=f"deepr://campaigns/{campaign.id}/{kind}",
                        name=f"{campaign.id}-{kind}",
                        title=f"{title}: {_short(campaign.question)}",
                        description=f"{description} ({campaign.phase.value})",
                        mime_type=mime,
                    )
                )
        if offset == 0:
            for expert in await services.experts.list():
                for kind, (title, description) in EXPERT_INFO.items():
                    resources.append(
                        types.Resource(
                            uri=f"deepr://experts/{expert.id}/{kind}",
                            name=f"{expert.id}-{kind}",
                            title=f"{title}: {expert.name}",
                            description=description,
                            mime_type="application/json",
                        )
                    )
        next_cursor = str(offset + page) if offset + page < total else None
        return types.ListResourcesResult(resources=resources, next_cursor=next_cursor)

    async def list_templates(
        ctx: Ctx, params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        templates = [
            types.ResourceTemplate(
                uri_template=f"deepr://campaigns/{{id}}/{kind}",
                name=f"campaign-{kind}",
                title=f"Campaign {KIND_INFO[kind][0].lower()}",
                description=KIND_INFO[kind][2],
                mime_type=KIND_INFO[kind][1],
            )
            for kind in CAMPAIGN_KINDS
        ] + [
            types.ResourceTemplate(
                uri_template=f"deepr://experts/{{id}}/{kind}",
                name=f"expert-{kind}",
                title=title,
                description=description,
                mime_type="application/json",
            )
            for kind, (title, description) in EXPERT_INFO.items()
        ]
        return types.ListResourceTemplatesResult(resource_templates=templates)

    async def read_resource(ctx: Ctx, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        uri = str(params.uri)
        try:
            ref = parse_uri(uri)
            if ref.collection == "experts":
                expert = await services.experts.get(ref.id)
            else:
                campaign = await services.store.get(ref.id)
        except NotFound as exc:
            raise _protocol_error(NotFound(f"resource {uri!r} not found: {exc.message}"), ctx) from None
        except DeeprError as exc:
            raise _protocol_error(exc, ctx) from None
        if ref.collection == "experts":
            body = {
                "profile": expert.profile,
                "beliefs": lambda: {"id": expert.id, "beliefs": [b.model_dump(mode="json") for b in expert.beliefs]},
                "gaps": lambda: {"id": expert.id, "gaps": [g.model_dump(mode="json") for g in expert.gaps]},
            }[ref.kind]()
            text = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
            return types.ReadResourceResult(
                contents=[types.TextResourceContents(uri=uri, mime_type="application/json", text=text)]
            )
        if ref.kind == "report":
            body, mime = views.report_text(campaign), "text/markdown"
        else:
            view = {
                "status": lambda: views.status_view(campaign, services.notifier.subscriber_count(uri)),
                "plan": lambda: views.plan_view(campaign),
                "beliefs": lambda: views.beliefs_view(campaign),
            }[ref.kind]()
            body, mime = json.dumps(view, ensure_ascii=False, separators=(",", ":")), "application/json"
        return types.ReadResourceResult(contents=[types.TextResourceContents(uri=uri, mime_type=mime, text=body)])

    async def subscribe(ctx: Ctx, params: types.SubscribeRequestParams) -> types.EmptyResult:
        uri = str(params.uri)
        try:
            check_subscribable(uri)
            cid = connection_id(ctx)
            assert cid is not None  # resources/subscribe exists only in the handshake era
            connection = connection_of(ctx)
            services.connections.register(cid, connection)
            if not services.notifier.subscriptions_of(cid):
                connection.exit_stack.callback(services.notifier.remove, cid)

            async def send(updated_uri: str, meta: dict[str, Any]) -> None:
                await connection.send_resource_updated(updated_uri, meta=meta)

            services.notifier.subscribe(cid, uri, send)
        except DeeprError as exc:
            raise _protocol_error(exc, ctx) from None
        return types.EmptyResult()

    async def unsubscribe(ctx: Ctx, params: types.UnsubscribeRequestParams) -> types.EmptyResult:
        uri = str(params.uri)
        try:
            check_subscribable(uri)
        except DeeprError as exc:
            raise _protocol_error(exc, ctx) from None
        cid = connection_id(ctx)
        if cid is not None:
            services.notifier.unsubscribe(cid, uri)
        return types.EmptyResult()

    async def subscriptions_listen(
        ctx: Ctx, params: types.SubscriptionsListenRequestParams
    ) -> types.SubscriptionsListenResult:
        uris = list(params.notifications.resource_subscriptions or [])
        try:
            for uri in uris:
                check_subscribable(uri)
        except DeeprError as exc:
            raise _protocol_error(exc, ctx) from None
        services.notifier.listen_opened(uris)
        try:
            return await listen(ctx, params)
        finally:
            services.notifier.listen_closed(uris)

    return {
        "on_list_resources": list_resources,
        "on_list_resource_templates": list_templates,
        "on_read_resource": read_resource,
        "on_subscribe_resource": subscribe,
        "on_unsubscribe_resource": unsubscribe,
        "on_subscriptions_listen": subscriptions_listen,
    }
