import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  formatJson,
  formatSarif,
  formatText,
  PERMISSIVE_POLICY,
  POLICIES,
  parseToolDefs,
  scanTools,
} from "../../src/scan/index.js";

const DEPTH = 100_000;

/** JSON text of a tool whose inputSchema nests `DEPTH` levels through `wrap`. */
function deepToolText(open: string, close: string, extra = ""): string {
  return `{"name":"get_deep"${extra},"inputSchema":{"type":"object","additionalProperties":false,"properties":{"p":${open.repeat(DEPTH)}{"type":"string"}${close.repeat(DEPTH)}}}}`;
}

describe("hostile input: 100,000-level nesting", () => {
  it.each([
    ["properties", '{"type":"object","properties":{"n":', "}}"],
    ["items", '{"type":"array","items":', "}"],
    ["anyOf", '{"anyOf":[', "]}"],
    ["not", '{"not":', "}"],
  ])(
    "through %s: a clean SCAN013 failure, exit code 2, every output renders",
    (_kind, open, close) => {
      const set = parseToolDefs(deepToolText(open, close), "deep.json");
      const report = scanTools(set, PERMISSIVE_POLICY);
      const codes = report.results[0]?.findings.map((f) => f.code) ?? [];
      expect(codes).toContain("SCAN013");
      expect(report.exitCode).toBe(2);
      expect(JSON.parse(formatJson(report)).exitCode).toBe(2);
      expect(JSON.parse(formatSarif(report)).runs[0].results.length).toBeGreaterThan(0);
      expect(formatText(report, { color: false })).toContain("exit code 2");
    },
  );

  it("deep outputSchema and deep data (default/enum) never overflow", () => {
    const deepData = `${"[".repeat(DEPTH)}${"]".repeat(DEPTH)}`;
    const text = `[{"name":"get_a","inputSchema":{"type":"object","additionalProperties":false,"properties":{"x":{"type":"array","default":${deepData}}}},"outputSchema":${'{"type":"object","properties":{"n":'.repeat(DEPTH)}{}${"}}".repeat(DEPTH)}}]`;
    const report = scanTools(parseToolDefs(text, "deep.json"), PERMISSIVE_POLICY);
    expect(report.results[0]?.findings.map((f) => f.code)).toContain("SCAN013");
    expect(report.exitCode).toBe(2);
  });

  it("two deep tools with the same name compare without overflowing", () => {
    const one = deepToolText('{"type":"array","items":', "}");
    const report = scanTools(parseToolDefs(`[${one},${one}]`, "dup.json"), PERMISSIVE_POLICY);
    expect(report.results.every((r) => r.findings.some((f) => f.code === "SCAN012"))).toBe(true);
  });

  it("a 100,000-property schema hits the size bound instead of running on", () => {
    const props = Array.from({ length: 100_000 }, (_, i) => `"p${i}":{"type":"integer"}`).join(",");
    const report = scanTools(
      parseToolDefs(
        `{"name":"get_wide","inputSchema":{"type":"object","additionalProperties":false,"properties":{${props}}}}`,
        "w",
      ),
      PERMISSIVE_POLICY,
    );
    expect(report.results[0]?.findings.map((f) => f.message).join(" ")).toContain("nodes");
    expect(report.exitCode).toBe(2);
  });

  it("a cyclic in-memory schema is walked once, without hanging", () => {
    const node: Record<string, unknown> = { type: "object", additionalProperties: false };
    node.properties = { self: node };
    const report = scanTools([{ name: "get_cycle", inputSchema: node }], PERMISSIVE_POLICY);
    expect(report.results).toHaveLength(1);
  });

  it("NaN, lone surrogates, __proto__ keys and throwing toJSON are data, not crashes", () => {
    const weird = [
      {
        name: "get_nan",
        inputSchema: {
          type: "object",
          additionalProperties: false,
          properties: { n: { type: "number", maximum: Number.NaN } },
        },
      },
      {
        name: "get_\ud800",
        inputSchema: JSON.parse(
          '{"type":"object","additionalProperties":false,"properties":{"__proto__":{"type":"string"}}}',
        ),
      },
      {
        toJSON() {
          throw new Error("boom");
        },
      },
    ];
    const report = scanTools(weird, PERMISSIVE_POLICY);
    expect(report.results.map((r) => r.name)).toEqual(["get_nan", "get_\ud800"]);
    expect(report.problems.map((p) => p.code)).toEqual(["ENTRY_INVALID"]);
    expect(report.exitCode).toBe(2);
    expect(() => JSON.parse(formatJson(report))).not.toThrow();
  });
});

describe("property: scanTools on arbitrary input", () => {
  const toolArb = fc.record(
    {
      name: fc.oneof(fc.string(), fc.constantFrom("read_file", "delete_x", "__proto__")),
      description: fc.string(),
      inputSchema: fc.oneof(fc.jsonValue(), fc.constant({ type: "object" })),
      outputSchema: fc.jsonValue(),
      annotations: fc.oneof(
        fc.jsonValue(),
        fc.record(
          {
            readOnlyHint: fc.boolean(),
            destructiveHint: fc.boolean(),
            openWorldHint: fc.boolean(),
          },
          { requiredKeys: [] },
        ),
      ),
    },
    { requiredKeys: [] },
  );

  it("never throws, never mutates, and the exit code is the worst grade", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(toolArb, fc.jsonValue()), { maxLength: 6 }),
        fc.constantFrom(...Object.values(POLICIES)),
        (tools, policy) => {
          const before = JSON.stringify(tools);
          const report = scanTools(tools, policy);
          expect(JSON.stringify(tools)).toBe(before);
          const rank = { pass: 0, warn: 1, fail: 2 } as const;
          let worst = 0;
          for (const r of report.results) worst = Math.max(worst, rank[r.grade]);
          for (const p of report.problems)
            worst = Math.max(worst, p.severity === "error" ? 2 : p.severity === "warning" ? 1 : 0);
          expect(report.exitCode).toBe(worst);
          expect(report.failed + report.warned + report.passed).toBe(report.results.length);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe("scanTools input shapes", () => {
  it("accepts a listing object ({ tools }) such as an SDK ListToolsResult", () => {
    const report = scanTools(
      { tools: [{ name: "get_x", inputSchema: { type: "object" } }] },
      PERMISSIVE_POLICY,
    );
    expect(report.results.map((r) => r.name)).toEqual(["get_x"]);
  });

  it("turns a malformed tool set or a non-listing into input errors, not exceptions", () => {
    const bad = scanTools(
      {
        tools: [{ definition: null }, { definition: { name: "ok" }, source: "x", server: null }],
        instructions: [],
        problems: [],
        sources: [],
      } as never,
      PERMISSIVE_POLICY,
    );
    expect(bad.results.map((r) => r.name)).toEqual(["ok"]);
    expect(bad.exitCode).toBe(2);
    expect(scanTools(42 as never).problems[0]?.code).toBe("INPUT_INVALID");
    expect(scanTools(null as never).exitCode).toBe(2);
  });
});
