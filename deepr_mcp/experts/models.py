"""Experts: named, persistent knowledge bases fed by campaigns (the records)."""

from __future__ import annotations

import re
import secrets
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from deepr_mcp.jobs.models import utcnow
from deepr_mcp.jobs.uris import expert_uris

NAME = re.compile(r"^[\w .,'()&-]{2,80}$", re.UNICODE)


class ExpertSource(BaseModel):
    passage_id: str
    source: str
    location: str = ""


class ExpertBelief(BaseModel):
    claim: str
    confidence: float = Field(ge=0, le=1)
    sources: list[ExpertSource]
    campaign_id: str


class ExpertGap(BaseModel):
    question: str
    reason: str
    campaign_id: str


class Expert(BaseModel):
    id: str = Field(default_factory=lambda: "e" + secrets.token_hex(5))
    name: str
    description: str = ""
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)
    campaign_ids: list[str] = Field(default_factory=list)
    owner: str = "local"
    """The principal that created it; experts from before principals existed belong to ``local``."""
    shared_with: list[str] = Field(default_factory=list)
    version: int = 0
    """Bumped by every save; a save that names the version it read is refused if another came first."""
    beliefs: list[ExpertBelief] = Field(default_factory=list)
    gaps: list[ExpertGap] = Field(default_factory=list)

    def uris(self) -> dict[str, str]:
        return expert_uris(self.id)

    def profile(self) -> dict[str, Any]:
        top = sorted(self.beliefs, key=lambda b: -b.confidence)[:5]
        return {
            "id": self.id,
            "name": self.name,
            "description": self.description,
            "created_at": self.created_at.isoformat(),
            "updated_at": self.updated_at.isoformat(),
            "campaigns": self.campaign_ids,
            "belief_count": len(self.beliefs),
            "gap_count": len(self.gaps),
            "strongest_beliefs": [b.claim for b in top],
            "resources": self.uris(),
        }
