// Connects to examples/mcp-server over stdio with the official TypeScript
// MCP SDK client, lists the tools, calls good and bad ones, and checks every
// answer. Exits non-zero on the first mismatch.
//
// Run from anywhere: node .ci/mcp-ts-check/check.mjs (after npm ci there).
import assert from "node:assert/strict";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { McpError, ErrorCode } from "@modelcontextprotocol/sdk/types.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

const checks = [];
function check(name, fn) {
  checks.push({ name, fn });
}

// code reads the registry's failure object from a tool result's text.
function code(result) {
  assert.equal(result.content.length, 1);
  assert.equal(result.content[0].type, "text");
  return JSON.parse(result.content[0].text).code;
}

check("lists exactly the served tools, sorted, with their schemas", async (client) => {
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name), ["add", "flaky_tool", "web_search"]);
  const add = tools.find((t) => t.name === "add");
  assert.equal(add.description, "Add two numbers and return the sum.");
  assert.deepEqual(add.inputSchema, {
    type: "object",
    properties: { a: { type: "number" }, b: { type: "number" } },
    required: ["a", "b"],
    additionalProperties: false,
  });
});

check("a good call answers the sum", async (client) => {
  const result = await client.callTool({ name: "add", arguments: { a: 2, b: 3 } });
  assert.ok(!result.isError, JSON.stringify(result));
  assert.deepEqual(result.content, [{ type: "text", text: "5" }]);
});

check("a grouped tool the server enables is served", async (client) => {
  const result = await client.callTool({ name: "web_search", arguments: { query: "golang" } });
  assert.ok(!result.isError, JSON.stringify(result));
  assert.equal(JSON.parse(result.content[0].text).query, "golang");
});

check("bad arguments are a tool error the model can read", async (client) => {
  const result = await client.callTool({ name: "add", arguments: { a: 2 } });
  assert.equal(result.isError, true);
  assert.equal(code(result), "invalid_arguments");
  assert.match(result.content[0].text, /missing required argument \\"b\\"/);
});

check("a panicking tool is contained", async (client) => {
  const result = await client.callTool({ name: "flaky_tool", arguments: {} });
  assert.equal(result.isError, true);
  assert.equal(code(result), "panic");
});

for (const name of ["read_file", "no_such_tool"]) {
  check(`${name} is refused as an unknown tool`, async (client) => {
    await assert.rejects(client.callTool({ name, arguments: { path: "notes.txt" } }), (err) => {
      assert.ok(err instanceof McpError, String(err));
      assert.equal(err.code, ErrorCode.InvalidParams);
      assert.match(err.message, new RegExp(`unknown tool "${name}"`));
      return true;
    });
  });
}

const transport = new StdioClientTransport({
  command: "go",
  args: ["run", "./examples/mcp-server"],
  cwd: root,
  stderr: "inherit",
});
const client = new Client({ name: "toolreg-mcp-ts-check", version: "1.0.0" });

let passed = 0;
let failed = 0;
try {
  // go run may compile first: allow it time to answer initialize.
  await client.connect(transport, { timeout: 180_000 });
  const server = client.getServerVersion();
  console.log(`connected to ${server.name} ${server.version}`);
  for (const { name, fn } of checks) {
    try {
      await fn(client);
      passed++;
      console.log(`ok   ${name}`);
    } catch (err) {
      failed++;
      console.log(`FAIL ${name}\n     ${String(err.stack || err).split("\n").join("\n     ")}`);
    }
  }
} catch (err) {
  failed++;
  console.log(`FAIL connecting to the server: ${err.stack || err}`);
} finally {
  await client.close().catch(() => {});
}
console.log(`mcp-ts-check: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed === checks.length ? 0 : 1);
