"""The Dockerfile and the compose file, checked without a Docker engine (none runs where the tests do).

What can be checked is: every file the image copies exists; the entrypoint and every replica's
command parse with the CLI's own parser and give the settings the server then runs with (0.0.0.0
only with a token, the data dir on the volume, the shared Redis); the image runs as a non-root
user; the healthcheck asks a route the HTTP app serves; the compose replicas each have their own
volume and the proxy's config names exactly them. Where the tools are installed, ``docker-compose
config`` (or ``docker compose config``) and ``haproxy -c`` parse the files too.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from deepr_mcp.cli import build_parser
from deepr_mcp.cli.args import settings_for
from deepr_mcp.errors import DeeprError

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "a-token-of-thirty-two-characters"
REPLICAS = ("deepr-1", "deepr-2", "deepr-3")


def dockerfile() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of the final Dockerfile, continuation lines joined, comments dropped."""
    text = re.sub(r"\\\n\s*", " ", (ROOT / "Dockerfile").read_text(encoding="utf-8"))
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1]) for line in lines]


def exec_form(arguments: str) -> list[str]:
    parsed = json.loads(arguments)
    assert isinstance(parsed, list) and all(isinstance(a, str) for a in parsed), arguments
    return parsed


def compose() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "compose.yaml").read_text(encoding="utf-8"))


def serve_settings(argv: list[str], env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Any:
    """What ``deepr-mcp ARGV`` would run with, under ``env``, and whether the HTTP bind is allowed."""
    from deepr_mcp.transports.http import check_bind

    for name in [n for n in os.environ if n.startswith("DEEPR_")]:
        monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    args = build_parser().parse_args(argv)
    assert args.command == "serve"
    settings = settings_for(args)
    check_bind(settings)
    return settings


def test_the_image_copies_files_that_exist_and_runs_as_a_user() -> None:
    instructions = dockerfile()
    for op, arguments in instructions:
        if op == "COPY" and not arguments.startswith("--from"):
            *sources, _ = arguments.split()
            for source in sources:
                assert (ROOT / source).exists(), f"the Dockerfile copies {source}, which is not in the checkout"
    final_stage = instructions[max(i for i, (op, _) in enumerate(instructions) if op == "FROM") :]
    users = [arguments for op, arguments in final_stage if op == "USER"]
    assert users and users[-1] not in ("root", "0"), "the image must not run as root"
    assert any(op == "FROM" and "slim" in arguments for op, arguments in final_stage)
    ignored = (ROOT / ".dockerignore").read_text(encoding="utf-8").split()
    assert {".venv/", ".git/", "tests/"} <= set(ignored)


def test_the_entrypoint_serves_http_on_all_interfaces_only_with_a_token(monkeypatch: pytest.MonkeyPatch) -> None:
    instructions = dict(dockerfile())
    argv = exec_form(instructions["ENTRYPOINT"]) + exec_form(instructions["CMD"])
    assert argv[0] == "deepr-mcp"
    env = dict(re.findall(r'(\w+)=("[^"]*"|\S+)', instructions["ENV"]))
    env = {name: value.strip('"') for name, value in env.items()}
    assert instructions["VOLUME"].strip('[]" ') == env["DEEPR_DATA_DIR"] == "/data"
    with pytest.raises(DeeprError, match=r"refusing to bind 0\.0\.0\.0"):
        serve_settings(argv[1:], env, monkeypatch)
    settings = serve_settings(argv[1:], {**env, "DEEPR_AUTH_TOKEN": TOKEN}, monkeypatch)
    assert (settings.http.host, settings.http.port) == ("0.0.0.0", 8765)
    assert str(settings.data_dir) == "/data"


def test_the_healthcheck_asks_a_route_the_server_answers() -> None:
    check = exec_form(dict(dockerfile())["HEALTHCHECK"].split(" CMD ", 1)[1])
    assert check[:2] == ["python", "-c"]
    compile(check[2], "<healthcheck>", "exec")  # valid Python
    assert "http://127.0.0.1:8765/healthz" in check[2]
    routes = (ROOT / "deepr_mcp" / "transports" / "http.py").read_text(encoding="utf-8")
    assert 'Route("/healthz"' in routes


def test_compose_runs_three_replicas_on_one_redis_behind_one_port(monkeypatch: pytest.MonkeyPatch) -> None:
    services = compose()["services"]
    assert set(REPLICAS) <= set(services) and {"redis", "proxy"} <= set(services)
    volumes = set()
    for name in REPLICAS:
        replica = services[name]
        (volume,) = replica["volumes"]
        assert volume.endswith(":/data")
        volumes.add(volume)
        env = {k: v for k, v in replica["environment"].items() if not str(v).startswith("${")}
        assert replica["environment"]["DEEPR_AUTH_TOKEN"].startswith("${DEEPR_AUTH_TOKEN:?")
        settings = serve_settings(replica["command"], {**env, "DEEPR_AUTH_TOKEN": TOKEN}, monkeypatch)
        assert settings.store.url == "redis://redis:6379/0" and settings.http.port == 8765
    assert len(volumes) == len(REPLICAS), "each replica keeps its own data volume (its SQLite corpus index)"
    assert services["proxy"]["ports"] == ["8765:8765"]
    (config,) = services["proxy"]["volumes"]
    assert (ROOT / config.split(":")[0]).is_file()
    haproxy = (ROOT / "deploy" / "haproxy.cfg").read_text(encoding="utf-8")
    for backend in re.split(r"\nbackend ", haproxy)[1:]:
        servers = re.findall(r"^\s*server (\S+) (\S+)$", backend, re.MULTILINE)
        assert servers == [(name, f"{name}:8765") for name in REPLICAS], backend
    assert "stick store-response res.hdr(mcp-session-id)" in haproxy  # a session returns to its replica


def compose_command() -> list[str] | None:
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    docker = shutil.which("docker")
    if docker and subprocess.run([docker, "compose", "version"], capture_output=True, timeout=30).returncode == 0:
        return [docker, "compose"]
    return None


def test_compose_config_parses_the_file() -> None:
    command = compose_command()
    if command is None:
        pytest.skip("neither docker-compose nor the docker compose plugin is installed")
    env = {**os.environ, "DEEPR_AUTH_TOKEN": TOKEN}
    done = subprocess.run(
        [*command, "-f", "compose.yaml", "config", "-q"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    env.pop("DEEPR_AUTH_TOKEN")
    refused = subprocess.run(
        [*command, "-f", "compose.yaml", "config", "-q"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert refused.returncode != 0 and "DEEPR_AUTH_TOKEN" in refused.stderr


def test_haproxy_accepts_its_config() -> None:
    haproxy = shutil.which("haproxy")
    if haproxy is None:
        pytest.skip("haproxy is not installed (Debian package haproxy)")
    done = subprocess.run(
        [haproxy, "-c", "-f", str(ROOT / "deploy" / "haproxy.cfg")], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stdout + done.stderr
