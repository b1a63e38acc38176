#!/usr/bin/env bash
# Runs the official MCP conformance suite's server scenarios against a real `deepr-mcp serve --http`,
# in two releases: 0.1.16 (handshake era, up to 2025-11-25) and 0.2.0-alpha.12 (the 2026-07-28
# release: stateless requests, server/discover, and the SEP-2663 tasks extension).
# Node 22 and both suites are installed from the npm registry into .ci/node (gitignored), pinned;
# the 0.2 release is installed under the npm alias `conformance-next` beside 0.1.16.
#
# Left out, because they need the suite's own fixture server (tools, prompts and resources named
# test_*, slow_compute, failing_job...) that a real server does not have, or a capability deepr does
# not declare:
#   both releases: tools-call-simple-text, -image, -audio, -embedded-resource, -mixed-content,
#     -with-progress, -with-logging, -sampling, -elicitation (fixture tools test_*); resources-read-text,
#     -read-binary, -templates-read (fixture test:// resources); prompts-get-simple, -with-args,
#     -embedded-resource, -with-image (fixture prompts); json-schema-2020-12 (json_schema_2020_12_tool);
#     server-sse-polling (test_reconnection tool); elicitation-sep1034-defaults, elicitation-sep1330-enums
#     (fixture tools that elicit); completion-complete (deepr declares no completions capability, so
#     method-not-found is the spec's answer); logging-set-level (deepr declares no logging capability:
#     it logs to stderr, never to clients; same answer).
#   0.2 only: input-required-result-* except unsupported-methods (test_input_required_result_* tools;
#     deepr's own input_required flow is tested in tests/e2e/test_elicitation.py);
#     http-custom-header-server-validation (needs a tool with x-mcp-header annotations; deepr has none);
#     tasks-lifecycle, -wire-fields, -request-state-removal, -mrtr-input, -mrtr-composition,
#     -request-headers, -required-task-error (slow_compute, failing_job, protocol_error_job,
#     confirm_delete, multi_input fixtures; deepr's task tool is campaign_start, tested the same way in
#     tests/e2e/test_tasks_extension.py); tasks-status-notifications (the suite skips it itself).
# Included 0.2 scenarios run whole; the checks in NEXT_FIXTURE_CHECKS below need a fixture tool and are
# reported as not applicable instead of failing the run. Every other check must pass.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
NODE_DIR="$ROOT/.ci/node"
SUITE_PKG="@modelcontextprotocol/conformance@0.1.16"
NEXT_PKG="conformance-next@npm:@modelcontextprotocol/conformance@0.2.0-alpha.12"
SCENARIOS=(server-initialize ping tools-list dns-rebinding-protection server-sse-multiple-streams)
SCENARIOS+=(resources-list resources-subscribe resources-unsubscribe prompts-list tools-call-error)
SCENARIOS+=(${DEEPR_CONFORMANCE_EXTRA:-})
# 2026-07-28 era (--spec-version 2026-07-28: every request stateless, with its own _meta envelope).
NEXT_SCENARIOS=(server-stateless tools-list tools-call-error resources-list sep-2164-resource-not-found)
NEXT_SCENARIOS+=(prompts-list dns-rebinding-protection caching http-header-validation server-sse-multiple-streams)
NEXT_SCENARIOS+=(input-required-result-unsupported-methods)
NEXT_SCENARIOS+=(${DEEPR_CONFORMANCE_NEXT_EXTRA:-})
# Extension scenarios (not on the spec timeline, so run without --spec-version; they speak 2026-07-28).
NEXT_EXTENSION_SCENARIOS=(tasks-capability-negotiation tasks-dispatch-and-envelope)
NEXT_FIXTURE_CHECKS=(
  sep-2575-server-rejects-undeclared-capability # server-stateless: calls the fixture tool test_missing_capability
  sep-2575-missing-capability-http-400          # server-stateless: same fixture tool
  tasks-per-request-meta-opt-in                 # calls the fixture tool slow_compute
  tasks-server-directed-creation-no-hint        # slow_compute
  sep-2663-durable-create-strong-consistency    # slow_compute
)

SUITE_JS="$NODE_DIR/node_modules/@modelcontextprotocol/conformance/dist/index.js"
NEXT_JS="$NODE_DIR/node_modules/conformance-next/dist/index.js"
source "$ROOT/.ci/node-tools.sh"
ensure_node_tools "$NODE_DIR" @modelcontextprotocol/conformance/dist/index.js conformance-next/dist/index.js \
  -- "$SUITE_PKG" "$NEXT_PKG"

DATA="$(mktemp -d)"
LOG="$DATA/server.log"
"$ROOT/.venv/bin/python" -m deepr_mcp --data-dir "$DATA/data" serve --http 127.0.0.1:0 2>"$LOG" </dev/null &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true; wait $SERVER 2>/dev/null || true; rm -rf "$DATA"' EXIT
for _ in $(seq 1 1200); do  # up to 120 s: a busy 2-core machine is slow to import and bind
  URL="$(grep -o 'http://127\.0\.0\.1:[0-9]*/mcp' "$LOG" | head -1 || true)"
  [ -n "$URL" ] && break
  sleep 0.1
done
[ -n "${URL:-}" ] || { echo "conformance: server did not start" >&2; cat "$LOG" >&2; exit 1; }

suite() { PATH="$(dirname "$NODE_BIN"):$PATH" timeout 300 "$NODE_BIN" "$@" 2>&1; }

failed=0
total=0
for scenario in "${SCENARIOS[@]}"; do
  total=$((total + 1))
  if out="$(suite "$SUITE_JS" server --url "$URL" --scenario "$scenario")"; then
    echo "conformance 0.1.16: PASS $scenario ($(grep -o 'Passed: [0-9]*/[0-9]*' <<<"$out" | tail -1))"
  else
    echo "conformance 0.1.16: FAIL $scenario"
    echo "$out" | tail -30
    failed=$((failed + 1))
  fi
done

# The 0.2 verdict is read from the saved checks: a FAILURE fails the scenario unless its check id is a
# fixture check listed above.
verdict() {
  "$ROOT/.venv/bin/python" - "$1" "${NEXT_FIXTURE_CHECKS[@]}" <<'PY'
import json, pathlib, sys
results, fixture = pathlib.Path(sys.argv[1]), set(sys.argv[2:])
checks = [c for f in sorted(results.glob("*/checks.json")) for c in json.loads(f.read_text())]
failing = [c for c in checks if c["status"] == "FAILURE" and c["id"] not in fixture]
waived = sorted({c["id"] for c in checks if c["status"] == "FAILURE" and c["id"] in fixture})
passed = sum(c["status"] == "SUCCESS" for c in checks)
others = sorted({f"{c['id']} {c['status']}" for c in checks if c["status"] not in ("SUCCESS", "FAILURE")})
note = f", not applicable: {', '.join(waived)}" if waived else ""
note += f", also: {', '.join(others)}" if others else ""
print(f"{passed}/{len(checks)} checks passed{note}")
for c in failing:
    print(f"  FAILURE {c['id']}: {c.get('errorMessage', '')}"[:400])
sys.exit(1 if failing or not checks else 0)
PY
}

run_next() {
  local scenario="$1"
  shift
  local dir="$DATA/next/$scenario"
  total=$((total + 1))
  out="$(suite "$NEXT_JS" server --url "$URL" --scenario "$scenario" -o "$dir" "$@" || true)"
  if summary="$(verdict "$dir")"; then
    echo "conformance 0.2.0-alpha.12: PASS $scenario ($(head -1 <<<"$summary"))"
  else
    echo "conformance 0.2.0-alpha.12: FAIL $scenario ($summary)"
    echo "$out" | tail -30
    failed=$((failed + 1))
  fi
}
for scenario in "${NEXT_SCENARIOS[@]}"; do run_next "$scenario" --spec-version 2026-07-28; done
for scenario in "${NEXT_EXTENSION_SCENARIOS[@]}"; do run_next "$scenario"; done

echo "conformance: $((total - failed)) of $total scenarios passed"
[ "$failed" -eq 0 ]
