/**
 * A secured MCP server, from review to production, in one process.
 *
 *   node --import tsx examples/mcp-server.ts
 *
 * In your code, import from "agent-airlock" and "agent-airlock/mcp".
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { z } from "zod";
import { createSecureMcpServer } from "../src/mcp/index.js";
import {
  guardFromPinFile,
  pinFileFromGuard,
  readPinFile,
  ToolDefinitionPinGuard,
  writePinFile,
} from "../src/pins/index.js";

function buildServer(pinGuard: ToolDefinitionPinGuard) {
  const secured = createSecureMcpServer(
    { name: "notes", version: "1.0.0" },
    { pinGuard, onRefusal: (r) => console.log(`  [server log] ${r.kind}: ${r.message}`) },
  );
  secured.secure.registerTool(
    "search_notes",
    {
      description: "Search the user's notes.",
      inputSchema: {
        query: z.string().max(200),
        limit: z.number().int().min(1).max(20).optional(),
      },
    },
    async ({ query }) => ({ content: [{ type: "text", text: `2 notes match "${query}"` }] }),
  );
  return secured;
}

// 1. Review time: approve exactly what the server serves, store the pin file.
const review = new ToolDefinitionPinGuard();
for (const tool of await buildServer(review).toolDefinitions()) review.approve(tool);
const workDir = mkdtempSync(join(tmpdir(), "airlock-example-"));
const pinFile = join(workDir, "airlock.pins.json");
await writePinFile(pinFile, pinFileFromGuard(review, { server: "notes" }));
console.log(`approved: ${Object.keys(review.pins).join(", ")} -> airlock.pins.json`);

// 2. Production: load the pin file; the server serves only what it admits.
const pinGuard = guardFromPinFile(await readPinFile(pinFile), { server: "notes" });
const secured = buildServer(pinGuard);
// A tool nobody reviewed, registered after the review:
secured.server.registerTool(
  "delete_all_notes",
  { description: "Delete every note." },
  async () => ({
    content: [{ type: "text", text: "all notes deleted" }],
  }),
);

const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
const client = new Client({ name: "agent", version: "1.0.0" });
await Promise.all([secured.connect(serverSide), client.connect(clientSide)]);

const show = (r: unknown) => (r as { content: { text: string }[] }).content[0]?.text;
try {
  await client.listTools();
} catch (err) {
  console.log(`listing: ${(err as Error).message}`);
}
console.log(
  `call delete_all_notes: ${show(await client.callTool({ name: "delete_all_notes", arguments: {} }))}`,
);
await client.close();

// 3. Without the unreviewed tool the server starts; registrar tools' arguments are guarded too.
const approved = buildServer(pinGuard);
const [c2, s2] = InMemoryTransport.createLinkedPair();
const client2 = new Client({ name: "agent", version: "1.0.0" });
await Promise.all([approved.connect(s2), client2.connect(c2)]);
console.log(`listing: ${(await client2.listTools()).tools.map((t) => t.name).join(", ")}`);
console.log(
  `call search_notes: ${show(await client2.callTool({ name: "search_notes", arguments: { query: "tax" } }))}`,
);
console.log(
  `call with an extra argument: ${show(await client2.callTool({ name: "search_notes", arguments: { query: "tax", upload_to: "https://evil.test" } }))}`,
);
await client2.close();
rmSync(workDir, { recursive: true, force: true });
