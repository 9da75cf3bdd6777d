/**
 * Overhead of the MCP pins, as ratios to the same work unguarded in the same run:
 * a full paged listing of 1,000 tools, and one tools/call on a trivial tool.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { createSecureMcpServer, listAllToolsPinned, secureServer } from "../src/mcp/index.js";
import { ToolDefinitionPinGuard } from "../src/pins/index.js";
import { createPagingServer, pagingTool } from "../test/fixtures/servers/paging-server.js";
import { formatNs, formatRatio, measureAsync, table } from "./lib/measure.js";

export const title = "MCP pins: listing and call overhead";

const opts = { rounds: 9, roundMs: 150 };

async function connect(server: { connect(t: InMemoryTransport): Promise<unknown> }) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "bench", version: "1.0.0" });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  return client;
}

async function listingRows(): Promise<(string | number)[][]> {
  const count = 1_000;
  const rows: (string | number)[][] = [];
  const guard = new ToolDefinitionPinGuard();
  for (let i = 0; i < count; i++) guard.approve(pagingTool(i));
  for (const pageSize of [50, 1_000]) {
    const paging = createPagingServer({ toolCount: count, pageSize });
    const client = await connect(paging.server);
    for (let i = 0; i < 5; i++) await listAllToolsPinned(client, guard);
    const bare = await measureAsync(async () => {
      let cursor: string | undefined;
      let n = 0;
      do {
        const page = await client.listTools(cursor === undefined ? undefined : { cursor });
        n += page.tools.length;
        cursor = page.nextCursor;
      } while (cursor);
      if (n !== count) throw new Error("short listing");
    }, opts);
    const pinned = await measureAsync(async () => {
      const listing = await listAllToolsPinned(client, guard);
      if (listing.tools.length !== count) throw new Error("short listing");
    }, opts);
    rows.push([
      `1,000 tools, ${count / pageSize} page(s) of ${pageSize}`,
      formatNs(bare.median),
      formatNs(pinned.median),
      formatRatio(pinned.median / bare.median),
    ]);
    await client.close();
  }
  return rows;
}

async function callRows(): Promise<(string | number)[][]> {
  const handler = async ({ text }: { text: string }) => ({
    content: [{ type: "text" as const, text }],
  });
  const config = { description: "Echo the text.", inputSchema: { text: z.string() } };
  const plain = new McpServer({ name: "plain", version: "1.0.0" });
  plain.registerTool("echo", config, handler);
  const pinGuard = new ToolDefinitionPinGuard();
  const guarded = new McpServer({ name: "guarded", version: "1.0.0" });
  guarded.registerTool("echo", config, handler);
  const securedPlain = secureServer(guarded, { pinGuard });
  for (const tool of await securedPlain.toolDefinitions()) pinGuard.approve(tool);
  const registrar = createSecureMcpServer({ name: "registrar", version: "1.0.0" }, { pinGuard });
  registrar.secure.registerTool("echo", config, handler);

  const call = (client: Client) => async () => {
    const result = await client.callTool({ name: "echo", arguments: { text: "hi" } });
    if (result.isError) throw new Error("call refused");
  };
  const calls = [
    call(await connect(plain)),
    call(await connect(securedPlain)),
    call(await connect(registrar)),
  ];
  // Warm every path up first so that JIT compilation is not billed to whichever runs first.
  for (const fn of calls) for (let i = 0; i < 300; i++) await fn();
  const [baseline, pins, pinsAndArgs] = [
    await measureAsync(calls[0]!, opts),
    await measureAsync(calls[1]!, opts),
    await measureAsync(calls[2]!, opts),
  ];
  return [
    ["unguarded McpServer", formatNs(baseline.median), "1.00x"],
    ["secureServer (pins)", formatNs(pins.median), formatRatio(pins.median / baseline.median)],
    [
      "createSecureMcpServer registrar (pins + argument validation)",
      formatNs(pinsAndArgs.median),
      formatRatio(pinsAndArgs.median / baseline.median),
    ],
  ];
}

export async function run(): Promise<string> {
  const listing = await listingRows();
  const calls = await callRows();
  return [
    "Full listing through a real SDK 1.x client over an in-memory transport, against the",
    "low-level paging test server: a bare cursor loop (`client.listTools`) versus",
    "`listAllToolsPinned` (same pages, plus pagination checks and one pin check of all",
    "1,000 tools: a canonical digest each).",
    "",
    table(["listing", "bare", "listAllToolsPinned", "ratio"], listing),
    "",
    "One `tools/call` of a trivial tool, real SDK client and server in memory. The server",
    "guard re-reads the server's own listing on every call (so a tool replaced after start",
    "is caught at once), which is most of its cost.",
    "",
    table(["server", "per call", "ratio to unguarded"], calls),
  ].join("\n");
}
