// Drives an MCP server with the TypeScript MCP SDK's client (`@modelcontextprotocol/sdk` from
// npm, installed by .ci/install-node-mcp.sh), for tests/tests/mcp_interop_front.rs
// and tests/tests/balanced.rs.
//
//     node mcp_client.mjs --sdk DIR --plan PLAN.json (--url URL | --stdio CMD ARGS...)
//
// DIR is the folder the SDK was installed into with `npm --prefix DIR`. The plan is a JSON list
// of steps run in order, each with an `id` and a `kind`:
//
// * `info`: the negotiated server info and capabilities;
// * `list`: one `listTools()` call without a cursor, as apps built on SDK v1 do: the tools of
//   the first page, and its `nextCursor`;
// * `call`: `name`, `arguments`, optional `meta` (sent as `_meta`); the result, or
//   `{"error": {code, message}}`;
// * `session` (Streamable HTTP): the `Mcp-Session-Id` the transport holds;
// * `ready`: prints `{"ready": ID}` and waits for a line on stdin (the test acts meanwhile);
// * `wait_list_changed`: waits up to `timeout` seconds for `notifications/tools/list_changed`
//   received after the last `ready` step;
// * `terminate` (Streamable HTTP): ends the session with `DELETE`; `{ok, session_after}` or
//   `{error}`.
//
// The last line of stdout is `{"results": {ID: RESULT, ...}}`.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

const args = process.argv.slice(2);
const option = (name) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};
const sdkDir = option("--sdk");
const plan = JSON.parse(readFileSync(option("--plan"), "utf8"));
const url = option("--url");
const stdioAt = args.indexOf("--stdio");

// SDK 1.0.x ships ES modules in dist/, later versions in dist/esm/.
const root = join(sdkDir, "node_modules/@modelcontextprotocol/sdk/dist");
const sdk = async (module) => {
  const esm = join(root, "esm", module);
  return import(pathToFileURL(existsSync(esm) ? esm : join(root, module)).href);
};
const { Client } = await sdk("client/index.js");
const types = await sdk("types.js");

const emit = (value) => process.stdout.write(JSON.stringify(value) + "\n");
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();

let transport;
if (url) {
  const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");
  transport = new StreamableHTTPClientTransport(new URL(url));
} else if (stdioAt >= 0) {
  const { StdioClientTransport } = await sdk("client/stdio.js");
  const [command, ...rest] = args.slice(stdioAt + 1);
  transport = new StdioClientTransport({ command, args: rest, stderr: "inherit" });
} else {
  throw new Error("--url or --stdio is required");
}

const client = new Client({ name: "maitool-interop-test", version: "1.0.0" }, { capabilities: {} });
let changes = 0;
let mark = 0;
client.setNotificationHandler(types.ToolListChangedNotificationSchema, async () => {
  changes += 1;
});
await client.connect(transport);

const results = {};
for (const step of plan) {
  results[step.id] = await run(step);
}
emit({ results });
await client.close();
process.exit(0);

async function run(step) {
  switch (step.kind) {
    case "info":
      return {
        server_info: client.getServerVersion(),
        capabilities: client.getServerCapabilities(),
      };
    case "list": {
      const page = await client.listTools();
      return { tools: page.tools, next_cursor: page.nextCursor ?? null };
    }
    case "call":
      try {
        const params = { name: step.name, arguments: step.arguments ?? {} };
        if (step.meta) params._meta = step.meta;
        return { result: await client.callTool(params) };
      } catch (err) {
        return { error: { code: err.code ?? null, message: String(err.message ?? err) } };
      }
    case "session":
      return { session_id: transport.sessionId ?? null };
    case "ready":
      mark = changes;
      emit({ ready: step.id });
      return (await lines.next()).value ?? "";
    case "wait_list_changed": {
      const deadline = Date.now() + step.timeout * 1000;
      while (changes <= mark && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return { received: changes > mark, count: changes };
    }
    case "terminate":
      try {
        await transport.terminateSession();
        return { ok: true, session_after: transport.sessionId ?? null };
      } catch (err) {
        return { error: String(err.message ?? err) };
      }
    default:
      throw new Error(`unknown step kind ${step.kind}`);
  }
}
