import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  checkToolArguments,
  listAllToolsPinned,
  McpServerProbeError,
  PinnedClientTransport,
  toolDefinitions,
} from "../../src/mcp/index.js";
import { ToolDefinitionPinGuard } from "../../src/pins/index.js";
import { pagingTool } from "../fixtures/servers/paging-server.js";
import { connectedPagingServer } from "./helpers.js";

function deepSchema(depth: number): unknown {
  let schema: Record<string, unknown> = { type: "string" };
  for (let i = 0; i < depth; i++) schema = { type: "object", properties: { x: schema } };
  return schema;
}

describe("hostile listings", () => {
  it("a 100,000-deep schema, a cycle, NaN and a lone surrogate are refused as unreadable, not crashed on", async () => {
    const guard = new ToolDefinitionPinGuard();
    guard.approve(pagingTool(0));
    const cyclic: Record<string, unknown> = { type: "object" };
    cyclic.properties = { self: cyclic };
    const listing = {
      tools: [
        pagingTool(0),
        { name: "deep", inputSchema: deepSchema(100_000) },
        { name: "cycle", inputSchema: cyclic },
        { name: "nan", inputSchema: { maximum: Number.NaN } },
        { name: "surrogate\uD800" },
        { description: "no name" },
        "not an object",
      ],
    };
    const filtered = await listAllToolsPinned(async () => listing, guard, { onDrift: "filter" });
    expect(filtered.tools.map((t) => t.name)).toEqual(["tool_000"]);
    const err = await listAllToolsPinned(async () => listing, guard).catch((e) => e);
    expect(err.check.refused).toHaveLength(6);
  });

  it("tools named __proto__ and constructor work like any other, through the transport guard too", async () => {
    const guard = new ToolDefinitionPinGuard();
    const odd = [
      { ...pagingTool(0), name: "__proto__" },
      { ...pagingTool(1), name: "constructor" },
    ];
    for (const tool of odd) guard.approve(tool);
    const listing = await listAllToolsPinned(async () => ({ tools: odd }), guard);
    expect(listing.tools.map((t) => t.name)).toEqual(["__proto__", "constructor"]);

    const s = await connectedPagingServer(
      { toolCount: 2, hiddenTool: "__proto__" },
      (t) => new PinnedClientTransport(t, guard, { onDrift: "filter" }),
    );
    expect((await s.client.listTools()).tools).toEqual([]);
    const blocked = await s.client.callTool({ name: "__proto__", arguments: {} });
    expect(blocked.isError).toBe(true);
    expect(s.calledTools).toEqual([]);
    await s.close();
  });

  it("pages are never modified (deep-frozen input)", async () => {
    const guard = new ToolDefinitionPinGuard();
    guard.approve(pagingTool(0));
    const freeze = <T>(v: T): T => {
      if (typeof v === "object" && v !== null) {
        for (const child of Object.values(v)) freeze(child);
        Object.freeze(v);
      }
      return v;
    };
    const pages = freeze([
      { tools: [pagingTool(0), pagingTool(1)], nextCursor: "b", _meta: { a: 1 } },
      { tools: [pagingTool(0)] },
    ]);
    const out = await listAllToolsPinned(
      async ({ cursor }) => pages[cursor === undefined ? 0 : 1],
      guard,
      { onDrift: "filter" },
    );
    expect(out).toEqual({ _meta: { a: 1 }, tools: [] }); // tool_000 is on two pages
  });
});

describe("hostile servers", () => {
  it("a server that never answers tools/list fails the probe with a typed error", async () => {
    const server = new Server(
      { name: "silent", version: "1.0.0" },
      { capabilities: { tools: {} } },
    );
    server.setRequestHandler(ListToolsRequestSchema, () => new Promise(() => {}));
    await expect(toolDefinitions(server, { timeoutMs: 50 })).rejects.toBeInstanceOf(
      McpServerProbeError,
    );
  });

  it("a server with no tools capability serves no tools", async () => {
    const server = new Server({ name: "empty", version: "1.0.0" }, { capabilities: {} });
    expect(await toolDefinitions(server)).toEqual([]);
  });
});

describe("argument guard properties", () => {
  it("never throws, never mutates the arguments, and admits only declared keys", () => {
    const schema = {
      type: "object",
      properties: { a: { type: "string" }, b: { type: "number" } },
    };
    fc.assert(
      fc.property(
        fc.oneof(fc.jsonValue(), fc.dictionary(fc.string(), fc.jsonValue())),
        fc.constantFrom("refuse" as const, "strip" as const),
        (args, unknownArguments) => {
          const before = JSON.stringify(args);
          const verdict = checkToolArguments({ name: "t", inputSchema: schema }, args, {
            unknownArguments,
          });
          expect(JSON.stringify(args)).toBe(before);
          if (verdict.ok) {
            for (const key of Object.keys(verdict.arguments)) expect(["a", "b"]).toContain(key);
          } else {
            expect(verdict.reason.length).toBeGreaterThan(0);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("refuses a tool whose inputSchema cannot be compiled or is missing", () => {
    const bad = checkToolArguments({ name: "t", inputSchema: { type: "nonsense-type" } }, {});
    expect(bad.ok).toBe(false);
    expect(checkToolArguments({ name: "t" }, {}).ok).toBe(false);
    expect(checkToolArguments({ name: "t", inputSchema: { type: "object" } }, [1]).ok).toBe(false);
  });
});

describe("transport guard against a misbehaving raw server", () => {
  it("refuses a non-string cursor and a page that is not a listing", async () => {
    for (const misbehave of ["non-string-cursor", "page-not-listing"] as const) {
      const guard = new ToolDefinitionPinGuard();
      for (let i = 0; i < 6; i++) guard.approve(pagingTool(i));
      const s = await connectedPagingServer(
        { toolCount: 6, pageSize: 2, misbehave },
        (t) => new PinnedClientTransport(t, guard),
      );
      const client = s.client as Client;
      if (misbehave === "non-string-cursor") {
        await expect(client.listTools()).rejects.toThrow(/nextCursor is not a string/);
      } else {
        await client.listTools();
        await expect(client.listTools({ cursor: "page-1" })).rejects.toThrow(/not a listing/);
      }
      await s.close();
    }
  });
});
