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
from mcp_types import INVALID_PARAMS, INVALID_REQUEST

from deepr_mcp.app.connections import connection_id, connection_of, is_modern
from deepr_mcp.app.surface import Surface
from deepr_mcp.auth.access import require_scope, visible_to
from deepr_mcp.auth.principals import principal_of
from deepr_mcp.dashboard import MIME_TYPE, UI_URI, campaign_html, resource_meta
from deepr_mcp.errors import DeeprError, InvalidInput, NotFound
from deepr_mcp.experts.models import Expert
from deepr_mcp.jobs import views
from deepr_mcp.jobs.uris import CAMPAIGN_KINDS, MAX_URI_LENGTH, TEMPLATES, campaign_uris, expert_uris, parse_uri
from deepr_mcp.transports.push import connection_sender

Ctx = ServerRequestContext[Surface, Any]

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


def _protocol_error(exc: DeeprError, ctx: Ctx, uri: str | None = None) -> MCPError:
    """``uri`` names the resource a read could not serve (SEP-2164: the error's ``data.uri``)."""
    data = {"uri": uri} if uri is not None else None
    if isinstance(exc, NotFound):
        code = INVALID_PARAMS if is_modern(ctx) else RESOURCE_NOT_FOUND
        return MCPError(code=code, message=exc.message, data=data)
    return MCPError(code=INVALID_PARAMS, message=exc.message, data=data)


def _short(question: str, limit: int = 60) -> str:
    return question if len(question) <= limit else question[: limit - 1] + "…"


class ResourceHandlers:
    """``resources/*`` and ``subscriptions/listen``: reads through the views, pushes through the notifier."""

    def __init__(self, surface: Surface) -> None:
        self.store = surface.tools.store
        self.experts = surface.tools.experts
        self.feed = surface.tools.feed
        self.jobs = surface.tools.jobs
        self.notifier = surface.notifier
        self.connections = surface.connections
        self.access = surface.access
        limits = surface.tools.settings.subscriptions
        self.max_streams = limits.max_streams
        self.listen = ListenHandler(surface.bus, max_subscriptions=limits.max_streams)
        self.max_uris_per_listen = limits.max_per_connection
        self.max_streams_per_principal = limits.max_streams_per_principal
        self._streams: dict[str, int] = {}
        """Open listen streams by principal: the SDK's cap is for the whole server, so without this
        one principal's streams locked every other principal out."""
        self.apps_enabled = surface.tools.settings.apps.enabled

    async def _allowed(self, ctx: Ctx, uri: str, action: str) -> None:
        """``read`` scope and the record's owner or sharing, else a JSON-RPC error saying which."""
        try:
            await self.access.uri(principal_of(ctx), uri, action)
        except DeeprError as exc:
            raise _protocol_error(exc, ctx) from None

    def server_kwargs(self) -> dict[str, Any]:
        """The ``on_*`` keyword arguments for the lowlevel ``Server``."""
        return {
            "on_list_resources": self.list_resources,
            "on_list_resource_templates": self.list_templates,
            "on_read_resource": self.read_resource,
            "on_subscribe_resource": self.subscribe,
            "on_unsubscribe_resource": self.unsubscribe,
            "on_subscriptions_listen": self.subscriptions_listen,
        }

    async def list_resources(self, ctx: Ctx, params: types.PaginatedRequestParams | None) -> types.ListResourcesResult:
        offset = int(params.cursor) if params is not None and params.cursor and params.cursor.isdigit() else 0
        page = 25
        principal = principal_of(ctx)
        try:
            require_scope(principal, "read", "resources/list")
        except DeeprError as exc:
            raise _protocol_error(exc, ctx) from None
        campaigns, total = await self.store.list(limit=page, offset=offset, visible_to=visible_to(principal))
        resources = []
        for campaign in campaigns:
            for kind, uri in campaign_uris(campaign.id).items():
                title, mime, description = KIND_INFO[kind]
                resources.append(
                    types.Resource(
                        uri=uri,
                        name=f"{campaign.id}-{kind}",
                        title=f"{title}: {_short(campaign.question)}",
                        description=f"{description} ({campaign.phase.value})",
                        mime_type=mime,
                    )
                )
        if offset == 0 and self.apps_enabled:
            resources.append(_dashboard_resource())
        if offset == 0:
            for expert in await self.experts.list():
                if not principal.can_see(expert.owner, expert.shared_with):
                    continue
                for kind, uri in expert_uris(expert.id).items():
                    title, description = EXPERT_INFO[kind]
                    resources.append(
                        types.Resource(
                            uri=uri,
                            name=f"{expert.id}-{kind}",
                            title=f"{title}: {expert.name}",
                            description=description,
                            mime_type="application/json",
                        )
                    )
        next_cursor = str(offset + page) if offset + page < total else None
        return types.ListResourcesResult(resources=resources, next_cursor=next_cursor)

    async def list_templates(
        self, ctx: Ctx, params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        try:
            require_scope(principal_of(ctx), "read", "resources/templates/list")
        except DeeprError as exc:
            raise _protocol_error(exc, ctx) from None
        templates = [
            types.ResourceTemplate(
                uri_template=TEMPLATES[f"campaign_{kind}"],
                name=f"campaign-{kind}",
                title=f"Campaign {KIND_INFO[kind][0].lower()}",
                description=KIND_INFO[kind][2],
                mime_type=KIND_INFO[kind][1],
            )
            for kind in CAMPAIGN_KINDS
        ] + [
            types.ResourceTemplate(
                uri_template=TEMPLATES[f"expert_{kind}"],
                name=f"expert-{kind}",
                title=title,
                description=description,
                mime_type="application/json",
            )
            for kind, (title, description) in EXPERT_INFO.items()
        ]
        return types.ListResourceTemplatesResult(resource_templates=templates)

    async def read_resource(self, ctx: Ctx, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        uri = str(params.uri)
        await self._allowed(ctx, uri, "resources/read")
        if uri == UI_URI and self.apps_enabled:
            contents = types.TextResourceContents(
                uri=uri, mime_type=MIME_TYPE, text=campaign_html(), _meta=resource_meta()
            )
            return types.ReadResourceResult(contents=[contents])
        try:
            ref = parse_uri(uri)
            if ref.collection == "experts":
                return _text(uri, "application/json", _expert_body(await self.experts.get(ref.id), ref.kind))
            campaign = await self.store.get(ref.id)
        except NotFound as exc:
            raise _protocol_error(NotFound(f"resource {uri!r} not found: {exc.message}"), ctx, uri) from None
        except DeeprError as exc:
            raise _protocol_error(exc, ctx, uri) from None
        if ref.kind == "report":
            return _text(uri, "text/markdown", views.report_text(campaign))
        view = {
            "status": lambda: views.status_view(campaign, self.feed.subscriber_count(uri)),
            "plan": lambda: views.plan_view(campaign),
            "beliefs": lambda: views.beliefs_view(campaign),
        }[ref.kind]()
        return _text(uri, "application/json", json.dumps(view, ensure_ascii=False, separators=(",", ":")))

    async def subscribe(self, ctx: Ctx, params: types.SubscribeRequestParams) -> types.EmptyResult:
        uri = str(params.uri)
        try:
            check_subscribable(uri)
        except DeeprError as exc:
            raise _protocol_error(exc, ctx) from None
        await self._allowed(ctx, uri, "resources/subscribe")
        try:
            cid = connection_id(ctx)
            assert cid is not None  # resources/subscribe exists only in the handshake era
            connection = connection_of(ctx)
            self.connections.register(cid, connection, principal_of(ctx))
            if not self.notifier.subscriptions_of(cid):
                connection.exit_stack.callback(self.notifier.remove, cid)

            self.notifier.subscribe(cid, uri, connection_sender(connection), principal_of(ctx).name)
        except DeeprError as exc:
            raise _protocol_error(exc, ctx) from None
        if uri.startswith("deepr:") and (ref := parse_uri(uri)).collection == "campaigns" and ref.kind == "status":
            self.jobs.subscribed(ref.id)  # a budget question already open is put to this subscriber now
        return types.EmptyResult()

    async def unsubscribe(self, ctx: Ctx, params: types.UnsubscribeRequestParams) -> types.EmptyResult:
        uri = str(params.uri)
        try:
            check_subscribable(uri)
        except DeeprError as exc:
            raise _protocol_error(exc, ctx) from None
        cid = connection_id(ctx)
        if cid is not None:
            self.notifier.unsubscribe(cid, uri)
        return types.EmptyResult()

    async def subscriptions_listen(
        self, ctx: Ctx, params: types.SubscriptionsListenRequestParams
    ) -> types.SubscriptionsListenResult:
        uris = list(params.notifications.resource_subscriptions or [])
        if len(uris) > self.max_uris_per_listen:  # before any per-URI work
            raise MCPError(
                code=INVALID_PARAMS,
                message=f"subscriptions/listen names {len(uris)} resources; at most {self.max_uris_per_listen} "
                "per request (setting subscriptions.max_per_connection)",
            )
        try:
            for uri in uris:
                check_subscribable(uri)
        except DeeprError as exc:
            raise _protocol_error(exc, ctx) from None
        for uri in uris:
            await self._allowed(ctx, uri, "subscriptions/listen")
        name = principal_of(ctx).name
        held = self._streams.get(name, 0)
        if held >= self.max_streams_per_principal:
            raise MCPError(
                code=INVALID_REQUEST,
                message=f"principal {name!r} already holds {held} open listen streams, the most one principal may "
                "(setting subscriptions.max_streams_per_principal); close one, or listen to several URIs on one",
            )
        if sum(self._streams.values()) >= self.max_streams:  # said here: the SDK's own refusal is a bare -32603
            raise MCPError(
                code=INVALID_REQUEST,
                message=f"the server already serves {self.max_streams} open listen streams, the most it allows "
                "(setting subscriptions.max_streams); retry once some have closed",
            )
        try:
            self.notifier.listen_opened(uris, name)  # the URIs count against the principal's subscriptions
        except DeeprError as exc:
            raise MCPError(code=INVALID_REQUEST, message=exc.message) from None
        self._streams[name] = held + 1
        try:
            return await self.listen(ctx, params)
        finally:
            self.notifier.listen_closed(uris, name)
            left = self._streams.get(name, 1) - 1
            if left > 0:
                self._streams[name] = left
            else:
                self._streams.pop(name, None)


def _dashboard_resource() -> types.Resource:
    """The MCP Apps view (its ``_meta.ui`` is repeated here: hosts fall back to the listing's)."""
    return types.Resource(
        uri=UI_URI,
        name="campaign-dashboard",
        title="Campaign dashboard",
        description="MCP Apps view of a campaign: progress, budget questions and the cited report",
        mime_type=MIME_TYPE,
        _meta=resource_meta(),
    )


def _text(uri: str, mime: str, text: str) -> types.ReadResourceResult:
    return types.ReadResourceResult(contents=[types.TextResourceContents(uri=uri, mime_type=mime, text=text)])


def _expert_body(expert: Expert, kind: str) -> str:
    body = {
        "profile": expert.profile,
        "beliefs": lambda: {"id": expert.id, "beliefs": [b.model_dump(mode="json") for b in expert.beliefs]},
        "gaps": lambda: {"id": expert.id, "gaps": [g.model_dump(mode="json") for g in expert.gaps]},
    }[kind]()
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"))
