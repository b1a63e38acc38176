"""The ``deepr://`` resource URIs: one builder and one parser, so every handler agrees on them."""

from __future__ import annotations

import re
from dataclasses import dataclass

from deepr_mcp.errors import InvalidInput

MAX_URI_LENGTH = 512
CAMPAIGN_KINDS = ("status", "plan", "beliefs", "report")
EXPERT_KINDS = ("profile", "beliefs", "gaps")
_URI = re.compile(r"^deepr://(campaigns|experts)/([A-Za-z0-9_-]{1,64})/([a-z]+)$")

TEMPLATES = {
    **{f"campaign_{k}": f"deepr://campaigns/{{id}}/{k}" for k in CAMPAIGN_KINDS},
    **{f"expert_{k}": f"deepr://experts/{{id}}/{k}" for k in EXPERT_KINDS},
}


def campaign_uri(campaign_id: str, kind: str = "status") -> str:
    return TEMPLATES[f"campaign_{kind}"].format(id=campaign_id)


def campaign_uris(campaign_id: str) -> dict[str, str]:
    """Every resource of one campaign, by kind, in the order they are announced."""
    return {kind: campaign_uri(campaign_id, kind) for kind in CAMPAIGN_KINDS}


def expert_uris(expert_id: str) -> dict[str, str]:
    return {kind: TEMPLATES[f"expert_{kind}"].format(id=expert_id) for kind in EXPERT_KINDS}


@dataclass(frozen=True, slots=True)
class ResourceRef:
    collection: str  # "campaigns" | "experts"
    id: str
    kind: str

    @property
    def uri(self) -> str:
        return f"deepr://{self.collection}/{self.id}/{self.kind}"


def parse_uri(uri: str) -> ResourceRef:
    """Raise ``InvalidInput`` saying which forms are allowed when ``uri`` is not one of ours."""
    if len(uri) > MAX_URI_LENGTH:
        raise InvalidInput(f"resource URI is {len(uri)} characters; at most {MAX_URI_LENGTH} are allowed")
    match = _URI.match(uri)
    allowed = f"deepr://campaigns/{{id}}/{{{'|'.join(CAMPAIGN_KINDS)}}} or deepr://experts/{{id}}/{{{'|'.join(EXPERT_KINDS)}}}"
    if match is None:
        raise InvalidInput(f"malformed resource URI {uri!r}; expected {allowed}")
    collection, ident, kind = match.groups()
    kinds = CAMPAIGN_KINDS if collection == "campaigns" else EXPERT_KINDS
    if kind not in kinds:
        raise InvalidInput(f"unknown resource kind {kind!r} in {uri!r}; expected {allowed}")
    return ResourceRef(collection, ident, kind)
