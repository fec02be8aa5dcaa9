// Drives an MCP server with the TypeScript MCP SDK v2's client (`@modelcontextprotocol/client`
// from npm, installed by .ci/install-node-mcp.sh), for tests/tests/mcp_interop_front.rs and
// tests/tests/balanced.rs. Unlike v1 (mcp_client.mjs) it negotiates the protocol revision:
// `--negotiation auto` probes with `server/discover` and speaks 2026-07-28 to a server that
// offers it, falling back to the `initialize` handshake otherwise.
//
//     node mcp_client_v2.mjs --sdk DIR --plan PLAN.json [--negotiation auto|legacy]
//                            (--url URL | --stdio CMD ARGS...)
//
// DIR is the folder the client was installed into with `npm --prefix DIR`. The plan is a JSON
// list of steps run in order, each with an `id` and a `kind`:
//
// * `info`: the negotiated protocol version and era, server info and capabilities;
// * `list`: one `listTools()` call without a cursor: the tools of the first page, its
//   `nextCursor`, and how long it took (`elapsed`, seconds);
// * `call`: `name`, `arguments`, optional `meta` (sent as `_meta`); the result, or
//   `{"error": {code, message}}`;
// * `ready`: prints `{"ready": ID}` and waits for a line on stdin (the test acts meanwhile).
//
// The last line of stdout is `{"connect_seconds": S, "results": {ID: RESULT, ...}}`.
import { readFileSync } from "node:fs";
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
const negotiation = option("--negotiation") ?? "auto";
const stdioAt = args.indexOf("--stdio");

const dist = join(sdkDir, "node_modules/@modelcontextprotocol/client/dist");
const load = (module) => import(pathToFileURL(join(dist, module)).href);
const { Client, StreamableHTTPClientTransport } = await load("index.mjs");

const emit = (value) => process.stdout.write(JSON.stringify(value) + "\n");
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();

let transport;
if (url) {
  transport = new StreamableHTTPClientTransport(new URL(url));
} else if (stdioAt >= 0) {
  const { StdioClientTransport } = await load("stdio.mjs");
  const [command, ...rest] = args.slice(stdioAt + 1);
  transport = new StdioClientTransport({ command, args: rest, stderr: "inherit" });
} else {
  throw new Error("--url or --stdio is required");
}

const client = new Client(
  { name: "maitool-interop-test-v2", version: "1.0.0" },
  { capabilities: {}, versionNegotiation: { mode: negotiation } },
);
const connectStarted = performance.now();
await client.connect(transport);
const connectSeconds = (performance.now() - connectStarted) / 1000;

const failure = (err) => ({ error: { code: err?.code ?? null, message: String(err?.message ?? err) } });

const results = {};
for (const step of plan) {
  switch (step.kind) {
    case "info":
      results[step.id] = {
        protocol_version: client.getNegotiatedProtocolVersion() ?? null,
        era: client.getProtocolEra() ?? null,
        server_info: client.getServerVersion() ?? null,
        capabilities: client.getServerCapabilities() ?? null,
      };
      break;
    case "list": {
      const started = performance.now();
      try {
        const page = await client.listTools();
        results[step.id] = {
          tools: page.tools,
          nextCursor: page.nextCursor ?? null,
          elapsed: (performance.now() - started) / 1000,
        };
      } catch (err) {
        results[step.id] = failure(err);
      }
      break;
    }
    case "call":
      try {
        const params = { name: step.name, arguments: step.arguments ?? {} };
        if (step.meta) params._meta = step.meta;
        results[step.id] = await client.callTool(params);
      } catch (err) {
        results[step.id] = failure(err);
      }
      break;
    case "ready":
      emit({ ready: step.id });
      results[step.id] = (await lines.next()).value ?? "";
      break;
    default:
      throw new Error(`unknown step kind ${step.kind}`);
  }
}
emit({ connect_seconds: connectSeconds, results });
await client.close();
process.exit(0);
