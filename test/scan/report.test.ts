import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Ajv } from "ajv";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ScanReport } from "../../src/scan/index.js";
import {
  formatJson,
  formatSarif,
  formatText,
  PERMISSIVE_POLICY,
  parseSuppressions,
  READ_ONLY_POLICY,
  REPORT_SCHEMA_ID,
  RULE_CODES,
  scanTools,
  toSarif,
} from "../../src/scan/index.js";

const schema = JSON.parse(readFileSync("docs/scan-report.schema.json", "utf8"));
const validate = new Ajv({ allErrors: true, strict: true }).compile(schema);
const closed = { type: "object", properties: {}, additionalProperties: false };

function mixedReport(): ScanReport {
  const tools = [
    { definition: { name: "get_ok", inputSchema: closed }, source: "tools.json", server: "s" },
    { definition: { name: "get_open" }, source: "tools.json", server: "s" },
    {
      definition: { name: "delete_all", inputSchema: { type: "object" } },
      source: "tools.json",
      server: null,
    },
    {
      definition: { name: "run_shell", inputSchema: closed, oauth: { issuer: "http://x" } },
      source: "tools.json",
      server: null,
    },
  ];
  return scanTools(
    {
      tools,
      instructions: [{ source: "init.json", server: "s", text: "Use get_ok first." }],
      problems: [
        {
          severity: "info",
          code: "NO_INLINE_TOOLS",
          source: "mcp.json",
          message: "mcp.json: 1 server(s) ...",
        },
      ],
      sources: ["tools.json", "init.json"],
    },
    READ_ONLY_POLICY,
    {
      suppressions: parseSuppressions({
        version: 1,
        suppressions: [
          { tool: "get_open", code: "SCAN004", reason: "reviewed" },
          { tool: "gone", code: "SCAN004", reason: "stale" },
          { tool: "get_ok", code: "SCAN005", reason: "old", expires: "2000-01-01" },
        ],
      }),
    },
  );
}

describe("JSON output", () => {
  it("validates against docs/scan-report.schema.json (mixed, empty, error reports)", () => {
    const reports = [
      mixedReport(),
      scanTools([], PERMISSIVE_POLICY),
      scanTools([{ no: "name" }, { name: "get_x", inputSchema: "bad" }], PERMISSIVE_POLICY),
      scanTools(
        {
          tools: [
            {
              definition: { name: "get_ok", inputSchema: closed },
              source: "bad.json",
              server: null,
            },
          ],
          instructions: [],
          sources: ["bad.json"],
          problems: [
            {
              severity: "warning",
              code: "INPUT_NOT_UTF8",
              source: "bad.json",
              message: "bad.json: not UTF-8 at byte 3",
              offset: 3,
            },
          ],
        },
        PERMISSIVE_POLICY,
      ),
      // SCAN012 groups: a finding per tool with its `collisions`, capped and counted.
      scanTools(
        ["get_x", "GET_X", "get-x", "gеt_x", "get_x", "get_x", "get_x", "get_x"].map((name) => ({
          name,
          inputSchema: closed,
        })),
        PERMISSIVE_POLICY,
      ),
    ];
    for (const report of reports) {
      const json = JSON.parse(formatJson(report));
      const ok = validate(json);
      expect(validate.errors ?? []).toEqual([]);
      expect(ok).toBe(true);
      expect(json.$schema).toBe(REPORT_SCHEMA_ID);
      expect(json.schemaVersion).toBe(1);
    }
  });

  it("the schema's $id and rule codes match the library", () => {
    expect(schema.$id).toBe(REPORT_SCHEMA_ID);
    const pattern = new RegExp(schema.definitions.code.pattern);
    for (const code of RULE_CODES) expect(pattern.test(code)).toBe(true);
    expect(pattern.test("SCAN016")).toBe(false);
  });

  it("the schema rejects a report with an unknown field or a wrong exit code", () => {
    const json = JSON.parse(formatJson(mixedReport()));
    expect(validate({ ...json, extra: 1 })).toBe(false);
    expect(validate({ ...json, exitCode: 3 })).toBe(false);
  });
});

describe("SARIF output", () => {
  it("is a SARIF 2.1.0 log with rule metadata, levels, logical and physical locations", () => {
    const report = mixedReport();
    const log = JSON.parse(
      formatSarif(report, {
        version: "9.9.9",
        sourceText: () => '{\n "tools": [\n  {"name": "delete_all"}',
      }),
    );
    expect(log.version).toBe("2.1.0");
    expect(log.$schema).toContain("sarif-2.1.0");
    const run = log.runs[0];
    expect(run.tool.driver.version).toBe("9.9.9");
    expect(run.tool.driver.rules.map((r: { id: string }) => r.id)).toEqual([...RULE_CODES]);
    for (const r of run.tool.driver.rules) {
      expect(r.shortDescription.text.length).toBeGreaterThan(0);
      expect(["error", "warning"]).toContain(r.defaultConfiguration.level);
    }
    const count = report.results.reduce((n, r) => n + r.findings.length, 0);
    expect(run.results).toHaveLength(count);
    for (const res of run.results) {
      expect(run.tool.driver.rules[res.ruleIndex].id).toBe(res.ruleId);
      expect(["error", "warning"]).toContain(res.level);
      expect(res.locations[0].logicalLocations[0].name.length).toBeGreaterThan(0);
    }
    const del = run.results.find((r: { message: { text: string } }) =>
      r.message.text.startsWith("delete_all:"),
    );
    expect(del.locations[0].physicalLocation).toEqual({
      artifactLocation: { uri: "tools.json", uriBaseId: "%SRCROOT%" },
      region: { startLine: 3 },
    });
    expect(run.originalUriBaseIds).toEqual({
      "%SRCROOT%": { uri: pathToFileURL(`${process.cwd()}/`).href },
    });
    expect(run.tool.driver.informationUri).toMatch(/^https:\/\//);
    const open = run.results.find((r: { ruleId: string }) => r.ruleId === "SCAN004");
    expect(open.locations[0].logicalLocations[0]).toEqual({
      name: "get_open",
      fullyQualifiedName: "s/get_open",
      kind: "function",
    });
    expect(open.suppressions).toEqual([
      { kind: "external", status: "accepted", justification: "reviewed" },
    ]);
    expect(run.invocations[0].toolExecutionNotifications[0].descriptor.id).toBe("NO_INLINE_TOOLS");
  });

  it("gives files under the source root relative to %SRCROOT% and others as absolute file: URIs", () => {
    const sources: Record<string, string> = {
      delete_a: "/repo/mcp servers/tools.json",
      delete_b: "/elsewhere/tools.json",
      delete_c: "../repo/x%y.json",
      delete_d: "memory",
    };
    const report = scanTools(
      {
        tools: Object.entries(sources).map(([name, source]) => ({
          definition: { name },
          source,
          server: null,
        })),
        instructions: [],
        problems: [],
        sources: Object.values(sources),
      },
      READ_ONLY_POLICY,
    );
    const log = toSarif(report, { sourceRoot: "/repo" });
    const located = new Map<string, unknown>();
    for (const r of log.runs[0].results) {
      located.set(r.locations[0].logicalLocations[0].name, r.locations[0].physicalLocation);
    }
    expect([...located.keys()].sort()).toEqual(Object.keys(sources));
    expect(located.get("delete_a")).toMatchObject({
      artifactLocation: { uri: "mcp%20servers/tools.json", uriBaseId: "%SRCROOT%" },
    });
    expect(located.get("delete_b")).toMatchObject({
      artifactLocation: { uri: "file:///elsewhere/tools.json" },
    });
    expect(located.get("delete_c")).toMatchObject({
      artifactLocation: { uri: "x%25y.json", uriBaseId: "%SRCROOT%" },
    });
    expect(located.get("delete_d")).toBeUndefined();
    expect(log.runs[0].originalUriBaseIds).toEqual({ "%SRCROOT%": { uri: "file:///repo/" } });
    // Nothing under the root: no base to declare.
    const memoryOnly = toSarif(scanTools([{ name: "delete_x" }], READ_ONLY_POLICY), {
      sourceRoot: "/repo",
    });
    expect(memoryOnly.runs[0].results.length).toBeGreaterThan(0);
    expect(memoryOnly.runs[0].originalUriBaseIds).toBeUndefined();
  });

  it("puts a toxic flow and each tool on its legs on the line of that tool's name", () => {
    // Tools with no finding of their own: their lines are found only because the flow's
    // leg tools are among the names each file is searched for.
    const text = [
      "{",
      ' "tools": [',
      '  {"name": "fetch_url"},',
      '  {"name": "read_file"},',
      '  {"name": "send_email"}',
      " ]",
      "}",
    ].join("\n");
    const tool = (name: string, properties: Record<string, unknown>) => ({
      definition: { name, inputSchema: { ...closed, properties } },
      source: "tools.json",
      server: name,
    });
    const report = scanTools(
      {
        tools: [
          tool("fetch_url", { url: { type: "string", format: "uri" } }),
          tool("read_file", {}),
          tool("send_email", {}),
        ],
        instructions: [],
        problems: [],
        sources: ["tools.json"],
      },
      PERMISSIVE_POLICY,
    );
    expect(report.results.filter((r) => r.kind === "tool" && r.findings.length > 0)).toEqual([]);
    const log = toSarif(report, { sourceRoot: process.cwd(), sourceText: () => text });
    const flow = log.runs[0].results.find((r: { ruleId: string }) => r.ruleId === "SCAN014");
    const lineOf = (name: string) => text.split("\n").findIndex((l) => l.includes(name)) + 1;
    const legs = report.results.find((r) => r.kind === "flow")!.findings[0]!.flow!.legs;
    const anchor = legs[legs.length - 1]!.tools[0]!.tool;
    expect(flow.locations[0].physicalLocation.region.startLine).toBe(lineOf(anchor));
    const related = flow.relatedLocations as {
      physicalLocation: { region: { startLine: number } };
      logicalLocations: { name: string }[];
    }[];
    expect(new Set(related.map((l) => l.logicalLocations[0]!.name))).toEqual(
      new Set(["fetch_url", "read_file", "send_email"]),
    );
    for (const l of related) {
      expect(l.physicalLocation.region.startLine).toBe(lineOf(l.logicalLocations[0]!.name));
    }
  });

  it("on any source path: a relative reference inside the root, or an absolute file: URI", () => {
    const segment = fc.stringMatching(/^[A-Za-z0-9 %#?._-]{1,8}$/);
    const path = fc.tuple(
      fc.constantFrom("", "/", "/repo/", "../", "./", "/repo/../"),
      fc.array(segment, { minLength: 1, maxLength: 4 }),
    );
    fc.assert(
      fc.property(path, ([prefix, segments]) => {
        const source = `${prefix}${segments.join("/")}`;
        // "-" (standard input) and "memory" have no file to point at.
        fc.pre(source !== "-" && source !== "memory");
        const report = scanTools(
          {
            tools: [{ definition: { name: "delete_x" }, source, server: null }],
            instructions: [],
            problems: [],
            sources: [source],
          },
          READ_ONLY_POLICY,
        );
        const location = toSarif(report, { sourceRoot: "/repo" }).runs[0].results[0].locations[0]
          .physicalLocation.artifactLocation as { uri: string; uriBaseId?: string };
        const absolute = resolve("/repo", source);
        if (location.uriBaseId === "%SRCROOT%") {
          expect(location.uri.startsWith("/")).toBe(false);
          expect(fileURLToPath(new URL(location.uri, "file:///repo/"))).toBe(absolute);
        } else {
          expect(location.uriBaseId).toBeUndefined();
          expect(fileURLToPath(location.uri)).toBe(absolute);
          expect(absolute === "/repo" || !absolute.startsWith("/repo/")).toBe(true);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it("carries unusable input as a failed invocation", () => {
    const report = scanTools([7], PERMISSIVE_POLICY);
    const log = toSarif(report);
    expect(log.runs[0].invocations[0].executionSuccessful).toBe(false);
    expect(log.runs[0].properties.exitCode).toBe(2);
  });
});

describe("text output", () => {
  it("groups findings under each tool, with notes and a summary", () => {
    const text = formatText(mixedReport(), { color: false });
    const lines = text.split("\n");
    const at = (s: string) => lines.findIndex((l) => l.includes(s));
    expect(at("FAIL  delete_all")).toBeLessThan(at("SCAN003 fail"));
    expect(at("SCAN003 fail")).toBeLessThan(at("FAIL  run_shell"));
    expect(text).toContain("note: mcp.json");
    expect(text).toContain("PASS  instructions of s");
    expect(text).toContain("(suppressed: reviewed)");
    expect(text).toContain("suppression expired on 2000-01-01");
    expect(text).toContain("unused suppression: gone SCAN004");
    expect(text.trimEnd().split("\n").at(-1)).toBe("2 failed, 0 warned, 3 passed; exit code 2");
  });

  it("is plain without colour and coloured with it", () => {
    const ansi = /\u001b\[/;
    expect(ansi.test(formatText(mixedReport(), { color: false }))).toBe(false);
    expect(ansi.test(formatText(mixedReport(), { color: true }))).toBe(true);
  });

  it("escapes control, bidi and invisible characters from the input", () => {
    const report = scanTools(
      [
        {
          name: "get_\u001b[2Jx\u202e",
          inputSchema: {
            type: "object",
            properties: { "a\u200bb": {} },
            additionalProperties: false,
          },
          capabilities: ["fs.read\u0007"],
        },
      ],
      PERMISSIVE_POLICY,
    );
    const text = formatText(report, { color: false });
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f\u200b\u202e]/);
    expect(text).toContain("get_\\u{1b}[2Jx\\u{202e}");
    expect(text).toContain("fs.read\\u{7}");
    expect(text).toContain("a\\u{200b}b");
  });

  it("--hide-passed leaves out passing targets", () => {
    const text = formatText(mixedReport(), { color: false, showPassed: false });
    expect(text).not.toContain("PASS  ");
    expect(text).toContain("FAIL  delete_all");
  });
});
