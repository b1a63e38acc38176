"""Running research from a terminal: a progress bar on stderr and budget questions at the prompt.

The CLI drives the same use cases and follows the campaign with the same ``follow`` as
``campaign_wait``; a budget question is asked at the terminal when there is one, and answered
with the configured default after a few seconds when stdin is not a terminal (CI, pipes).
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

import anyio

from deepr_mcp.errors import InvalidInput
from deepr_mcp.jobs.campaigns import Campaigns
from deepr_mcp.jobs.feed import CampaignFeed
from deepr_mcp.jobs.models import Campaign, CampaignPhase
from deepr_mcp.jobs.request import CampaignRequest
from deepr_mcp.research.corpus.ingest.progress import clock

BAR_WIDTH = 28


def progress_line(campaign: Campaign, elapsed_s: float | None = None) -> str:
    filled = round(campaign.progress * BAR_WIDTH)
    bar = "#" * filled + "-" * (BAR_WIDTH - filled)
    task = campaign.active_tasks[0] if campaign.active_tasks else ""
    cost = f"${campaign.cost:.4f}/${campaign.budget:.2f}"
    eta = ""
    if elapsed_s is not None and 0.05 <= campaign.progress < 1 and elapsed_s >= 1:
        eta = f" ETA {clock(elapsed_s / campaign.progress * (1 - campaign.progress))}"
    return f"[{bar}] {campaign.progress:4.0%} {campaign.phase.value:<17} {cost}{eta} {task}"[:160]


async def ask_budget(campaign: Campaign, out: TextIO, default: str, wait_s: float) -> tuple[str, float | None]:
    """Ask at the terminal; without one, announce and return the default after ``wait_s``."""
    q = campaign.open_question
    assert q is not None
    print(
        f"\nBudget question for {campaign.id}: the next step may cost up to ${q.estimated_cost:.4f}; "
        f"${q.spent:.4f} of ${q.budget:.4f} is spent.",
        file=out,
    )
    if not sys.stdin.isatty():
        print(f"(no terminal: answering '{default}' in {wait_s:g}s)", file=out, flush=True)
        await anyio.sleep(wait_s)
        return default, None
    prompt = "approve with a new budget [a AMOUNT], optimize for cost [o], or abort [x]? "
    while True:
        answer = (await anyio.to_thread.run_sync(input, prompt)).strip().lower()
        if answer in ("o", "optimize", "optimize_for_cost"):
            return "optimize_for_cost", None
        if answer in ("x", "abort", ""):
            return "abort", None
        parts = answer.split()
        if parts and parts[0] in ("a", "approve") and len(parts) == 2:
            try:
                return "approve_override", float(parts[1].lstrip("$"))
            except ValueError:
                pass
        print("please answer 'a 2.50', 'o' or 'x'", file=out)


async def run_research(
    campaigns: Campaigns,
    feed: CampaignFeed,
    request: CampaignRequest,
    *,
    out: TextIO = sys.stderr,
    default_decision: str = "abort",
    answer_wait_s: float = 3.0,
) -> Campaign:
    started = await campaigns.start(request)
    print(f"campaign {started.id}: {started.question}", file=out)
    asked: set[str] = set()
    campaign = started
    began, last_plain = time.monotonic(), ""
    redraw = out.isatty()  # a bar redrawn with \r on a terminal; one line per change in a pipe or log
    async for campaign in feed.follow(started.id, "complete", since=started.version, heartbeat_s=30):
        if campaign.version == started.version:
            continue  # nothing to draw before the first change
        line = progress_line(campaign, time.monotonic() - began)
        if redraw:
            print("\r" + line, end="", file=out, flush=True)
        elif (plain := progress_line(campaign)) != last_plain:  # same bar, phase and task: not news
            print(line, file=out, flush=True)
            last_plain = plain
        question_id = campaign.open_question.id if campaign.open_question else None
        if question_id and question_id not in asked:
            asked.add(question_id)
            decision, new_budget = await ask_budget(campaign, out, default_decision, answer_wait_s)
            try:
                await campaigns.jobs.decide(
                    campaign.id, decision, new_budget=new_budget, channel="terminal", answered_by="cli user"
                )  # type: ignore[arg-type]
            except InvalidInput as exc:
                print(f"\n{exc.message}; aborting", file=out)
                await campaigns.jobs.decide(campaign.id, "abort", channel="terminal", answered_by="cli user")
        if campaign.phase == CampaignPhase.PAUSED:
            print("\ncampaign paused", file=out)
            return campaign
    if redraw:
        print(file=out)
    return campaign
