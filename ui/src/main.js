// The campaign dashboard: an MCP Apps view (SEP-1865). It talks only to the host, over postMessage
// JSON-RPC (ui/initialize, tools/call proxied to deepr-mcp); it never opens a connection itself.
import {
  App,
  PostMessageTransport,
  applyDocumentTheme,
  applyHostFonts,
  applyHostStyleVariables,
} from "@modelcontextprotocol/ext-apps";
import { render } from "./markdown.js";
import { parseBudget } from "./budget.js";

const TERMINAL = new Set(["complete", "failed", "cancelled"]);
const WAIT_S = 20; // campaign_wait's own timeout; well inside the bridge's 60 s request timeout
const $ = (id) => document.getElementById(id);

const state = { id: null, version: null, phase: null, status: null, sources: new Map(), polling: false, stopped: false };
const app = new App({ name: "deepr-mcp campaign", version: "0.1.0" }, {});

function show(text, kind = "info") {
  const box = $("message");
  box.hidden = !text;
  box.textContent = text || "";
  box.className = `message ${kind}`;
}

function textOf(result) {
  return (result?.content || []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
}

class ToolError extends Error {}

/** A tool call through the host: the structured answer, or a ToolError saying what went wrong. */
async function call(name, args) {
  let result;
  try {
    result = await app.callServerTool({ name, arguments: args }, { timeout: (WAIT_S + 30) * 1000 });
  } catch (err) {
    throw new ToolError(`The host did not run ${name}: ${err?.message || err}`);
  }
  if (result.isError) {
    const text = textOf(result).replace(/^Error:\s*/, "");
    throw new ToolError(text || `${name} failed`);
  }
  return result.structuredContent ?? { text: textOf(result) };
}

function applyContext(ctx) {
  if (!ctx) return;
  if (ctx.theme) applyDocumentTheme(ctx.theme);
  if (ctx.theme) document.documentElement.dataset.theme = ctx.theme;
  if (ctx.styles?.variables) applyHostStyleVariables(ctx.styles.variables);
  if (ctx.styles?.css?.fonts) applyHostFonts(ctx.styles.css.fonts);
}

function money(x) {
  return `$${Number(x || 0).toFixed(x >= 1 ? 2 : 4)}`;
}

function renderStatus(status) {
  state.status = status;
  state.phase = status.phase;
  state.version = status.version;
  $("phase").textContent = status.phase.replace("_", " ");
  $("phase").dataset.phase = status.phase;
  const cost = $("cost");
  cost.textContent = `${money(status.cost)} of ${money(status.budget)} budget`;
  cost.classList.toggle("cost-over", status.cost > status.budget);
  $("overall").style.width = `${Math.round((status.progress || 0) * 100)}%`;
  const running = !TERMINAL.has(status.phase);
  $("controls").hidden = !running;
  $("pause").disabled = !["planning", "executing", "synthesizing", "queued"].includes(status.phase);
  $("resume").disabled = status.phase !== "paused";
  renderBudget(status);
  if (status.error) show(`The campaign stopped with an error: ${status.error}`, "error");
}

function renderBudget(status) {
  const q = status.budget_question;
  const box = $("budget");
  if (!q) {
    box.hidden = true;
    box.dataset.question = "";
    return;
  }
  if (box.dataset.question !== q.id) {
    box.dataset.question = q.id;
    $("budget-text").textContent =
      `${money(q.spent)} of the ${money(q.budget)} budget is spent; the next step (${q.step}) is estimated at ` +
      `${money(q.estimated_cost)}. Raise the budget, continue more cheaply, or stop with a partial report.`;
    const suggested = status.settle_with?.arguments?.new_budget;
    $("new-budget").value = suggested ? String(suggested) : "";
    $("budget-error").hidden = true;
  }
  box.hidden = false;
}

function renderPlan(plan) {
  if (plan.question) $("question").textContent = plan.question;
  const list = $("plan");
  list.replaceChildren();
  for (const sq of plan.sub_questions || []) {
    const li = document.createElement("li");
    li.dataset.status = sq.status;
    const text = document.createElement("span");
    text.textContent = sq.text;
    const badge = document.createElement("span");
    badge.className = `state ${sq.status}`;
    badge.textContent = `${sq.status} · ${sq.findings} finding${sq.findings === 1 ? "" : "s"}`;
    const bar = document.createElement("div");
    bar.className = "bar";
    bar.setAttribute("role", "progressbar");
    const fill = document.createElement("div");
    fill.style.width = `${Math.round(Math.min(1, sq.evidence || 0) * 100)}%`;
    bar.append(fill);
    li.append(text, badge, bar);
    list.append(li);
  }
  $("plan-section").hidden = !(plan.sub_questions || []).length;
}

function citation(n) {
  const source = state.sources.get(n);
  if (!source) return null;
  const button = document.createElement("button");
  button.type = "button";
  button.className = "cite";
  button.textContent = `[${n}]`;
  button.title = `${source.source} ${source.location || ""}`.trim();
  button.dataset.passage = source.passage_id;
  button.addEventListener("click", () => openPassage(button, source));
  return button;
}

async function openPassage(button, source) {
  const block = button.closest("p, li, blockquote, h2, h3, h4") || button.parentElement;
  const id = `passage-${source.number}`;
  const open = block.nextElementSibling;
  if (open && open.id === id) return open.remove();
  const box = document.createElement("div");
  box.className = "passage";
  box.id = id;
  box.textContent = "Loading passage…";
  block.after(box);
  try {
    const p = await call("corpus_passage", { passage_id: source.passage_id });
    const src = document.createElement("span");
    src.className = "src";
    src.textContent = `[${source.number}] ${p.source}${p.location ? ` · ${p.location}` : ""}`;
    box.replaceChildren(src, document.createTextNode(p.text));
  } catch (err) {
    box.classList.add("error");
    box.textContent = `Could not open passage [${source.number}]: ${err.message}`;
  }
}

async function loadReport() {
  const [sources, report] = await Promise.all([
    call("campaign_sources", { campaign_id: state.id }),
    call("campaign_report", { campaign_id: state.id }),
  ]);
  state.sources = new Map((sources.sources || []).map((s) => [s.number, s]));
  $("report").replaceChildren(render(report.text || "", citation));
  $("report-section").hidden = false;
}

async function refresh() {
  const [status, plan] = await Promise.all([
    call("campaign_status", { campaign_id: state.id }),
    call("campaign_plan", { campaign_id: state.id }),
  ]);
  renderStatus(status);
  renderPlan(plan);
  if (TERMINAL.has(status.phase)) await loadReport();
}

/** Long-poll campaign_wait through the host until the campaign ends or a call fails. */
async function follow() {
  if (state.polling) return;
  state.polling = true;
  try {
    while (!state.stopped && !TERMINAL.has(state.phase)) {
      const answer = await call("campaign_wait", {
        campaign_id: state.id,
        until: "change",
        since: state.version,
        timeout_s: WAIT_S,
      });
      if (!answer.timed_out || answer.version !== state.version) await refresh();
    }
    if (state.phase === "complete") show("");
  } catch (err) {
    stop(err);
  } finally {
    state.polling = false;
  }
}

function stop(err) {
  show(err instanceof ToolError ? err.message : `Unexpected problem: ${err?.message || err}`, "error");
}

async function open(campaignId) {
  if (!campaignId || campaignId === state.id) return;
  Object.assign(state, { id: campaignId, version: null, phase: null, stopped: false });
  show(`Loading campaign ${campaignId}…`);
  try {
    await refresh();
    show("");
    follow();
  } catch (err) {
    $("question").textContent = `Campaign ${campaignId}`;
    $("phase").textContent = "unavailable";
    stop(err);
  }
}

async function act(button, name, args) {
  button.disabled = true;
  try {
    await call(name, { campaign_id: state.id, ...args });
    await refresh();
    follow();
  } catch (err) {
    stop(err);
  } finally {
    button.disabled = false;
  }
}

async function decide(button, decision) {
  const error = $("budget-error");
  error.hidden = true;
  const args = { decision };
  if (decision === "approve_override") {
    const parsed = parseBudget($("new-budget").value, state.status?.cost ?? 0);
    if (parsed.error) {
      error.textContent = parsed.error;
      error.hidden = false;
      return; // nothing reaches the server that the form did not validate
    }
    args.new_budget = parsed.value;
  }
  for (const b of $("budget").querySelectorAll("button")) b.disabled = true;
  try {
    await call("budget_decide", { campaign_id: state.id, ...args });
    $("budget").hidden = true;
    await refresh();
    follow();
  } catch (err) {
    error.textContent = `The decision was not taken: ${err.message}`;
    error.hidden = false;
  } finally {
    for (const b of $("budget").querySelectorAll("button")) b.disabled = false;
  }
}

function wire() {
  // No <form> submit: hosts sandbox views without allow-forms, where a submit is blocked.
  $("approve").addEventListener("click", () => decide($("approve"), "approve_override"));
  $("new-budget").addEventListener("keydown", (e) => {
    if (e.key === "Enter") decide($("approve"), "approve_override");
  });
  $("optimize").addEventListener("click", () => decide($("optimize"), "optimize_for_cost"));
  $("abort").addEventListener("click", () => decide($("abort"), "abort"));
  $("pause").addEventListener("click", () => act($("pause"), "campaign_pause"));
  $("resume").addEventListener("click", () => act($("resume"), "campaign_resume"));
  $("cancel").addEventListener("click", () => act($("cancel"), "campaign_cancel"));
}

app.ontoolinput = (params) => {
  const id = params?.arguments?.campaign_id;
  if (typeof id === "string" && !state.id) $("question").textContent = `Opening campaign ${id}…`;
  else if (typeof params?.arguments?.question === "string") $("question").textContent = params.arguments.question;
};
app.ontoolresult = (result) => {
  if (result.isError) {
    $("phase").textContent = "unavailable";
    show(textOf(result).replace(/^Error:\s*/, "") || "The research tool failed.", "error");
    return;
  }
  const id = result.structuredContent?.campaign_id;
  if (typeof id === "string") open(id);
  else show("The research tool answered without a campaign id.", "error");
};
app.onhostcontextchanged = (ctx) => applyContext(ctx);
app.onteardown = async () => {
  state.stopped = true;
  return {};
};

wire();
app
  .connect(new PostMessageTransport(window.parent, window.parent))
  .then(() => {
    applyContext(app.getHostContext());
    $("question").textContent = state.id ? $("question").textContent : "Waiting for the research tool…";
  })
  .catch((err) => show(`Could not connect to the host: ${err?.message || err}`, "error"));
