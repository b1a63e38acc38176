"""The dashboard in a real browser: headless Chromium, a host page using ext-apps' AppBridge and the
official TypeScript SDK client, and a real ``deepr-mcp serve --http`` on 127.0.0.1.

Chromium is the Debian package (installed with apt-get when missing and allowed, as scripts/test.sh
does for redis-server); Playwright drives it through ``executable_path`` and never downloads a browser
of its own. Playwright rather than raw DevTools Protocol calls: the view lives in a sandboxed ``srcdoc``
iframe, and frame locators, auto-waiting and console capture across frames would otherwise be a few
hundred lines of hand-written CDP. Under ``CI=true`` a missing piece fails instead of skipping. Every
test fails on any console error or uncaught exception in the host or the view. Screenshots of each
state land in ui/artifacts/screenshots (gitignored).
"""

from __future__ import annotations

import json
import mimetypes
import os
import shutil
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import anyio
import pytest
from mcp import Client

from tests.campaigns import QUESTION, TINY_BUDGET, follow, priced
from tests.clients import call
from tests.fake_llm import fake_llm
from tests.servers import config_env, http_server

TWO_PARTS = "Why did the first transatlantic telegraph cable fail, and how are cable faults repaired today?"

UI = Path(__file__).resolve().parents[2] / "ui"
HOST_DIST = UI / "dist" / "host"
COMMITTED = UI.parent / "deepr_mcp" / "dashboard" / "campaign.html"
ARTIFACTS = UI / "artifacts" / "screenshots"
HOST_PREFIX = "/_deepr_test_host/"
"""Where the host page is served: on the MCP server's own origin (routed by the browser), so the
TypeScript client's requests to /mcp are same-origin, as a real host's backend would make them."""


def _missing(what: str) -> None:
    message = f"dashboard browser tests need {what}"
    if os.environ.get("CI") == "true":
        pytest.fail(message + " (CI=true: failing instead of skipping)")
    pytest.skip(message)


def chromium_path() -> str:
    """The system Chromium, installed from Debian when missing and we are root with apt-get."""
    for name in ("chromium", "chromium-browser"):
        if found := shutil.which(name):
            return found
    if os.geteuid() == 0 and shutil.which("apt-get"):
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        quiet = {"env": env, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "timeout": 600}
        if subprocess.run(["apt-get", "install", "-y", "-qq", "chromium"], **quiet).returncode != 0:
            subprocess.run(["apt-get", "update", "-qq"], **quiet)
            subprocess.run(["apt-get", "install", "-y", "-qq", "chromium"], **quiet)
        if found := shutil.which("chromium"):
            return found
    _missing("Chromium (Debian package `chromium`)")
    raise AssertionError("unreachable")


def build_host() -> None:
    """``npm ci`` (the committed lockfile, npm's own registry) when node_modules is missing, then the host page.

    ``npm ci`` never writes package-lock.json (``npm install`` may: npm 11 adds lines to a lockfile an
    older npm wrote, which changes the committed view's source hash and dirties the tree). The lockfile
    lists every platform's optional rollup binary (tests/dashboard/test_view_build.py checks), so npm 10 and
    11 both accept it as in sync.
    """
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        _missing("Node.js 20+ and npm")
    assert npm is not None
    env = {k: v for k, v in os.environ.items() if not k.lower().startswith("npm_config_registry")}
    if not (UI / "node_modules" / "@modelcontextprotocol" / "ext-apps").is_dir():
        install = [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"]
        subprocess.run(install, cwd=UI, env=env, check=True)
    vite = UI / "node_modules" / ".bin" / "vite"
    subprocess.run([str(vite), "build", "--config", "vite.host.config.mjs"], cwd=UI, env=env, check=True)


def rebuild_view(out: Path) -> bytes:
    node = shutil.which("node")
    assert node is not None
    subprocess.run([node, "build.mjs", "--out", str(out)], cwd=UI, check=True, capture_output=True)
    return out.read_bytes()


@dataclass
class Console:
    """Every console error and uncaught exception of the page and its frames; a test fails on any."""

    errors: list[str] = field(default_factory=list)

    def on_console(self, message: Any) -> None:
        if message.type == "error":
            self.errors.append(f"console.error: {message.text}")

    def on_page_error(self, error: Any) -> None:
        self.errors.append(f"uncaught: {error}")


@asynccontextmanager
async def browser() -> AsyncIterator[Any]:
    try:
        from playwright.async_api import async_playwright
    except ImportError:
        _missing("playwright (the dev extra)")
    executable = chromium_path()
    async with async_playwright() as pw:
        # --no-sandbox: tests run as root in a container, where Chromium's own sandbox cannot start.
        chromium = await pw.chromium.launch(executable_path=executable, headless=True, args=["--no-sandbox"])
        try:
            yield chromium
        finally:
            await chromium.close()


@asynccontextmanager
async def host_page(chromium: Any, base: str, console: Console) -> AsyncIterator[Any]:
    """A page whose host files are served on ``base``'s origin; /mcp goes to the real server."""
    context = await chromium.new_context(viewport={"width": 920, "height": 1000})

    async def serve(route: Any) -> None:
        rel = route.request.url.split(HOST_PREFIX, 1)[1].split("?", 1)[0]
        path = (HOST_DIST / rel).resolve()
        if not path.is_file() or HOST_DIST.resolve() not in path.parents:
            await route.fulfill(status=404, body="not found")
            return
        kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        await route.fulfill(status=200, body=path.read_bytes(), headers={"Content-Type": kind})

    await context.route(f"{base}{HOST_PREFIX}**", serve)
    page = await context.new_page()
    page.on("console", console.on_console)
    page.on("pageerror", console.on_page_error)
    try:
        yield page
    finally:
        await context.close()


async def shot(page: Any, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    await page.frame_locator("#view").locator("main").screenshot(path=str(path))
    return path


# -- the tests ---------------------------------------------------------------------------------------

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def host_built() -> None:
    build_host()


def host_url(base: str, args: dict[str, Any], **query: str) -> str:
    return f"{base}{HOST_PREFIX}host.html?" + urlencode({"args": json.dumps(args), **query})


async def open_view(page: Any, url: str) -> Any:
    await page.goto(url)
    await page.wait_for_function("window.hostState !== undefined || window.hostError !== undefined")
    assert await page.evaluate("window.hostError ?? null") is None
    return page.frame_locator("#view")


async def phase_of(view: Any) -> str:
    return (await view.locator("#phase").text_content() or "").strip()


async def wait_phase(view: Any, phase: str, timeout_s: float = 60) -> None:
    await view.locator(f'#phase[data-phase="{phase}"]').wait_for(timeout=timeout_s * 1000)


async def host_calls(page: Any) -> list[dict[str, Any]]:
    return await page.evaluate("window.hostCalls || []")


def test_committed_view_is_what_the_sources_build(host_built: None, tmp_path: Path) -> None:
    assert rebuild_view(tmp_path / "campaign.html") == COMMITTED.read_bytes(), "run `cd ui && npm run build`"


async def test_view_follows_a_campaign_to_its_cited_report(host_built: None, data_dir: Path) -> None:
    console = Console()
    env = config_env({"jobs": {"step_delay_s": 0.4}})
    async with http_server(data_dir, **env) as base, browser() as chromium, host_page(chromium, base, console) as page:
        view = await open_view(page, host_url(base, {"question": TWO_PARTS}))
        state = await page.evaluate("window.hostState")
        research = next(t for t in state["tools"] if t["name"] == "research")
        assert research["meta"]["ui"]["resourceUri"] == "ui://deepr/campaign"
        assert state["mimeType"] == "text/html;profile=mcp-app"
        await view.locator("#question", has_text=TWO_PARTS).wait_for()
        order = ["queued", "planning", "executing", "synthesizing", "complete"]
        seen: list[str] = []
        widths: list[float] = []
        with anyio.fail_after(90):
            while not seen or seen[-1] != "complete":
                phase = await phase_of(view)
                if phase in order and (not seen or seen[-1] != phase):
                    seen.append(phase)
                    if phase == "executing":
                        await view.locator("#plan li").first.wait_for()
                        await shot(page, "1-executing")
                widths.append(await view.locator("#overall").evaluate("e => parseFloat(e.style.width) || 0"))
                await anyio.sleep(0.1)
        assert "executing" in seen and seen == sorted(seen, key=order.index), seen
        assert widths == sorted(widths) and widths[-1] == 100, "the progress bar only moves forward, to 100%"
        assert await view.locator("#plan li").count() == 2  # the plan holds the question's two asks
        assert await view.locator("#controls").is_hidden()  # nothing to pause once complete
        cite = view.locator("#report button.cite").first
        await cite.wait_for()
        await shot(page, "2-report")
        number = (await cite.text_content() or "").strip("[]")
        await cite.click()
        passage = view.locator(f"#passage-{number}")
        await passage.locator(".src").wait_for()
        assert len((await passage.text_content() or "").strip()) > 40
        assert any(c["name"] == "corpus_passage" for c in await host_calls(page))
        await shot(page, "3-passage")
        await cite.click()  # a second click folds it away again
        await passage.wait_for(state="detached")
    assert console.errors == []


async def test_budget_question_is_answered_in_the_view(host_built: None, data_dir: Path) -> None:
    console = Console()
    async with fake_llm() as llm:
        env = config_env(priced(llm.url, timeout_s=120))
        async with http_server(data_dir, **env) as base, browser() as chromium:
            async with host_page(chromium, base, console) as page:
                view = await open_view(page, host_url(base, {"question": QUESTION, "budget": TINY_BUDGET}))
                await view.locator("#budget").wait_for(state="visible", timeout=60_000)
                assert "estimated" in (await view.locator("#budget-text").text_content() or "")
                await shot(page, "4-budget-question")
                field_ = view.locator("#new-budget")
                for bad, says in [
                    ("ten dollars", "is not a dollar amount"),
                    ("-1", "is not a dollar amount"),
                    ("0", "greater than 0"),
                    ("", "Enter the new budget"),
                    ("1e3", "is not a dollar amount"),
                    ("20000", "at most $10000"),
                ]:
                    await field_.fill(bad)
                    await view.locator("#approve").click()
                    error = view.locator("#budget-error")
                    await error.wait_for()
                    assert says in (await error.text_content() or ""), (bad, await error.text_content())
                await shot(page, "5-budget-invalid")
                assert not [c for c in await host_calls(page) if c["name"] == "budget_decide"], "nothing invalid sent"
                await field_.fill("1")
                await view.locator("#approve").click()
                await wait_phase(view, "complete", timeout_s=90)
                decided = [c for c in await host_calls(page) if c["name"] == "budget_decide"]
                assert [c["arguments"]["new_budget"] for c in decided] == [1]
                cost = await view.locator("#cost").text_content() or ""
                spent = float(cost.split(" of ")[0].lstrip("$"))
                assert 0 < spent <= 1.0, cost
                await view.locator("#report button.cite").first.wait_for()
                await shot(page, "6-budget-complete")
    assert console.errors == []


async def test_dark_theme_and_host_fonts_apply(host_built: None, data_dir: Path) -> None:
    console = Console()
    async with http_server(data_dir) as base, browser() as chromium, host_page(chromium, base, console) as page:
        view = await open_view(page, host_url(base, {"question": QUESTION}, theme="dark"))
        await wait_phase(view, "complete")
        await view.locator("#report button.cite").first.wait_for()
        body = view.locator("body")
        assert await body.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(11, 13, 16)"
        assert await body.evaluate("e => getComputedStyle(e).color") == "rgb(230, 237, 243)"
        assert "Georgia" in await body.evaluate("e => getComputedStyle(e).fontFamily")
        assert await view.locator("html").get_attribute("data-theme") == "dark"
        await shot(page, "7-dark")
        await page.evaluate("window.setTheme('light')")
        await view.locator("html[data-theme='light']").wait_for(state="attached")
        assert await body.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(255, 255, 255)"
    assert console.errors == []


async def test_unknown_campaign_says_so(host_built: None, data_dir: Path) -> None:
    console = Console()
    async with http_server(data_dir) as base, browser() as chromium, host_page(chromium, base, console) as page:
        view = await open_view(page, host_url(base, {"campaign_id": "no-such-campaign"}))
        message = view.locator("#message.error")
        await message.wait_for()
        assert "no-such-campaign" in (await message.text_content() or "")
        assert await phase_of(view) == "unavailable"
        await shot(page, "8-unknown-campaign")
    assert console.errors == []


async def test_deleted_campaign_says_so(host_built: None, data_dir: Path) -> None:
    console = Console()
    async with http_server(data_dir) as base, browser() as chromium, host_page(chromium, base, console) as page:
        async with Client(f"{base}/mcp", mode="legacy") as client:
            cid = (await call(client, "campaign_start", {"question": QUESTION}))["campaign_id"]
            await follow(client, cid)
            await page.goto(host_url(base, {"campaign_id": cid}, hold="1"))
            await page.wait_for_function("window.hostHeld === true")  # research answered; view not told yet
            await call(client, "campaign_delete", {"campaign_id": cid})
        await page.evaluate("window.release()")
        view = page.frame_locator("#view")
        message = view.locator("#message.error")
        await message.wait_for()
        text = await message.text_content() or ""
        assert f"no campaign {cid!r}" in text, text
        await shot(page, "9-deleted-campaign")
    assert console.errors == []


async def test_host_refusing_a_tool_call_is_shown(host_built: None, data_dir: Path) -> None:
    console = Console()
    env = config_env({"jobs": {"step_delay_s": 0.3}})
    async with http_server(data_dir, **env) as base, browser() as chromium, host_page(chromium, base, console) as page:
        view = await open_view(page, host_url(base, {"question": QUESTION}, refuse="campaign_wait"))
        message = view.locator("#message.error")
        await message.wait_for()
        text = await message.text_content() or ""
        assert "The host did not run campaign_wait" in text and "does not allow campaign_wait" in text, text
        await shot(page, "10-host-refused")
    assert console.errors == []


async def test_pause_resume_and_cancel_from_the_view(host_built: None, data_dir: Path) -> None:
    console = Console()
    env = config_env({"jobs": {"step_delay_s": 1.0}})
    async with http_server(data_dir, **env) as base, browser() as chromium, host_page(chromium, base, console) as page:
        view = await open_view(page, host_url(base, {"question": TWO_PARTS}))
        await view.locator("#pause:not([disabled])").wait_for(timeout=30_000)
        await view.locator("#pause").click()
        await wait_phase(view, "paused", timeout_s=30)  # after the current step
        assert await view.locator("#resume").is_enabled() and await view.locator("#pause").is_disabled()
        await shot(page, "11-paused")
        await view.locator("#resume").click()
        await view.locator("#resume[disabled]").wait_for(state="attached", timeout=30_000)
        await view.locator("#cancel").click()
        await wait_phase(view, "cancelled", timeout_s=30)
        assert await view.locator("#controls").is_hidden()
        await view.locator("#report-section").wait_for()  # the partial report
        names = [c["name"] for c in await host_calls(page)]
        assert names.index("campaign_pause") < names.index("campaign_resume") < names.index("campaign_cancel")
    assert console.errors == []
