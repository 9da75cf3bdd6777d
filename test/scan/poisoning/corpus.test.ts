/**
 * Calibration targets on the shared corpora, asserted so a regression fails:
 * airlock-mcptox 13/13 poisoned with 0/10 false positives; MCP-SafetyBench malicious rows
 * ≥ 85 % (we reach 114/117) with no Function-Overlapping / Preference-Manipulation row
 * flagged; mcp-guardbench 9/9 attacks and 0/5 benign; real servers 0 false positives.
 */
import { readdirSync, readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { detectInjection, detectInjectionInTool } from "../../../src/scan/poisoning/index.js";
import { corpusPath, describeCorpus } from "../../helpers/corpus.js";

const readJson = (path: string): unknown => JSON.parse(readFileSync(path, "utf8"));

describeCorpus("SCAN002 detector on airlock-mcptox", () => {
  it("detects 13 of 13 poisoned fixtures and flags none of the 10 benign ones", () => {
    const corpus = readJson(corpusPath("airlock-mcptox", "fixtures.json")) as {
      inputSchema_for_every_fixture: unknown;
      fixtures: { name: string; description: string; label: string; technique: string }[];
    };
    const flagged = (f: { name: string; description: string }) =>
      detectInjectionInTool({
        name: f.name,
        description: f.description,
        inputSchema: corpus.inputSchema_for_every_fixture,
      }).length > 0;
    const poisoned = corpus.fixtures.filter((f) => f.label === "poisoned");
    const benign = corpus.fixtures.filter((f) => f.label === "benign");
    expect(poisoned).toHaveLength(13);
    expect(benign).toHaveLength(10);
    expect(poisoned.filter((f) => !flagged(f)).map((f) => f.name)).toEqual([]);
    expect(benign.filter(flagged).map((f) => f.name)).toEqual([]);
  });
});

describeCorpus("SCAN002 detector on MCP-SafetyBench descriptions", () => {
  const rows = readFileSync(
    corpusPath("mcp-safetybench", "derived-tool-descriptions.jsonl"),
    "utf8",
  )
    .trim()
    .split("\n")
    .map(
      (line) =>
        JSON.parse(line) as {
          attack_category: string;
          tool_name: string;
          description: string;
          label: string;
        },
    );
  const flagged = (r: { tool_name: string; description: string }) =>
    detectInjection(r.description, {
      kind: "description",
      pointer: "/description",
      toolName: r.tool_name,
    }).length > 0;

  it("catches at least 85 % of malicious rows overall (114 of 117 when calibrated)", () => {
    const malicious = rows.filter((r) => r.label === "malicious");
    expect(malicious).toHaveLength(117);
    expect(malicious.filter(flagged).length).toBeGreaterThanOrEqual(114);
  });

  it("catches every category at its calibrated level", () => {
    const floor: Record<string, number> = {
      "Tool Poisoning-Command Injection": 31,
      "Tool Poisoning-Function Dependency Injection": 21,
      "Tool Poisoning-Parameter Poisoning": 17,
      "Tool Poisoning-Tool Redirection": 11,
      "Tool Poisoning-FileSystem Poisoning": 7,
      "Tool Poisoning-Network Request Poisoning": 6,
      "Tool Shadowing": 21,
    };
    for (const [category, minimum] of Object.entries(floor)) {
      const inCategory = rows.filter(
        (r) => r.label === "malicious" && r.attack_category === category,
      );
      expect(inCategory.filter(flagged).length, category).toBeGreaterThanOrEqual(minimum);
    }
  });

  it("flags none of the duplicate-name / preference rows (their text is benign; SCAN012 owns that attack)", () => {
    const other = rows.filter((r) => r.label !== "malicious");
    expect(other).toHaveLength(45);
    expect(other.filter(flagged).map((r) => r.tool_name)).toEqual([]);
  });
});

interface Frame {
  id: string;
  message: { result: { tools?: unknown[]; instructions?: unknown } };
}

function frameFindings(frame: Frame): number {
  const result = frame.message.result;
  let count = 0;
  if (typeof result.instructions === "string") {
    count += detectInjection(result.instructions, {
      kind: "instructions",
      pointer: "/result/instructions",
    }).length;
  }
  for (const tool of result.tools ?? []) count += detectInjectionInTool(tool).length;
  return count;
}

describeCorpus("SCAN002 detector on mcp-guardbench frames", () => {
  const load = (bucket: string) =>
    readdirSync(corpusPath("mcp-guardbench", "cases", bucket))
      .filter((f) => f.endsWith(".json"))
      .map((f) => readJson(corpusPath("mcp-guardbench", "cases", bucket, f)) as Frame);

  it("flags all 9 attack frames, including initialize instructions and a schema-key side channel", () => {
    const attacks = load("attacks");
    expect(attacks).toHaveLength(9);
    expect(attacks.filter((f) => frameFindings(f) === 0).map((f) => f.id)).toEqual([]);
  });

  it("passes all 5 benign frames", () => {
    const benign = load("benign");
    expect(benign).toHaveLength(5);
    expect(benign.filter((f) => frameFindings(f) > 0).map((f) => f.id)).toEqual([]);
  });
});

describeCorpus("SCAN002 detector on real MCP servers", () => {
  it("raises no finding on any of the 66 real tools or the servers' instructions", () => {
    const files = readdirSync(corpusPath("real-servers")).filter((f) => f.endsWith(".json"));
    let tools = 0;
    const flagged: string[] = [];
    for (const file of files) {
      const server = readJson(corpusPath("real-servers", file)) as {
        initialize?: { instructions?: unknown };
        tools: unknown[] | { tools: unknown[] };
      };
      const list = Array.isArray(server.tools) ? server.tools : server.tools.tools;
      for (const tool of list) {
        tools++;
        if (detectInjectionInTool(tool).length > 0)
          flagged.push(`${file}:${(tool as { name: string }).name}`);
      }
      const instructions = server.initialize?.instructions;
      if (
        typeof instructions === "string" &&
        detectInjection(instructions, { kind: "instructions", pointer: "/instructions" }).length > 0
      ) {
        flagged.push(`${file}:instructions`);
      }
    }
    expect(tools).toBe(66);
    expect(flagged).toEqual([]);
  });
});
