import { describe, expect, it } from "vitest";
import {
  loadSuppressions,
  parseSuppressions,
  ScanSuppressionsError,
  scanTools,
} from "../../src/scan/index.js";

const openTool = { name: "get_x", inputSchema: { type: "object" } };

describe("suppressions", () => {
  it("a suppression covers one finding of one tool; the exit code ignores it", () => {
    const suppressions = parseSuppressions({
      version: 1,
      suppressions: [{ tool: "get_x", code: "SCAN004", reason: "reviewed" }],
    });
    const report = scanTools([openTool], undefined, { suppressions });
    expect(report.results[0]?.findings[0]?.suppressed).toEqual({
      reason: "reviewed",
      expires: null,
    });
    expect(report.results[0]?.grade).toBe("pass");
    expect(report.exitCode).toBe(0);
    expect(report.suppressions.applied).toHaveLength(1);
  });

  it("an expired suppression no longer applies and is reported", () => {
    const suppressions = parseSuppressions({
      version: 1,
      suppressions: [
        { tool: "get_x", code: "SCAN004", reason: "temporary", expires: "2026-01-31" },
      ],
    });
    const before = scanTools([openTool], undefined, {
      suppressions,
      now: new Date("2026-01-31T23:00:00Z"),
    });
    expect(before.exitCode).toBe(0);
    const after = scanTools([openTool], undefined, {
      suppressions,
      now: new Date("2026-02-01T00:00:01Z"),
    });
    expect(after.exitCode).toBe(1);
    expect(after.suppressions.expired).toHaveLength(1);
    expect(after.results[0]?.findings[0]?.suppressed).toBeUndefined();
  });

  it("an unused suppression is reported; a server-scoped one matches that server only", () => {
    const suppressions = parseSuppressions({
      version: 1,
      suppressions: [
        { tool: "get_x", code: "SCAN004", reason: "other server", server: "b" },
        { tool: "get_x", code: "SCAN005", reason: "no such finding" },
      ],
    });
    const report = scanTools(
      {
        tools: [{ definition: openTool, source: "x", server: "a" }],
        instructions: [],
        problems: [],
        sources: [],
      },
      undefined,
      { suppressions },
    );
    expect(report.exitCode).toBe(1);
    expect(report.suppressions.unused.map((s) => s.reason)).toEqual([
      "other server",
      "no such finding",
    ]);
  });

  it.each([
    [
      { version: 1, suppressions: [{ tool: "*", code: "SCAN004", reason: "all" }] },
      "no whole-server skips",
    ],
    [
      { version: 1, suppressions: [{ tool: "github_*", code: "SCAN004", reason: "all" }] },
      "is a pattern",
    ],
    [{ version: 1, suppressions: [{ tool: "x", code: "SCAN099", reason: "r" }] }, "rule code"],
    [
      { version: 1, suppressions: [{ tool: "x", code: "SCAN004", reason: " " }] },
      "reason must say why",
    ],
    [
      {
        version: 1,
        suppressions: [{ tool: "x", code: "SCAN004", reason: "r", expires: "2026-02-30" }],
      },
      "YYYY-MM-DD",
    ],
    [
      { version: 1, suppressions: [{ tool: "x", code: "SCAN004", reason: "r", server: "" }] },
      "server must be",
    ],
    [
      { version: 1, suppressions: [{ tool: "x", code: "SCAN004", reason: "r", scope: "all" }] },
      'unknown key "scope"',
    ],
    [{ version: 2, suppressions: [] }, "version must be 1"],
    [[], "expected"],
  ])("rejects %j", (value, message) => {
    expect(() => parseSuppressions(value, "s.json")).toThrow(message);
    expect(() => parseSuppressions(value, "s.json")).toThrow(ScanSuppressionsError);
  });

  it("loads the example file", async () => {
    const list = await loadSuppressions("examples/data/scan/suppressions.json");
    expect(list[0]).toMatchObject({ tool: "search_docs", code: "SCAN004" });
    await expect(loadSuppressions("/nonexistent.json")).rejects.toMatchObject({
      code: "SCAN_SUPPRESSIONS_INVALID",
    });
  });
});
