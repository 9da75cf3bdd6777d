/**
 * SCAN002 plumbing: how scan-tools turns the detector's findings into SCAN002 findings.
 * The detector (src/scan/poisoning, another module) is replaced here by a scripted one so
 * these tests check only the plumbing this module owns: every detector finding becomes
 * one SCAN002 failure with its signal, pointer, span, excerpt and why; server
 * instructions are scanned with the `instructions` site; a detector that throws fails
 * closed. The real detector's own quality is tested in test/scan/poisoning/.
 */
import { describe, expect, it, vi } from "vitest";

const calls: { tool: unknown[]; clean: unknown[]; text: { text: string; site: unknown }[] } = {
  tool: [],
  clean: [],
  text: [],
};

function scripted(tool: { description?: string }) {
  calls.tool.push(tool);
  if (tool.description === "THROW") throw new Error("detector bug");
  if (!tool.description?.includes("EVIL")) return [];
  const start = tool.description.indexOf("EVIL");
  return [
    {
      signal: "instruction-override",
      pointer: "/description",
      span: { start, end: start + 4 },
      excerpt: "EVIL",
      why: "Tells the model to ignore its instructions.",
    },
  ];
}

vi.mock("../../src/scan/poisoning/index.js", () => ({
  // scanTools hands each tool to the scan variant, with one set of clean texts per call.
  CleanTexts: class {},
  detectInjectionInScan(tool: { description?: string }, clean: unknown) {
    calls.clean.push(clean);
    return scripted(tool);
  },
  detectInjectionInTool(tool: { description?: string }) {
    return scripted(tool);
  },
  detectInjection(text: string, site: unknown) {
    calls.text.push({ text, site });
    if (!text.includes("EVIL")) return [];
    return [
      {
        signal: "exfiltration",
        pointer: "/instructions",
        span: { start: 0, end: 4 },
        excerpt: "EVIL",
        why: "Asks for secrets to be sent away.",
      },
    ];
  },
}));

const { PERMISSIVE_POLICY, formatJson, scanTools } = await import("../../src/scan/index.js");
const closed = { type: "object", properties: {}, additionalProperties: false };

describe("SCAN002 plumbing", () => {
  it("maps each detector finding to a SCAN002 failure carrying signal, pointer, span, excerpt and why", () => {
    const report = scanTools(
      [{ name: "get_x", description: "ok EVIL", inputSchema: closed }],
      PERMISSIVE_POLICY,
    );
    expect(report.results[0]?.findings).toEqual([
      {
        code: "SCAN002",
        grade: "fail",
        pointer: "/description",
        signal: "instruction-override",
        span: { start: 3, end: 7 },
        excerpt: "EVIL",
        message: "Tells the model to ignore its instructions.",
      },
    ]);
    expect(report.exitCode).toBe(2);
    expect(JSON.parse(formatJson(report)).results[0].findings[0].signal).toBe(
      "instruction-override",
    );
  });

  it("passes a tool the detector finds clean, and hands it the tool as given", () => {
    const tool = { name: "get_y", description: "fine", inputSchema: closed };
    const report = scanTools([tool], PERMISSIVE_POLICY);
    expect(report.results[0]?.findings).toEqual([]);
    expect(calls.tool.at(-1)).toBe(tool);
  });

  it("shares one set of clean texts among the tools of a call, and a fresh one per call", () => {
    calls.clean.length = 0;
    const tools = ["a", "b"].map((name) => ({ name, description: "fine", inputSchema: closed }));
    scanTools(tools, PERMISSIVE_POLICY);
    scanTools(tools, PERMISSIVE_POLICY);
    expect(calls.clean).toHaveLength(4);
    expect(calls.clean[0]).toBe(calls.clean[1]);
    expect(calls.clean[2]).toBe(calls.clean[3]);
    expect(calls.clean[0]).not.toBe(calls.clean[2]);
  });

  it("scans server instructions with the instructions site", () => {
    const report = scanTools(
      {
        tools: [],
        instructions: [{ source: "init.json", server: "helper", text: "EVIL plan" }],
        problems: [],
        sources: [],
      },
      PERMISSIVE_POLICY,
    );
    expect(calls.text.at(-1)).toEqual({
      text: "EVIL plan",
      site: { kind: "instructions", pointer: "/instructions" },
    });
    expect(report.results[0]).toMatchObject({
      kind: "instructions",
      name: "helper",
      grade: "fail",
    });
    expect(report.results[0]?.findings[0]).toMatchObject({
      code: "SCAN002",
      signal: "exfiltration",
      pointer: "/instructions",
    });
  });

  it("fails closed when the detector throws", () => {
    const report = scanTools(
      [{ name: "get_z", description: "THROW", inputSchema: closed }],
      PERMISSIVE_POLICY,
    );
    expect(report.results[0]?.findings[0]).toMatchObject({
      code: "SCAN002",
      grade: "fail",
      signal: "detector-error",
    });
    expect(report.exitCode).toBe(2);
  });
});
