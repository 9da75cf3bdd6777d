import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Finding, ScanReport } from "../../src/scan/index.js";
import {
  issuerProblem,
  MAX_SCHEMA_DEPTH,
  nameSkeleton,
  PERMISSIVE_POLICY,
  RULES,
  STRICT_POLICY,
  scanTools,
} from "../../src/scan/index.js";

const closed = (properties: Record<string, unknown> = {}) => ({
  type: "object",
  properties,
  additionalProperties: false,
});
const scanOne = (tool: Record<string, unknown>): Finding[] =>
  scanTools([tool], PERMISSIVE_POLICY).results[0]?.findings ?? [];
const codesOf = (findings: Finding[]) => findings.map((f) => f.code);
const byTool = (report: ScanReport) =>
  Object.fromEntries(report.results.map((r) => [r.name, codesOf(r.findings)]));

describe("SCAN003 / SCAN004: open argument surface", () => {
  it("fails a mutating tool whose inputSchema is open; permissive only warns", () => {
    const tool = {
      name: "delete_user",
      inputSchema: { type: "object", properties: { id: { type: "string" } } },
    };
    const strict = scanTools([tool], STRICT_POLICY).results[0]!.findings;
    expect(strict.find((x) => x.code === "SCAN003")).toMatchObject({
      grade: "fail",
      pointer: "/inputSchema",
    });
    const f = scanOne(tool);
    expect(codesOf(f)).toEqual(["SCAN003"]);
    expect(f[0]).toMatchObject({ grade: "warn", pointer: "/inputSchema" });
    expect(RULES.SCAN003.grade).toBe("fail");
  });
  it("an open schema the MCP SDK wrote (1.x draft-07, 2.x 2020-12) is a warning under every policy", () => {
    const sdk1 = {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: { id: { type: "string" } },
    };
    const sdk2 = {
      type: "object",
      $schema: "https://json-schema.org/draft/2020-12/schema",
      properties: { id: { type: "string" } },
    };
    for (const inputSchema of [sdk1, sdk2]) {
      const f = scanTools([{ name: "delete_user", inputSchema }], STRICT_POLICY).results[0]!
        .findings;
      const open = f.find((x) => x.code === "SCAN003");
      expect(open?.grade).toBe("warn");
      expect(open?.message).toMatch(/MCP SDK [12]\.x zod conversion/);
    }
    // Not the SDK's shape: another draft, a loose object, a hand-written schema.
    for (const inputSchema of [
      { type: "object", properties: {}, $schema: "http://json-schema.org/draft-04/schema#" },
      { ...sdk1, additionalProperties: {} },
      { type: "object", properties: { id: { type: "string" } } },
    ]) {
      const f = scanTools([{ name: "delete_user", inputSchema }], STRICT_POLICY).results[0]!
        .findings;
      expect(f.find((x) => x.code === "SCAN003")?.grade).toBe("fail");
    }
  });
  it("warns a read tool whose inputSchema is open, and a tool with no inputSchema", () => {
    expect(codesOf(scanOne({ name: "get_user", inputSchema: { type: "object" } }))).toEqual([
      "SCAN004",
    ]);
    expect(codesOf(scanOne({ name: "get_user" }))).toEqual(["SCAN004"]);
  });
  it("additive-only annotated writes warn instead of failing", () => {
    const t = {
      name: "add_note",
      inputSchema: { type: "object" },
      annotations: { readOnlyHint: false, destructiveHint: false },
    };
    expect(codesOf(scanOne(t))).toEqual(["SCAN004"]);
  });
  it("passes closed schemas (additionalProperties or unevaluatedProperties false)", () => {
    expect(scanOne({ name: "delete_user", inputSchema: closed() })).toEqual([]);
    expect(
      scanOne({
        name: "delete_user",
        inputSchema: { type: "object", unevaluatedProperties: false },
      }),
    ).toEqual([]);
  });
});

describe("SCAN005: untyped or unconstrained sensitive arguments", () => {
  it("warns a property with no type constraint", () => {
    const f = scanOne({
      name: "get_x",
      inputSchema: closed({ anything: {}, described: { description: "x" } }),
    });
    expect(f.map((x) => [x.code, x.pointer])).toEqual([
      ["SCAN005", "/inputSchema/properties/anything"],
      ["SCAN005", "/inputSchema/properties/described"],
    ]);
  });
  it("warns a sensitive string (path, url, command) without enum/pattern/format/maxLength, by word token", () => {
    const f = scanOne({
      name: "get_x",
      inputSchema: closed({
        filePath: { type: "string" },
        target_url: { type: "string" },
        paths: { type: "array", items: { type: "string" } },
        profile: { type: "string" },
        urlSafe: { type: "boolean" },
      }),
    });
    expect(f.map((x) => x.pointer)).toEqual([
      "/inputSchema/properties/filePath",
      "/inputSchema/properties/target_url",
      "/inputSchema/properties/paths/items",
    ]);
  });
  it("passes constrained sensitive strings and nested typed properties", () => {
    const f = scanOne({
      name: "get_x",
      inputSchema: closed({
        path: { type: "string", pattern: "^[a-z]+$" },
        url: { type: "string", format: "uri" },
        command: { type: "string", enum: ["status", "log"] },
        file: { type: "string", maxLength: 64 },
        nested: {
          type: "object",
          properties: { n: { type: "integer" } },
          additionalProperties: false,
        },
      }),
    });
    expect(f).toEqual([]);
  });
});

describe("SCAN008: OAuth issuer", () => {
  it.each([
    ["https://auth.example.com", null],
    ["https://auth.example.com/tenant", null],
    ["http://auth.example.com", "not https"],
    ["https://auth.example.com?x=1", "has a query"],
    ["https://auth.example.com#f", "has a fragment"],
    ["https://user:pw@auth.example.com", "credentials in the URL"],
    ["auth.example.com", "not a URL"],
    [42, "not a non-empty string"],
  ])("issuerProblem(%j) → %j", (issuer, problem) => {
    expect(issuerProblem(issuer)).toBe(problem);
  });
  it("warns on a malformed issuer wherever a tool declares one", () => {
    const f = scanOne({
      name: "get_x",
      inputSchema: closed(),
      oauth: { issuer: "http://idp.example.com" },
      _meta: { "example/auth": { issuer: "https://ok.example.com" } },
      securitySchemes: [{ type: "oauth2", issuer: "https://idp.example.com?tenant=1" }],
    });
    expect(f.map((x) => [x.code, x.grade, x.pointer])).toEqual([
      ["SCAN008", "warn", "/oauth/issuer"],
      ["SCAN008", "warn", "/securitySchemes/0/issuer"],
    ]);
  });
});

describe("SCAN009: external $ref", () => {
  it("fails a $ref that leaves the document, in input and output schemas", () => {
    const f = scanOne({
      name: "get_x",
      inputSchema: closed({ a: { $ref: "https://schemas.example.com/a.json" } }),
      outputSchema: { type: "object", properties: { b: { $ref: "b.json#/defs/b" } } },
    });
    expect(f.map((x) => [x.code, x.pointer])).toEqual([
      ["SCAN009", "/inputSchema/properties/a/$ref"],
      ["SCAN009", "/outputSchema/properties/b/$ref"],
    ]);
  });
  it("passes local refs, and ignores $ref-looking data in enum/default", () => {
    const f = scanOne({
      name: "get_x",
      inputSchema: closed({
        a: { type: "string", maxLength: 3 },
        b: { $ref: "#/properties/a" },
        c: { type: "object", additionalProperties: false, default: { $ref: "https://x" } },
      }),
    });
    expect(f).toEqual([]);
  });
});

describe("SCAN010: ambiguous composition", () => {
  it("warns a catch-all or open object branch", () => {
    const f = scanOne({
      name: "get_x",
      inputSchema: {
        type: "object",
        additionalProperties: false,
        properties: { q: { anyOf: [{ type: "string", maxLength: 3 }, {}] } },
        oneOf: [
          { type: "object", properties: { a: { type: "string" } } },
          { type: "object", properties: {}, additionalProperties: false },
        ],
      },
    });
    expect(f.map((x) => [x.code, x.pointer])).toEqual([
      ["SCAN010", "/inputSchema/oneOf"],
      ["SCAN010", "/inputSchema/properties/q/anyOf"],
    ]);
    expect(f[0]?.message).toContain("object branch 0 is open");
    expect(f[1]?.message).toContain("branch 1 accepts anything");
  });
  it("passes closed branches and unevaluatedProperties: false at the composing level", () => {
    expect(
      scanOne({
        name: "get_x",
        inputSchema: {
          type: "object",
          unevaluatedProperties: false,
          allOf: [
            { type: "object", properties: { a: { type: "integer" } } },
            { properties: { b: { type: "integer" } } },
          ],
        },
      }),
    ).toEqual([]);
    expect(
      scanOne({
        name: "get_x",
        inputSchema: closed({
          v: { oneOf: [{ type: "string", maxLength: 2 }, { type: "integer" }] },
        }),
      }),
    ).toEqual([]);
  });
});

describe("SCAN011: annotations contradicting the evidence", () => {
  it("fails readOnlyHint on a deleting tool or one taking a command", () => {
    expect(
      codesOf(
        scanOne({
          name: "delete_user",
          inputSchema: closed(),
          annotations: { readOnlyHint: true },
        }),
      ),
    ).toEqual(["SCAN011"]);
    const f = scanOne({
      name: "helper",
      inputSchema: closed({ command: { type: "string", enum: ["ls"] } }),
      annotations: { readOnlyHint: true },
    });
    expect(f.map((x) => [x.code, x.pointer])).toEqual([["SCAN011", "/annotations/readOnlyHint"]]);
    expect(f[0]?.message).toContain('argument "command"');
  });
  it("fails destructiveHint: false on a deleting tool and openWorldHint: false on a fetcher", () => {
    const f = scanOne({
      name: "purge_cache",
      inputSchema: closed(),
      annotations: { readOnlyHint: false, destructiveHint: false },
    });
    expect(f.map((x) => x.pointer)).toEqual(["/annotations/destructiveHint"]);
    const g = scanOne({
      name: "fetch_url",
      inputSchema: closed(),
      annotations: { openWorldHint: false, readOnlyHint: true },
    });
    expect(g.map((x) => x.pointer)).toEqual(["/annotations/openWorldHint"]);
  });
  it("passes honest annotations and tools without annotations", () => {
    expect(
      scanOne({
        name: "delete_user",
        inputSchema: closed(),
        annotations: { destructiveHint: true },
      }),
    ).toEqual([]);
    expect(
      scanOne({ name: "get_user", inputSchema: closed(), annotations: { readOnlyHint: true } }),
    ).toEqual([]);
    expect(scanOne({ name: "delete_user", inputSchema: closed() })).toEqual([]);
  });
});

describe("SCAN012: duplicate and look-alike names", () => {
  it("the skeleton folds case, separators, NFKC forms, confusables and invisible characters", () => {
    const base = nameSkeleton("read_file");
    for (const alike of [
      "READ_FILE",
      "read-file",
      "reаd_fіle",
      "ｒｅａｄ_ｆｉｌｅ",
      "read\u200b_file",
      "read_fi1e",
      "réad_file",
    ]) {
      expect(nameSkeleton(alike)).toBe(base);
    }
    expect(nameSkeleton("read_files")).not.toBe(base);
    expect(nameSkeleton("rn")).toBe(nameSkeleton("m"));
  });
  it("an invisible character never changes the skeleton (ASCII fast path = general path)", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), fc.nat(30), (name, at) => {
        const i = Math.min(at, name.length);
        expect(nameSkeleton(`${name.slice(0, i)}\u200b${name.slice(i)}`)).toBe(nameSkeleton(name));
      }),
    );
  });

  it("fails every tool of a look-alike, case-only or duplicate-name group", () => {
    const report = scanTools(
      [
        { name: "send_email", inputSchema: closed() },
        { name: "send_emaіl", inputSchema: closed() },
        { name: "Get_Issue", inputSchema: closed() },
        { name: "get_issue", inputSchema: closed() },
        { name: "list_x", inputSchema: closed() },
        { name: "list_x", inputSchema: closed({ extra: { type: "integer" } }) },
        { name: "unique", inputSchema: closed() },
      ],
      PERMISSIVE_POLICY,
    );
    // The tools' results (get_issue and send_email also make a toxic flow, after them).
    const findings = report.results.filter((r) => r.kind === "tool").map((r) => r.findings);
    expect(findings.map((f) => codesOf(f))).toEqual([
      ["SCAN012"],
      ["SCAN012", "SCAN012"], // the look-alike, and its own mixed scripts
      ["SCAN012"],
      ["SCAN012"],
      ["SCAN012"],
      ["SCAN012"],
      [],
    ]);
    expect(findings[1]?.[0]?.message).toContain("U+0456");
    expect(findings[2]?.[0]?.message).toContain("differs only in case");
    const collisions = findings.flat().filter((x) => !x.message.includes("mixes"));
    expect(collisions.every((x) => x.grade === "fail")).toBe(true);
  });
  it("the same definition listed twice for the same server only warns", () => {
    const t = { name: "get_x", inputSchema: closed() };
    const tools = [
      { definition: t, source: "mcp.json", server: "s" },
      { definition: { ...t }, source: ".mcp.json", server: "s" },
    ];
    const report = scanTools({ tools, instructions: [], problems: [], sources: [] });
    expect(report.results.map((r) => r.findings.map((f) => f.grade))).toEqual([["warn"], ["warn"]]);
    expect(report.exitCode).toBe(1);
  });
});

describe("SCAN013: schemas that cannot be analysed", () => {
  it("fails an inputSchema that is not a schema object", () => {
    expect(scanOne({ name: "get_x", inputSchema: "object" }).map((f) => f.code)).toEqual([
      "SCAN013",
    ]);
    expect(scanOne({ name: "get_x", inputSchema: [] }).map((f) => f.code)).toEqual(["SCAN013"]);
  });
  it("fails a schema deeper than the bound, at the first node past it", () => {
    // `items` nesting: one JSON level per schema level.
    let schema: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < MAX_SCHEMA_DEPTH + 5; i++) schema = { type: "array", items: schema };
    const f = scanOne({ name: "get_x", inputSchema: closed({ list: schema }) });
    expect(codesOf(f)).toEqual(["SCAN013"]);
    expect(f[0]?.pointer?.split("/items").length).toBe(MAX_SCHEMA_DEPTH + 1);
  });
  it("passes a schema just inside the bound", () => {
    let schema: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < MAX_SCHEMA_DEPTH - 2; i++) schema = { type: "array", items: schema };
    expect(scanOne({ name: "get_x", inputSchema: closed({ list: schema }) })).toEqual([]);
  });
});

describe("rule catalog", () => {
  it("has the DESIGN grades for SCAN001-SCAN008", () => {
    expect(Object.values(RULES).map((r) => [r.code, r.grade])).toEqual([
      ["SCAN001", "fail"],
      ["SCAN002", "fail"],
      ["SCAN003", "fail"],
      ["SCAN004", "warn"],
      ["SCAN005", "warn"],
      ["SCAN006", "fail"],
      ["SCAN007", "warn"],
      ["SCAN008", "warn"],
      ["SCAN009", "fail"],
      ["SCAN010", "warn"],
      ["SCAN011", "fail"],
      ["SCAN012", "fail"],
      ["SCAN013", "fail"],
      ["SCAN014", "fail"],
      ["SCAN015", "fail"],
    ]);
  });
  it("exit code is the worst grade", () => {
    const pass = { name: "get_a", inputSchema: closed() };
    const warn = { name: "get_b" };
    const fail = { name: "get_c", inputSchema: closed({ x: { $ref: "https://x.example/s" } }) };
    expect(scanTools([pass]).exitCode).toBe(0);
    expect(scanTools([pass, warn]).exitCode).toBe(1);
    expect(scanTools([pass, warn, fail]).exitCode).toBe(2);
    expect(byTool(scanTools([pass, warn, fail]))).toEqual({
      get_a: [],
      get_b: ["SCAN004"],
      get_c: ["SCAN009"],
    });
  });
});

describe("SCAN012: a name that camouflages itself", () => {
  it("fails invisible characters, warns mixed scripts, passes plain and single-script names", () => {
    const report = scanTools(
      [
        { name: "read\u200dfile", inputSchema: closed() },
        { name: "get_\u202eelif", inputSchema: closed() },
        { name: "sеnd_mail", inputSchema: closed() },
        { name: "получить_данные", inputSchema: closed() },
        { name: "get_data", inputSchema: closed() },
      ],
      PERMISSIVE_POLICY,
    );
    expect(report.results.map((r) => r.findings.map((f) => [f.code, f.grade]))).toEqual([
      [["SCAN012", "fail"]],
      [["SCAN012", "fail"]],
      [["SCAN012", "warn"]],
      [],
      [],
    ]);
    expect(report.results[0]?.findings[0]?.message).toContain("U+200D");
  });
});
