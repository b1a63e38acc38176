"""The principals matrix: five principals x eleven actions over real HTTP, asserted and printed.

``python -m tests.auth.test_matrix`` prints the table (markdown) to paste; the test asserts it.
Cast (tests/principals.py ``PRINCIPAL_SCOPES``): reader {read}, researcher {read, research} (owns
the campaigns and shares them with reader and approver), approver {read, approve}, admin
{read, admin}, other {read, research} (a second researcher nothing is shared with).

Each state-changing cell (decide, cancel, delete) gets a fresh campaign of the researcher's in
the state the action needs (an open budget question; a cancelled campaign for delete), so the
order of the cells never changes an outcome. "allowed" means the call ran.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.shared.exceptions import MCPError

from tests.campaigns import QUESTION, TINY_BUDGET, priced
from tests.clients import attempt, call
from tests.fake_llm import fake_llm
from tests.principals import PRINCIPAL_SCOPES, as_principal, principal_server

ACTIONS = [
    "list",
    "read status",
    "start",
    "share",
    "subscribe",
    "wait",
    "decide budget",
    "cancel",
    "delete",
    "corpus_add",
    "corpus_remove",
]

A, HIDDEN = "allowed", "hidden"
SCOPE = "denied: scope {}"
NOT_SHARED, OWNER_ONLY = "denied: not shared", "denied: owner only"

EXPECTED: dict[str, list[str]] = {
    "reader": [A, A, SCOPE.format("research"), SCOPE.format("research"), A, A, SCOPE.format("approve"),
               SCOPE.format("research"), SCOPE.format("admin"), SCOPE.format("research"), SCOPE.format("admin")],
    "researcher": [A, A, A, A, A, A, SCOPE.format("approve"), A, SCOPE.format("admin"), A, SCOPE.format("admin")],
    "approver": [A, A, SCOPE.format("research"), SCOPE.format("research"), A, A, A, SCOPE.format("research"),
                 SCOPE.format("admin"), SCOPE.format("research"), SCOPE.format("admin")],
    "admin": [A, A, SCOPE.format("research"), SCOPE.format("research"), A, A, SCOPE.format("approve"),
              SCOPE.format("research"), A, SCOPE.format("research"), A],
    "other": [HIDDEN, NOT_SHARED, A, OWNER_ONLY, NOT_SHARED, NOT_SHARED, SCOPE.format("approve"), NOT_SHARED,
              SCOPE.format("admin"), A, SCOPE.format("admin")],
}  # fmt: skip


def verdict(ok: bool, text: str) -> str:
    """What a denial says, reduced to the table's words; anything else ran (allowed)."""
    if ok:
        return A
    if match := re.search(r"needs scope '(\w+)'", text):
        return SCOPE.format(match.group(1))
    if "is not shared with" in text:
        return NOT_SHARED
    if "only its owner" in text:
        return OWNER_ONLY
    return f"error: {text[:80]}"


class Cast:
    """One connection per principal, and the researcher's campaigns made for the cells."""

    def __init__(self, clients: dict[str, Client], doc: Path) -> None:
        self.clients = clients
        self.doc = doc
        self.owner = clients["researcher"]

    async def campaign(self, state: str = "question") -> str:
        """A researcher's campaign shared with reader and approver, waiting at a budget question."""
        cid = (await call(self.owner, "campaign_start", {"question": QUESTION, "budget": TINY_BUDGET}))["campaign_id"]
        await call(self.owner, "campaign_share", {"campaign_id": cid, "principals": ["reader", "approver"]})
        answer = await call(self.owner, "campaign_wait", {"campaign_id": cid, "until": "decision", "timeout_s": 30})
        assert answer["decision_pending"], answer
        if state == "cancelled":
            await call(self.owner, "campaign_cancel", {"campaign_id": cid})
            await call(self.owner, "campaign_wait", {"campaign_id": cid, "until": "complete", "timeout_s": 30})
        return cid

    async def run(self, principal: str, action: str, shared: str) -> str:
        client = self.clients[principal]
        if action == "list":
            ok, text = await attempt(client, "campaign_list", {"limit": 100})
            return verdict(ok, text) if not ok or shared in text else HIDDEN
        if action == "subscribe":
            try:
                await client.subscribe_resource(f"deepr://campaigns/{shared}/status")
            except MCPError as exc:
                return verdict(False, exc.error.message)
            return A
        tool, args = await self.call_for(action, shared)
        return verdict(*await attempt(client, tool, args))

    async def call_for(self, action: str, shared: str) -> tuple[str, dict[str, Any]]:
        if action == "read status":
            return "campaign_status", {"campaign_id": shared}
        if action == "start":
            return "campaign_start", {"question": "How do submarine cables get repaired?", "budget": TINY_BUDGET}
        if action == "share":
            return "campaign_share", {"campaign_id": shared, "principals": ["reader"]}
        if action == "wait":
            return "campaign_wait", {"campaign_id": shared, "timeout_s": 0.2}
        if action == "decide budget":
            return "budget_decide", {"campaign_id": await self.campaign(), "decision": "abort"}
        if action == "cancel":
            return "campaign_cancel", {"campaign_id": await self.campaign()}
        if action == "delete":
            return "campaign_delete", {"campaign_id": await self.campaign("cancelled")}
        if action == "corpus_add":
            return "corpus_add", {"path": str(self.doc)}
        assert action == "corpus_remove", action
        return "corpus_remove", {"path": str(self.doc)}


async def principals_matrix(data_dir: Path) -> dict[str, list[str]]:
    doc = data_dir.parent / "notes.md"
    doc.write_text("# Cable repair\n\nRepair ships grapple the cable, splice it on deck and lower it again.\n")
    async with fake_llm() as llm:
        config = priced(llm.url, default=TINY_BUDGET, timeout_s=300)
        roots = {"roots": [str(doc.parent)]}  # corpus_add over HTTP reads only under configured roots
        async with principal_server(data_dir, jobs={"max_concurrent": 32}, corpus=roots, **config) as (_, base):
            async with anyio.create_task_group() as tg:
                clients: dict[str, Client] = {}
                done = anyio.Event()

                async def open_client(name: str, ready: anyio.Event) -> None:
                    async with as_principal(base, name) as client:
                        clients[name] = client
                        ready.set()
                        await done.wait()

                for name in PRINCIPAL_SCOPES:
                    ready = anyio.Event()
                    tg.start_soon(open_client, name, ready)
                    await ready.wait()
                try:
                    cast = Cast(clients, doc)
                    shared = await cast.campaign()
                    with anyio.fail_after(240):
                        return {p: [await cast.run(p, a, shared) for a in ACTIONS] for p in PRINCIPAL_SCOPES}
                finally:
                    done.set()


def markdown(rows: dict[str, list[str]]) -> str:
    head = "| principal (scopes) | " + " | ".join(ACTIONS) + " |"
    lines = [head, "|" + "---|" * (len(ACTIONS) + 1)]
    for name, cells in rows.items():
        lines.append(f"| {name} ({', '.join(PRINCIPAL_SCOPES[name])}) | " + " | ".join(cells) + " |")
    return "\n".join(lines)


async def test_principals_matrix(data_dir: Path) -> None:
    rows = await principals_matrix(data_dir)
    print("\n" + markdown(rows))
    assert rows == EXPECTED, markdown(rows)


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "data").mkdir()
        table = anyio.run(principals_matrix, Path(tmp) / "data")
        sys.stdout.write(markdown(table) + "\n")
