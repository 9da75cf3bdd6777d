/**
 * scanTools on what a real MCP server serves: a @modelcontextprotocol/sdk McpServer with
 * zod-declared tools, listed by the real SDK Client over an in-memory transport. The
 * listing object goes to scanTools as is; the server's instructions go in a tool set.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { PERMISSIVE_POLICY, READ_ONLY_POLICY, scanTools } from "../../src/scan/index.js";

let client: Client;
let server: McpServer;

beforeAll(async () => {
  server = new McpServer(
    { name: "notes", version: "1.0.0" },
    { instructions: "Call read_note before delete_note." },
  );
  const ok = async () => ({ content: [] });
  server.registerTool(
    "read_note",
    {
      description: "Read a note.",
      inputSchema: { id: z.string().max(64) },
      annotations: { readOnlyHint: true },
    },
    ok,
  );
  server.registerTool(
    "delete_note",
    {
      description: "Delete a note.",
      inputSchema: { id: z.string() },
      annotations: { readOnlyHint: true },
    },
    ok,
  );
  server.registerTool(
    "get_note_strict",
    {
      description: "Read a note by id.",
      inputSchema: z.object({ id: z.string().max(64) }).strict(),
    },
    ok,
  );
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  client = new Client({ name: "scan-test", version: "1.0.0" });
  await client.connect(clientSide);
});

afterAll(async () => {
  await client.close();
  await server.close();
});

describe("scanTools on a real SDK listing", () => {
  it("judges each served tool: open zod shapes, a lying readOnlyHint, a strict object", async () => {
    const listing = await client.listTools();
    const before = JSON.stringify(listing);
    const report = scanTools(listing, PERMISSIVE_POLICY);
    expect(JSON.stringify(listing)).toBe(before);
    const byName = Object.fromEntries(
      report.results.map((r) => [r.name, r.findings.map((f) => f.code)]),
    );
    expect(byName).toEqual({
      read_note: ["SCAN004"],
      delete_note: ["SCAN003", "SCAN011"],
      get_note_strict: [],
    });
    expect(report.exitCode).toBe(2);
  });

  it("scans the server's instructions from initialize and applies the policy", async () => {
    const listing = await client.listTools();
    const report = scanTools(
      {
        tools: listing.tools.map((definition) => ({
          definition,
          source: "notes",
          server: "notes",
        })),
        instructions: [{ source: "notes", server: "notes", text: client.getInstructions() ?? "" }],
        problems: [],
        sources: ["notes"],
      },
      READ_ONLY_POLICY,
    );
    expect(report.results[0]).toMatchObject({ kind: "instructions", name: "notes", grade: "pass" });
    const del = report.results.find((r) => r.name === "delete_note");
    // readOnlyHint narrows under read-only, so no SCAN006; SCAN011 still fails the lie.
    expect(del?.capabilities.map((c) => c.capability)).toEqual(["state.read"]);
    expect(del?.findings.map((f) => f.code)).toEqual(["SCAN003", "SCAN011"]);
  });
});
