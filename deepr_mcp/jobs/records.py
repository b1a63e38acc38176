"""A campaign record as the stores hold it: written only if it reads back, and set aside if it does not.

JSON has no infinity or NaN, so pydantic writes a non-finite float as ``null``, which the reader
then rejects: one such value once made every restart fail. ``encode`` refuses any record that would
not read back, and a stored record that fails to load (written by that bug, or edited by hand) is
quarantined by its store with the reason ``decode`` gives, instead of failing every reader after it.
"""

from __future__ import annotations

import logging

from pydantic import ValidationError

from deepr_mcp.errors import InvalidInput, NotFound
from deepr_mcp.jobs.models import Campaign

logger = logging.getLogger(__name__)


class UnreadableRecord(Exception):
    """A stored record that does not load as a ``Campaign``; its store quarantines it."""

    def __init__(self, campaign_id: str, reason: str) -> None:
        super().__init__(f"campaign {campaign_id}: {reason}")
        self.campaign_id, self.reason = campaign_id, reason


def reasons(exc: ValidationError) -> str:
    """Each failing field and why, e.g. ``budget: Input should be a valid number``."""
    return "; ".join(
        f"{'.'.join(str(p) for p in err['loc']) or 'record'}: {err['msg']}" for err in exc.errors(include_url=False)
    )


def encode(campaign: Campaign) -> str:
    """The record's JSON, checked to read back as the same kind of record (so never half-valid on disk)."""
    text = campaign.model_dump_json()
    try:
        Campaign.model_validate_json(text)
    except ValidationError as exc:
        raise InvalidInput(
            f"campaign {campaign.id} was not saved: its record would not read back ({reasons(exc)}); "
            "numbers must be finite"
        ) from None
    return text


def decode(campaign_id: str, text: str | bytes) -> Campaign:
    """The record, or ``UnreadableRecord`` naming the campaign and the fields that failed."""
    try:
        return Campaign.model_validate_json(text)
    except ValidationError as exc:
        raise UnreadableRecord(campaign_id, reasons(exc)) from None


def quarantined(campaign_id: str, reason: str, where: str) -> None:
    """Log a record just set aside: which campaign, which field, and where it now is."""
    logger.warning(
        "campaign %s quarantined: its stored record does not load (%s); it was moved to %s and every other "
        "campaign is served",
        campaign_id,
        reason,
        where,
    )


def gone(campaign_id: str, reason: str) -> NotFound:
    """What a reader of a quarantined campaign is told."""
    return NotFound(
        f"campaign {campaign_id} was quarantined: its stored record does not load ({reason}); "
        "it is kept aside for an administrator and is no longer served"
    )
