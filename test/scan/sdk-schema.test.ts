/**
 * Issue 13, item 5: an open inputSchema the MCP SDK wrote itself. With the real SDK 1.x
 * and 2.x servers: the schema they serve for a plain zod object is open and has the shape
 * sdkConversion recognises, and the handler never sees an undeclared argument (the reason
 * SCAN003 only warns there). With the real filesystem server installed today over stdio:
 * write_file, edit_file and move_file no longer fail under permissive, nor under strict.
 * With the real memory server's listing captured today (test/fixtures/real-servers), the
 * `airlock scan-tools` CLI fails nothing under permissive.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  Client as ClientV2,
  InMemoryTransport as InMemoryTransportV2,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { McpServer as McpServerV2 } from "@modelcontextprotocol/server";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { PERMISSIVE_POLICY, STRICT_POLICY, scanTools } from "../../src/scan/index.js";
import { sdkConversion } from "../../src/scan/sdk-schema.js";

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const seen: Record<string, unknown>[] = [];
const remember = async (args: Record<string, unknown>) => {
  seen.push(args);
  return { content: [{ type: "text" as const, text: "done" }] };
};

describe("the SDK's own open schemas", () => {
  it("1.x: served open with the draft-07 shape; the handler gets declared arguments only", async () => {
    const server = new McpServer({ name: "notes", version: "1.0.0" });
    server.registerTool(
      "delete_note",
      { description: "Delete a note.", inputSchema: { id: z.string() } },
      remember,
    );
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(b);
    const client = new Client({ name: "t", version: "1.0.0" });
    await client.connect(a);
    closers.push(
      () => client.close(),
      () => server.close(),
    );

    const { tools } = await client.listTools();
    const schema = tools[0]!.inputSchema as Record<string, unknown>;
    expect(schema.additionalProperties).toBeUndefined();
    expect(sdkConversion(schema)).toBe("the MCP SDK 1.x zod conversion");
    seen.length = 0;
    await client.callTool({ name: "delete_note", arguments: { id: "n1", force: true } });
    expect(seen).toEqual([{ id: "n1" }]);
    const open = scanTools(tools, STRICT_POLICY).results[0]!.findings.find(
      (f) => f.code === "SCAN003",
    );
    expect(open?.grade).toBe("warn");
  });

  it("2.x: served open with the 2020-12 shape; the handler gets declared arguments only", async () => {
    const server = new McpServerV2({ name: "notes", version: "2.0.0" });
    server.registerTool(
      "delete_note",
      { description: "Delete a note.", inputSchema: z.object({ id: z.string() }) },
      remember,
    );
    const [a, b] = InMemoryTransportV2.createLinkedPair();
    await server.connect(b);
    const client = new ClientV2({ name: "t", version: "1.0.0" });
    await client.connect(a);
    closers.push(
      () => client.close(),
      () => server.close(),
    );

    const { tools } = await client.listTools();
    const schema = tools[0]!.inputSchema as Record<string, unknown>;
    expect(schema.additionalProperties).toBeUndefined();
    expect(sdkConversion(schema)).toBe("the MCP SDK 2.x zod conversion");
    seen.length = 0;
    await client.callTool({ name: "delete_note", arguments: { id: "n1", force: true } });
    expect(seen).toEqual([{ id: "n1" }]);
  });

  it("a strict zod object is closed, and a loose one is not the SDK's stripping shape", async () => {
    const server = new McpServer({ name: "notes", version: "1.0.0" });
    server.registerTool(
      "delete_strict",
      { inputSchema: z.object({ id: z.string() }).strict() },
      remember,
    );
    server.registerTool(
      "delete_loose",
      { inputSchema: z.looseObject({ id: z.string() }) },
      remember,
    );
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(b);
    const client = new Client({ name: "t", version: "1.0.0" });
    await client.connect(a);
    closers.push(
      () => client.close(),
      () => server.close(),
    );
    const report = scanTools(await client.listTools(), STRICT_POLICY);
    const scan003 = (name: string) =>
      report.results.find((r) => r.name === name)!.findings.find((f) => f.code === "SCAN003");
    expect(scan003("delete_strict")).toBeUndefined();
    expect(scan003("delete_loose")?.grade).toBe("fail");
  });
});

describe("the real filesystem server, installed today, over stdio", () => {
  it("its writing tools warn, never fail, under permissive and strict", async () => {
    const dir = mkdtempSync(join(tmpdir(), "airlock-fs-"));
    closers.push(async () => rmSync(dir, { recursive: true, force: true }));
    const require = createRequire(import.meta.url);
    const bin = join(
      dirname(require.resolve("@modelcontextprotocol/server-filesystem/package.json")),
      "dist/index.js",
    );
    const client = new Client({ name: "t", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [bin, dir], stderr: "ignore" }),
    );
    closers.unshift(() => client.close());
    const { tools } = await client.listTools();
    for (const policy of [PERMISSIVE_POLICY, STRICT_POLICY]) {
      const report = scanTools(tools, policy);
      for (const name of ["write_file", "edit_file", "move_file"]) {
        const r = report.results.find((x) => x.name === name)!;
        const open = r.findings.find((f) => f.code === "SCAN003");
        expect(open?.grade, `${name} under ${policy.name}`).toBe("warn");
        expect(open?.message).toContain("MCP SDK 1.x zod conversion");
      }
      if (policy === PERMISSIVE_POLICY)
        expect(report.results.filter((r) => r.kind === "tool" && r.grade === "fail")).toEqual([]);
    }
  }, 60_000);
});

describe("the real memory server, installed today, through the airlock scan-tools CLI", () => {
  it("fails nothing under permissive; its three deletes warn SCAN003 as the SDK's own schema", async () => {
    const { runProcess } = await import("../helpers/process.js");
    const root = fileURLToPath(new URL("../..", import.meta.url));
    const run = await runProcess(
      process.execPath,
      [
        "--import",
        import.meta.resolve("tsx"),
        join(root, "src/cli/bin.ts"),
        "scan-tools",
        join(root, "test/fixtures/real-servers/memory.json"),
        "--output",
        "json",
      ],
      { cwd: root },
    );
    const report = JSON.parse(run.stdout) as {
      exitCode: number;
      toolCount: number;
      results: {
        name: string;
        kind: string;
        grade: string;
        findings: { code: string; grade: string; message: string }[];
      }[];
    };
    expect(report.toolCount).toBe(9);
    expect(run.code).toBe(report.exitCode);
    expect(report.exitCode).toBeLessThan(2);
    expect(report.results.filter((r) => r.grade === "fail")).toEqual([]);
    for (const name of ["delete_entities", "delete_observations", "delete_relations"]) {
      const open = report.results
        .find((r) => r.name === name)!
        .findings.find((f) => f.code === "SCAN003");
      expect(open?.grade, name).toBe("warn");
      expect(open?.message).toContain("MCP SDK 1.x zod conversion");
    }
  }, 60_000);
});
