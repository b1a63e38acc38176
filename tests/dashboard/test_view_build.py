"""The committed dashboard HTML is the build of the committed ``ui/`` sources.

``ui/build.mjs`` stamps the HTML with a sha256 of its sources; this recomputes it the same way
(sorted relative paths, NUL, bytes, NUL), so editing ``ui/src`` without ``npm run build`` fails
here, on any machine, without Node. The browser tests also rebuild and compare bytes.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from deepr_mcp.dashboard import campaign_html

UI = Path(__file__).resolve().parents[2] / "ui"
TOP = ["package.json", "package-lock.json", "vite.config.mjs", "build.mjs", "campaign.html"]


def source_hash(root: Path = UI) -> str:
    files = sorted([*TOP, *(p.relative_to(root).as_posix() for p in (root / "src").rglob("*") if p.is_file())])
    digest = hashlib.sha256()
    for rel in files:
        digest.update(rel.encode() + b"\0")
        digest.update((root / rel).read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def stamped_hash(html: str) -> str | None:
    match = re.search(r'<meta name="deepr-ui-source-sha256" content="([0-9a-f]{64})">', html)
    return match.group(1) if match else None


def test_committed_html_matches_its_sources() -> None:
    assert stamped_hash(campaign_html()) == source_hash(), (
        "deepr_mcp/dashboard/campaign.html is out of date with ui/: run `cd ui && npm ci && npm run build` and commit"
    )


def test_an_edited_source_is_noticed(tmp_path: Path) -> None:
    for rel in [*TOP, "src/main.js"]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes((UI / rel).read_bytes())
    before = source_hash(tmp_path)
    (tmp_path / "src" / "main.js").write_text("// edited\n", encoding="utf-8")
    assert source_hash(tmp_path) != before


def test_the_package_ships_the_view() -> None:
    html = campaign_html()
    assert html.startswith("<!doctype html>") and len(html) > 10_000
    assert "src=" not in re.sub(r"<script type=\"module\">.*?</script>", "", html, flags=re.S)


def test_the_lockfile_lists_every_platforms_optional_binaries() -> None:
    """``npm ci`` (npm 10 and 11) calls a lockfile out of sync when a package's optional dependencies
    (rollup's per-platform binaries) are missing from it, and ``npm install`` then rewrites it, which
    changes the source hash above: the lockfile must be the complete one, whatever machine wrote it."""
    packages = json.loads((UI / "package-lock.json").read_text(encoding="utf-8"))["packages"]
    missing = [
        f"{name} (optional dependency of {owner.removeprefix('node_modules/')})"
        for owner, entry in packages.items()
        for name in entry.get("optionalDependencies", {})
        if f"node_modules/{name}" not in packages and f"{owner}/node_modules/{name}" not in packages
    ]
    assert not missing, "ui/package-lock.json is incomplete; regenerate it with `npm install --package-lock-only`: " + (
        ", ".join(missing)
    )
