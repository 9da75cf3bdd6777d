/**
 * Growth, not timing: what a scan does and writes is counted at N and at 4N, and must grow
 * at most linearly (count(4N) <= 4 count(N) + a constant). Each case is a hostile shape
 * that once made a part of the scan pairwise: N tools under one name (SCAN012 reported
 * every pair), N findings against N suppressions (each finding searched the whole list),
 * N tools in one file (SARIF searched the file from its start for each result), N literal
 * names in a policy (each tool was tested against every glob).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import {
  formatJson,
  formatSarif,
  formatText,
  MAX_NAMED_COLLISIONS,
  PERMISSIVE_POLICY,
  type ScanReport,
  type SecurityPolicy,
  type Suppression,
  scanTools,
} from "../../src/scan/index.js";
import { compilePolicy } from "../../src/scan/policy-match.js";
import type { LoadedTool, ToolSet } from "../../src/scan/types.js";
import { runProcess } from "../helpers/process.js";

const closed = { type: "object", properties: {}, additionalProperties: false };

/** `measure(n)` at N and 4N: the second is at most four times the first, plus `slack`. */
function expectLinear(measure: (n: number) => number, n: number, slack = 64): void {
  const small = measure(n);
  const large = measure(4 * n);
  expect(small).toBeGreaterThan(0);
  expect(large).toBeLessThanOrEqual(4 * small + slack);
}

const findingCount = (report: ScanReport) =>
  report.results.reduce((sum, r) => sum + r.findings.length, 0);

/** N copies of one tool, in one file: the same config listing it N times. */
function copies(n: number): ToolSet {
  const tool = { name: "read_file", description: "Read a file.", inputSchema: closed };
  const tools: LoadedTool[] = Array.from({ length: n }, (_, i) => ({
    definition: i % 3 === 0 ? { ...tool, description: `Read file ${i}.` } : tool,
    source: "tools.json",
    server: i % 2 === 0 ? "a" : "b",
  }));
  return { tools, instructions: [], problems: [], sources: ["tools.json"] };
}

/** N names of one look-alike group: case variants, separators, confusable letters, copies. */
function lookAlikes(n: number): unknown[] {
  const spellings = ["read_file", "READ_FILE", "read-file", "reаd_fіle", "read_fi1e", "Read.File"];
  return Array.from({ length: n }, (_, i) => ({
    name: spellings[i % spellings.length],
    inputSchema: closed,
  }));
}

describe("SCAN012 on one name listed N times: findings and output grow linearly", () => {
  it("findings: one collision finding per tool, naming at most MAX_NAMED_COLLISIONS others", () => {
    expectLinear((n) => findingCount(scanTools(copies(n), PERMISSIVE_POLICY)), 50);
    expectLinear((n) => findingCount(scanTools(lookAlikes(n), PERMISSIVE_POLICY)), 50);
    const report = scanTools(copies(200), PERMISSIVE_POLICY);
    for (const r of report.results) {
      const collisions = r.findings.filter((f) => f.collisions !== undefined);
      expect(collisions).toHaveLength(1);
      expect(collisions[0]!.collisions!.count).toBe(199);
      expect(collisions[0]!.collisions!.tools).toHaveLength(MAX_NAMED_COLLISIONS);
      expect(collisions[0]!.message).toContain("and 194 more");
      expect(collisions[0]!.grade).toBe("fail");
    }
  });

  it("JSON, SARIF and text output", () => {
    const outputs: ((report: ScanReport) => string)[] = [
      formatJson,
      (report) => formatSarif(report),
      (report) => formatText(report, { color: false }),
    ];
    for (const format of outputs) {
      expectLinear((n) => format(scanTools(copies(n), PERMISSIVE_POLICY)).length, 50, 4096);
      expectLinear((n) => format(scanTools(lookAlikes(n), PERMISSIVE_POLICY)).length, 50, 4096);
    }
  });

  it("the identity of each copy (its JSON text) is computed once per tool, not once per pair", () => {
    let reads = 0;
    const counted = (n: number) => {
      reads = 0;
      const tools = Array.from({ length: n }, () => ({
        name: "get_x",
        inputSchema: closed,
        // JSON.stringify calls toJSON once per serialisation of the definition.
        annotations: {
          toJSON() {
            reads++;
            return { readOnlyHint: true };
          },
        },
      }));
      scanTools(tools, PERMISSIVE_POLICY);
      return reads;
    };
    expectLinear(counted, 25, 0);
  });
});

describe("suppressions: N findings against N suppressions read each suppression a bounded number of times", () => {
  it("reads of the suppressions' fields grow linearly", () => {
    let reads = 0;
    const counting = (s: Suppression): Suppression =>
      new Proxy(s, {
        get(target, key, receiver) {
          reads++;
          return Reflect.get(target, key, receiver);
        },
      });
    const measure = (n: number) => {
      // N tools with an open surface (one SCAN004 each), N suppressions: half for them.
      const tools = Array.from({ length: n }, (_, i) => ({ name: `get_${i}` }));
      const suppressions = Array.from({ length: n }, (_, i) =>
        counting({
          tool: i % 2 === 0 ? `get_${i}` : `other_${i}`,
          code: "SCAN004",
          reason: "reviewed",
          ...(i % 4 === 0 ? { server: "s" } : {}),
        }),
      );
      reads = 0;
      const report = scanTools(tools, PERMISSIVE_POLICY, {
        suppressions,
        now: new Date("2026-01-01"),
      });
      // Memory tools have no server: only the server-free suppressions apply.
      const applied = report.results.filter((r) => r.findings.some((f) => f.suppressed)).length;
      expect(applied).toBe(n / 4);
      return reads;
    };
    expectLinear(measure, 100);
  });
});

/**
 * A string that counts its reads: every character read, search and slice. Stands in for a
 * source file text (SARIF reads it only through these methods).
 */
class CountingText {
  reads = 0;
  constructor(private readonly text: string) {}
  get length(): number {
    return this.text.length;
  }
  charCodeAt(i: number): number {
    this.reads++;
    return this.text.charCodeAt(i);
  }
  indexOf(search: string, from?: number): number {
    const at = this.text.indexOf(search, from);
    // A search costs the characters it passes over.
    this.reads += (at === -1 ? this.text.length : at + search.length) - (from ?? 0);
    return at;
  }
  slice(start?: number, end?: number): string {
    const out = this.text.slice(start, end);
    this.reads += out.length;
    return out;
  }
}

describe("SARIF: N tools in one file cost one pass over the file", () => {
  it("characters read to place every result on its line grow linearly", () => {
    const measure = (n: number) => {
      // Names of one width, so the file is exactly N times one tool's text.
      const tools = Array.from({ length: n }, (_, i) => ({
        name: `get_${String(i).padStart(5, "0")}`,
      }));
      const text = new CountingText(`${JSON.stringify({ tools }, null, 2)}\n`);
      const set: ToolSet = {
        tools: tools.map((definition) => ({ definition, source: "tools.json", server: null })),
        instructions: [],
        problems: [],
        sources: ["tools.json"],
      };
      const log = JSON.parse(
        formatSarif(scanTools(set, PERMISSIVE_POLICY), {
          sourceText: () => text as unknown as string,
        }),
      );
      // Each tool's result is on its own name's line: `{ "tools": [ {` then the name.
      const lines = log.runs[0].results.map(
        (r: { locations: { physicalLocation: { region: { startLine: number } } }[] }) =>
          r.locations[0]!.physicalLocation.region.startLine,
      );
      expect(lines.slice(0, 3)).toEqual([4, 7, 10]);
      return text.reads;
    };
    expectLinear(measure, 100, 256);
  });
});

describe("policy: N literal names in an allow-list cost a lookup per tool", () => {
  it("regex tests to judge N tools against N literal globs grow linearly", () => {
    const measure = (n: number) => {
      const names = Array.from({ length: n }, (_, i) => `tool_${i}`);
      const policy: SecurityPolicy = {
        ...PERMISSIVE_POLICY,
        allow: [...names, "*_extra"],
        deny: ["tool_1", "x*"],
      };
      const compiled = compilePolicy(policy);
      const test = RegExp.prototype.test;
      let tests = 0;
      RegExp.prototype.test = function (this: RegExp, input: string) {
        tests++;
        return test.call(this, input);
      };
      try {
        for (const name of names) compiled.tool(name, null);
      } finally {
        RegExp.prototype.test = test;
      }
      expect(compiled.tool("tool_1", null).verdict).toBe("denied");
      expect(compiled.tool(`tool_${n - 1}`, null)).toEqual({
        verdict: "allowed",
        pattern: `tool_${n - 1}`,
      });
      expect(compiled.tool("nope", null).verdict).toBe("not-allowed");
      return tests + n;
    };
    expectLinear(measure, 100);
  });
});

describe("end to end: the built CLI on a listing of 1,000 copies of one tool", () => {
  const bin = fileURLToPath(new URL("../../dist/bundle/bin.js", import.meta.url));
  const work = mkdtempSync(join(tmpdir(), "airlock-growth-"));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  const tool = {
    name: "read_file",
    description: "Read a file from the workspace and return its content as text.",
    inputSchema: {
      type: "object",
      properties: { path: { type: "string", maxLength: 200, pattern: "^[a-z/]+$" } },
      required: ["path"],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true },
  };
  const listing = join(work, "copies.json");
  const text = JSON.stringify({ tools: Array.from({ length: 1_000 }, () => tool) });
  writeFileSync(listing, text);

  // Before groups were counted: 245 MB of JSON (999 findings per tool), 10 s, 1.1 GB.
  it("scan-tools: one SCAN012 finding per tool and a report a few times the input's size", async () => {
    for (const output of ["json", "sarif", "text"]) {
      const run = await runProcess(process.execPath, [
        bin,
        "scan-tools",
        listing,
        "--output",
        output,
      ]);
      expect(run.stderr).toBe("");
      expect(run.code).toBe(1); // identical copies of one server's tool only warn
      expect(run.stdout.length).toBeLessThan(12 * text.length);
      if (output !== "json") continue;
      const report = JSON.parse(run.stdout) as ScanReport;
      expect(report.toolCount).toBe(1_000);
      for (const r of report.results) {
        expect(r.findings.map((f) => f.code)).toEqual(["SCAN012"]);
        expect(r.findings[0]!.collisions?.count).toBe(999);
      }
    }
  }, 120_000);

  it("pin --yes --output json: every copy refused as a duplicate, its scan shown once", async () => {
    const run = await runProcess(process.execPath, [
      bin,
      "pin",
      "--from",
      listing,
      "--pins",
      join(work, "airlock.pins.json"),
      "--yes",
      "--output",
      "json",
    ]);
    expect(run.code).toBe(1);
    expect(run.stdout.length).toBeLessThan(12 * text.length);
    const out = JSON.parse(run.stdout) as {
      servers: { tools: { outcome: string; scan: { findings: unknown[] } }[] }[];
    };
    const tools = out.servers[0]!.tools;
    expect(tools).toHaveLength(1_000);
    expect(tools.every((t) => t.outcome === "duplicate" && t.scan.findings.length === 1)).toBe(
      true,
    );
  }, 120_000);
});
