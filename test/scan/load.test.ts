import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import {
  extractToolDefs,
  loadToolDefs,
  parseToolDefs,
  ScanInputError,
  scanTools,
} from "../../src/scan/index.js";

const tool = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  description: `The ${name} tool.`,
  inputSchema: { type: "object", properties: {}, additionalProperties: false },
  ...extra,
});

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function tempDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "airlock-scan-"));
  made.push(dir);
  for (const [name, text] of Object.entries(files)) {
    const path = join(dir, name);
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, text);
  }
  return dir;
}

describe("extractToolDefs: every input form", () => {
  it("reads a single tool", () => {
    const found = extractToolDefs(tool("echo"), "t.json");
    expect(found.form).toBe("tool");
    expect(found.tools.map((t) => t.definition.name)).toEqual(["echo"]);
  });

  it("reads {tools: [...]} and a bare list", () => {
    expect(extractToolDefs({ tools: [tool("a"), tool("b")] }, "x").form).toBe("tools-object");
    const bare = extractToolDefs([tool("a"), tool("b")], "x");
    expect(bare.form).toBe("tool-list");
    expect(bare.tools).toHaveLength(2);
  });

  it("reads inlined tools of an mcpServers config with their server names", () => {
    const found = extractToolDefs(
      {
        mcpServers: {
          notes: { command: "node", tools: [tool("list_notes")] },
          wrapped: { command: "node", tools: { tools: [tool("get_note")] } },
        },
      },
      "mcp.json",
    );
    expect(found.form).toBe("mcp-servers-config");
    expect(found.tools.map((t) => [t.server, t.definition.name])).toEqual([
      ["notes", "list_notes"],
      ["wrapped", "get_note"],
    ]);
  });

  it("reads VS Code's servers config", () => {
    const found = extractToolDefs(
      { servers: { api: { type: "http", url: "http://127.0.0.1:1", tools: [tool("ping")] } } },
      ".vscode/mcp.json",
    );
    expect(found.form).toBe("vscode-servers-config");
    expect(found.tools[0]?.server).toBe("api");
  });

  it("a commands-only config yields zero tools and says so", () => {
    const found = extractToolDefs(
      { mcpServers: { fs: { command: "npx", args: ["-y", "server-filesystem"] } } },
      "claude_desktop_config.json",
    );
    expect(found.tools).toEqual([]);
    expect(found.problems).toEqual([
      expect.objectContaining({ severity: "info", code: "NO_INLINE_TOOLS" }),
    ]);
    expect(found.problems[0]?.message).toContain("never starts a server");
  });

  it("reads a JSON-RPC tools/list response and warns about a next page", () => {
    const found = extractToolDefs(
      { jsonrpc: "2.0", id: 1, result: { tools: [tool("a")], nextCursor: "p2" } },
      "list.json",
    );
    expect(found.form).toBe("jsonrpc-tools-list");
    expect(found.tools).toHaveLength(1);
    expect(found.problems.map((p) => p.code)).toEqual(["PARTIAL_LISTING"]);
  });

  it("reads an initialize result's instructions, in an envelope or bare", () => {
    const result = {
      protocolVersion: "2025-06-18",
      capabilities: {},
      serverInfo: { name: "helper", version: "1" },
      instructions: "Call list first.",
    };
    const wrapped = extractToolDefs({ jsonrpc: "2.0", id: 0, result }, "init.json");
    expect(wrapped.form).toBe("jsonrpc-initialize");
    expect(wrapped.instructions).toEqual([
      { source: "init.json", server: "helper", text: "Call list first." },
    ]);
    expect(extractToolDefs(result, "init.json").form).toBe("initialize-result");
  });

  it("reads a transcript of frames (initialize then tools/list)", () => {
    const found = extractToolDefs(
      [
        { jsonrpc: "2.0", id: 0, result: { protocolVersion: "2025-06-18", instructions: "hi" } },
        { jsonrpc: "2.0", id: 1, result: { tools: [tool("a")] } },
      ],
      "t.json",
    );
    expect(found.form).toBe("jsonrpc-transcript");
    expect(found.instructions).toHaveLength(1);
    expect(found.tools).toHaveLength(1);
  });

  it("reads a captured {server, initialize, tools} answer", () => {
    const found = extractToolDefs(
      {
        server: "everything",
        initialize: { protocolVersion: "x", instructions: "Use echo." },
        tools: [tool("echo")],
      },
      "everything.json",
    );
    expect(found.tools[0]?.server).toBe("everything");
    expect(found.instructions[0]?.text).toBe("Use echo.");
  });

  it("reads our pin file", () => {
    const pins = {
      version: 1,
      servers: {
        github: {
          tools: {
            get_issue: { digest: "ab", pinVersion: 2, definition: tool("get_issue") },
            bad: { digest: "cd", pinVersion: 2 },
          },
        },
      },
    };
    const found = extractToolDefs(pins, "airlock.pins.json");
    expect(found.form).toBe("pin-file");
    expect(found.tools.map((t) => [t.server, t.definition.name])).toEqual([
      ["github", "get_issue"],
    ]);
    expect(found.problems).toEqual([
      expect.objectContaining({ severity: "error", code: "ENTRY_INVALID" }),
    ]);
  });

  it("refuses entries without a name as input errors, keeps the rest", () => {
    const found = extractToolDefs(
      { tools: [tool("ok"), { description: "x" }, 7, { name: "" }] },
      "x",
    );
    expect(found.tools).toHaveLength(1);
    expect(found.problems.map((p) => p.code)).toEqual([
      "ENTRY_INVALID",
      "ENTRY_INVALID",
      "ENTRY_INVALID",
    ]);
    expect(scanTools({ ...found, sources: ["x"] }).exitCode).toBe(2);
  });

  it("does not take a package.json for a tool", () => {
    expect(() =>
      extractToolDefs({ name: "pkg", version: "1.0.0", private: true }, "package.json"),
    ).toThrow(ScanInputError);
  });

  it("keeps a tool named __proto__ as data", () => {
    const found = parseToolDefs('[{"name":"__proto__","inputSchema":{"type":"object"}}]', "x");
    expect(found.tools[0]?.definition.name).toBe("__proto__");
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
  });
});

describe("loadToolDefs", () => {
  it("a missing path throws SCAN_INPUT_MISSING", async () => {
    await expect(loadToolDefs("/nonexistent/airlock/tools.json")).rejects.toMatchObject({
      code: "SCAN_INPUT_MISSING",
    });
  });

  it("a named file that is not JSON throws SCAN_INPUT_INVALID naming it", async () => {
    const dir = tempDir({ "bad.json": "{ nope" });
    const err = await loadToolDefs(join(dir, "bad.json")).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ScanInputError);
    expect((err as ScanInputError).code).toBe("SCAN_INPUT_INVALID");
    expect((err as ScanInputError).message).toContain("bad.json");
  });

  it("reads a directory: known config names first, then *.json in name order", async () => {
    const dir = tempDir({
      "a.json": JSON.stringify({ tools: [tool("from_a")] }),
      "mcp.json": JSON.stringify({
        mcpServers: { s: { command: "x", tools: [tool("from_mcp")] } },
      }),
      ".mcp.json": JSON.stringify({
        mcpServers: { t: { command: "x", tools: [tool("from_dot_mcp")] } },
      }),
      "claude_desktop_config.json": JSON.stringify({
        mcpServers: { u: { command: "x", tools: [tool("from_claude")] } },
      }),
      ".vscode/mcp.json": JSON.stringify({
        servers: { v: { command: "x", tools: [tool("from_vscode")] } },
      }),
      "notes.txt": "not json",
    });
    const set = await loadToolDefs(dir);
    expect(set.tools.map((t) => t.definition.name)).toEqual([
      "from_mcp",
      "from_claude",
      "from_dot_mcp",
      "from_vscode",
      "from_a",
    ]);
  });

  it("reports each directory file to onFile, in reading order", async () => {
    const dir = tempDir({
      "b.json": JSON.stringify([tool("b")]),
      "mcp.json": JSON.stringify([tool("m")]),
    });
    const seen: string[] = [];
    await loadToolDefs(dir, {
      onFile: (file, index, total) => seen.push(`${index}/${total} ${file.slice(dir.length + 1)}`),
    });
    expect(seen).toEqual(["0/2 mcp.json", "1/2 b.json"]);
  });

  it("in a directory, an unreadable or invalid file is a warning naming it; the rest is read", async () => {
    const dir = tempDir({
      "good.json": JSON.stringify([tool("fine")]),
      "broken.json": "{",
    });
    symlinkSync(join(dir, "missing-target.json"), join(dir, "dangling.json"));
    const set = await loadToolDefs(dir);
    expect(set.tools.map((t) => t.definition.name)).toEqual(["fine"]);
    const warnings = set.problems.filter((p) => p.severity === "warning");
    expect(warnings.map((p) => p.code).sort()).toEqual(["INPUT_INVALID", "INPUT_UNREADABLE"]);
    expect(warnings.find((p) => p.code === "INPUT_INVALID")?.message).toContain("broken.json");
    expect(warnings.find((p) => p.code === "INPUT_UNREADABLE")?.source).toContain("dangling.json");
    expect(scanTools(set).exitCode).toBe(1);
  });

  it("a client config with comments and trailing commas is read as wrap-config reads it", async () => {
    const vscode = [
      "// tools of this workspace",
      "{",
      '  "servers": {',
      '    "docs": { "command": "node", /* inline */ "tools": [' +
        JSON.stringify(tool("search_docs")) +
        ",], },",
      "  },",
      "}",
    ].join("\n");
    const dir = tempDir({
      ".vscode/mcp.json": vscode,
      "mcp.json": vscode.replace('"servers"', '"mcpServers"'),
    });
    const set = await loadToolDefs(dir);
    expect(set.tools.map((t) => `${t.server}/${t.definition.name}`)).toEqual([
      "docs/search_docs",
      "docs/search_docs",
    ]);
    expect(set.problems.filter((p) => p.severity !== "info")).toEqual([]);
    const named = await loadToolDefs(join(dir, ".vscode/mcp.json"));
    expect(named.tools).toHaveLength(1);
    // The same file through wrap-config's reader: one parser for both.
    const { readClientConfig } = await import("../../src/config/client-config.js");
    expect(readClientConfig(join(dir, ".vscode/mcp.json")).servers.map((s) => s.name)).toEqual([
      "docs",
    ]);
  });

  it("comments are accepted in client configs only: a commented tool listing is invalid", async () => {
    const dir = tempDir({
      "tools.json": `// saved\n${JSON.stringify({ tools: [tool("echo")] })}`,
    });
    const err = await loadToolDefs(join(dir, "tools.json")).catch((e: unknown) => e);
    expect((err as ScanInputError).code).toBe("SCAN_INPUT_INVALID");
    const set = await loadToolDefs(dir);
    expect(set.problems.map((p) => p.code)).toEqual(["INPUT_INVALID", "NO_TOOLS"]);
  });

  it("a directory with only command configs has zero tools and warns that nothing was checked", async () => {
    const dir = tempDir({ "mcp.json": JSON.stringify({ mcpServers: { a: { command: "x" } } }) });
    const set = await loadToolDefs(dir);
    expect(set.tools).toEqual([]);
    expect(set.problems.map((p) => p.code)).toEqual(["NO_INLINE_TOOLS", "NO_TOOLS"]);
    expect(scanTools(set).exitCode).toBe(1);
  });

  it("reads - from standard input", async () => {
    const stdin = Readable.from([
      Buffer.from('{"tools":[{"name":"from_stdin","inputSchema":{}}]}'),
    ]);
    const set = await loadToolDefs("-", { stdin });
    expect(set.tools[0]).toMatchObject({ source: "-", definition: { name: "from_stdin" } });
  });

  it("never mutates what it read (frozen input scans the same)", () => {
    const value = Object.freeze({
      tools: Object.freeze([
        Object.freeze({ name: "x", inputSchema: Object.freeze({ type: "object" }) }),
      ]),
    });
    const found = extractToolDefs(value, "frozen");
    expect(() => scanTools({ ...found, sources: [] })).not.toThrow();
  });
});

describe("pin file versus client config", () => {
  it("a VS Code config with a version and wrapped inline tools is a config, not a pin file", () => {
    const found = extractToolDefs(
      {
        version: 1,
        servers: { api: { type: "stdio", command: "x", tools: { tools: [tool("ping")] } } },
      },
      "mcp.json",
    );
    expect(found.form).toBe("vscode-servers-config");
    expect(found.tools[0]?.definition.name).toBe("ping");
  });

  it("an empty pin file reads as a pin file with no tools", () => {
    const found = extractToolDefs(
      { version: 1, servers: { s: { tools: {} } } },
      "airlock.pins.json",
    );
    expect(found.form).toBe("pin-file");
    expect(found.tools).toEqual([]);
  });
});

describe("special files in a directory", () => {
  it("a FIFO named *.json is a warning naming it, never a hang", async () => {
    const dir = tempDir({ "ok.json": JSON.stringify([tool("ok")]) });
    const { execFileSync } = await import("node:child_process");
    execFileSync("mkfifo", [join(dir, "pipe.json")]);
    mkdirSync(join(dir, "folder.json"));
    const set = await loadToolDefs(dir);
    expect(set.tools.map((t) => t.definition.name)).toEqual(["ok"]);
    expect(set.problems).toEqual([
      expect.objectContaining({
        severity: "warning",
        code: "INPUT_UNREADABLE",
        source: join(dir, "pipe.json"),
      }),
    ]);
  });
});

describe("bytes that are not UTF-8 (item 15: they were read as U+FFFD without a word)", () => {
  // `[{"name":"get_t` is 15 bytes: the first bad byte (0xff) is at offset 15; 0xff, 0xfe
  // and the 0xc3 that 0x28 does not continue are three invalid sequences.
  const bad = Buffer.concat([
    Buffer.from('[{"name":"get_t'),
    Buffer.from([0xff, 0xfe]),
    Buffer.from('","description":"ok '),
    Buffer.from([0xc3, 0x28]),
    Buffer.from('","inputSchema":{"type":"object","properties":{},"additionalProperties":false}}]'),
  ]);
  const expected = {
    severity: "warning",
    code: "INPUT_NOT_UTF8",
    offset: 15,
    message: expect.stringMatching(/not UTF-8 at byte 15 \(3 invalid sequences in all\)/),
  };

  it("a named file is scanned with a warning naming the byte offset, in both read modes", async () => {
    const dir = tempDir({});
    const path = join(dir, "bad.json");
    writeFileSync(path, bad);
    for (const blocking of [false, true]) {
      const set = await loadToolDefs(path, { blocking });
      expect(set.problems).toEqual([{ ...expected, source: path }]);
      expect(set.tools.map((t) => t.definition.name)).toEqual(["get_t\ufffd\ufffd"]);
      expect(scanTools(set).exitCode).toBe(1);
    }
  });

  it("a file of a directory, and standard input, say so too", async () => {
    const dir = tempDir({ "good.json": JSON.stringify([tool("get_ok")]) });
    writeFileSync(join(dir, "bad.json"), bad);
    const set = await loadToolDefs(dir);
    expect(set.problems).toEqual([{ ...expected, source: join(dir, "bad.json") }]);
    const stdin = await loadToolDefs("-", { stdin: Readable.from([bad]) });
    expect(stdin.problems).toEqual([{ ...expected, source: "-" }]);
  });

  it("well-formed UTF-8 (any script, a BOM) gives no warning", async () => {
    const dir = tempDir({});
    const path = join(dir, "fine.json");
    writeFileSync(path, `\ufeff${JSON.stringify([tool("get_café_😀_データ")])}`);
    expect((await loadToolDefs(path)).problems).toEqual([]);
  });
});

describe("special files given by name (item 10: one bounded reader)", () => {
  it("a FIFO and /dev/zero are refused at once as SCAN_INPUT_UNREADABLE, in both read modes", async () => {
    const dir = tempDir({});
    const { execFileSync } = await import("node:child_process");
    execFileSync("mkfifo", [join(dir, "pipe.json")]);
    for (const [path, kind] of [
      [join(dir, "pipe.json"), "a FIFO"],
      ["/dev/zero", "a character device"],
    ] as const) {
      for (const blocking of [false, true]) {
        const err = await loadToolDefs(path, { blocking }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(ScanInputError);
        expect(err).toMatchObject({ code: "SCAN_INPUT_UNREADABLE", source: path });
        expect((err as Error).message).toBe(`${path}: ${kind}, not a regular file`);
      }
    }
  });
});
