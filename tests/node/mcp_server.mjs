// An MCP server on the TypeScript MCP SDK's low-level `Server` (`@modelcontextprotocol/sdk`
// from npm, installed by .ci/install-node-mcp.sh), serving on stdio what real servers send
// and rmcp's strict model refuses, for tests/tests/mcp_interop_client.rs:
//
//     node mcp_server.mjs --sdk DIR
//
// Tools:
// * `plain`: a well-formed tool; echoes its arguments as text;
// * `no_schema`: listed without `inputSchema` (servers written before the SDKs required it);
//   echoes its arguments;
// * `odd_content`: answers with a content block of a type no spec defines (`video`) between
//   two text blocks;
// * `pair`: a draft-07 schema (`$schema` draft-07, as zod-to-json-schema writes it) whose
//   `items` is a tuple: [integer, string]; echoes its arguments;
// * `big`: answers with one text block of `bytes` bytes;
// * `broken_schema`: an input schema no draft accepts (`type: "nonsense"`);
// * `bad_output`: declares an `outputSchema` ({n: integer}, required) and answers with
//   structured content that breaks it (`n` a string).
//
// The low-level `Server` sends handler results as they are, so these reach the client.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const args = process.argv.slice(2);
const sdkDir = args[args.indexOf("--sdk") + 1];
const root = join(sdkDir, "node_modules/@modelcontextprotocol/sdk/dist");
const sdk = async (module) => {
  const esm = join(root, "esm", module);
  return import(pathToFileURL(existsSync(esm) ? esm : join(root, module)).href);
};
const { Server } = await sdk("server/index.js");
const { StdioServerTransport } = await sdk("server/stdio.js");
const { ListToolsRequestSchema, CallToolRequestSchema } = await sdk("types.js");

const object = { type: "object", properties: { text: { type: "string" } } };
const tools = [
  { name: "plain", description: "Echoes its arguments.", inputSchema: object },
  { name: "no_schema", description: "Listed without an inputSchema." },
  { name: "odd_content", description: "Answers with a video block.", inputSchema: { type: "object" } },
  {
    name: "pair",
    description: "Takes a tuple.",
    inputSchema: {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: {
        pair: {
          type: "array",
          items: [{ type: "integer" }, { type: "string" }],
          additionalItems: false,
        },
      },
      required: ["pair"],
      additionalProperties: false,
    },
  },
  {
    name: "big",
    description: "Answers with `bytes` bytes of text.",
    inputSchema: { type: "object", properties: { bytes: { type: "integer" } } },
  },
  {
    name: "broken_schema",
    description: "Its schema does not compile.",
    inputSchema: { type: "object", properties: { x: { type: "nonsense" } } },
  },
  {
    name: "bad_output",
    description: "Breaks its own output schema.",
    inputSchema: { type: "object" },
    outputSchema: {
      type: "object",
      properties: { n: { type: "integer" } },
      required: ["n"],
    },
  },
];

const server = new Server({ name: "interop-server", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const { name, arguments: given } = request.params;
  const echo = { content: [{ type: "text", text: `${name} got ${JSON.stringify(given ?? {})}` }] };
  switch (name) {
    case "plain":
    case "no_schema":
    case "pair":
    case "broken_schema":
      return echo;
    case "odd_content":
      return {
        content: [
          { type: "text", text: "before the video" },
          { type: "video", uri: "file:///clip.mp4", mimeType: "video/mp4" },
          { type: "text", text: "after the video" },
        ],
      };
    case "bad_output":
      return {
        content: [{ type: "text", text: '{"n":"three"}' }],
        structuredContent: { n: "three" },
      };
    case "big":
      return { content: [{ type: "text", text: "x".repeat(given.bytes) }] };
    default:
      return { content: [{ type: "text", text: `no tool ${name}` }], isError: true };
  }
});
await server.connect(new StdioServerTransport());
