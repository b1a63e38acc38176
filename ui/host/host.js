// A small MCP Apps host for the browser tests: the official TypeScript SDK client talks to a real
// `deepr-mcp serve --http`, and ext-apps' AppBridge carries the view's postMessage JSON-RPC.
// Query parameters: tool (default research), args (JSON), theme (light|dark), refuse (a tool name the
// host refuses to run for the view, as a host's policy might), hold=1 (wait for window.release() before
// sending the tool result).
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { AppBridge, PostMessageTransport, getToolUiResourceUri } from "@modelcontextprotocol/ext-apps/app-bridge";

const query = new URLSearchParams(location.search);
const log = (text) => {
  document.getElementById("log").textContent = text;
};
const LIGHT = {
  "--color-background-primary": "#ffffff",
  "--color-text-primary": "#1f2328",
  "--font-sans": "Georgia, 'DejaVu Serif', serif",
};
const DARK = {
  "--color-background-primary": "#0b0d10",
  "--color-background-secondary": "#1a1f26",
  "--color-text-primary": "#e6edf3",
  "--color-text-secondary": "#9aa4ae",
  "--color-border-primary": "#30363d",
  "--font-sans": "Georgia, 'DejaVu Serif', serif",
};
const context = (theme) => ({
  theme,
  styles: { variables: theme === "dark" ? DARK : LIGHT, css: { fonts: "" } },
  displayMode: "inline",
  availableDisplayModes: ["inline"],
  platform: "web",
  locale: "en-GB",
});

async function main() {
  const theme = query.get("theme") === "dark" ? "dark" : "light";
  document.body.dataset.theme = theme;
  const client = new Client(
    { name: "deepr-test-host", version: "1.0.0" },
    { capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", location.origin)));
  const { tools } = await client.listTools();
  const toolName = query.get("tool") || "research";
  const tool = tools.find((t) => t.name === toolName);
  const uri = tool && getToolUiResourceUri(tool);
  if (!uri) throw new Error(`no UI tool ${toolName} in the first tools/list`);
  const resource = await client.readResource({ uri });
  const html = resource.contents[0];
  window.hostState = { tools: tools.map((t) => ({ name: t.name, meta: t._meta ?? null })), mimeType: html.mimeType };

  const bridge = new AppBridge(
    client,
    { name: "deepr-test-host", version: "1.0.0" },
    { serverTools: {}, serverResources: {}, logging: {} },
    { hostContext: context(theme) },
  );
  const iframe = document.getElementById("view");
  const initialized = new Promise((resolve) => {
    bridge.oninitialized = resolve;
  });
  iframe.srcdoc = html.text;
  await new Promise((resolve) => iframe.addEventListener("load", resolve, { once: true }));
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  const refused = query.get("refuse");
  bridge.oncalltool = async (params) => {
    window.hostCalls = [...(window.hostCalls || []), params];
    if (refused && params.name === refused) throw new Error(`this host does not allow ${params.name}`);
    return client.callTool(params);
  };
  await initialized;
  const args = JSON.parse(query.get("args") || "{}");
  await bridge.sendToolInput({ arguments: args });
  const result = await client.callTool({ name: toolName, arguments: args });
  window.hostState.result = result;
  if (query.get("hold") === "1") {
    // The browser tests change the server between the tool's answer and the view hearing of it.
    await new Promise((resolve) => {
      window.release = resolve;
      window.hostHeld = true;
    });
  }
  await bridge.sendToolResult(result);
  window.setTheme = (next) => {
    document.body.dataset.theme = next;
    return bridge.sendHostContextChange(context(next));
  };
  log(`host ready: ${toolName}`);
}

main().catch((err) => {
  window.hostError = String(err?.message || err);
  log(`host failed: ${window.hostError}`);
});
