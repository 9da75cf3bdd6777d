/**
 * The set analysis (SCAN014, SCAN015) on real servers: a Claude Desktop config of three
 * real servers that only together form an exfiltration path, reported with the exact
 * tools on each leg; removing any leg's tools removes the finding; suppressions, policy
 * labels and grades; the JSON report against its schema; bounded, linear work.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv } from "ajv";
import { afterAll, describe, expect, it } from "vitest";
import type { ToolDefinition } from "../../../src/index.js";
import {
  detectToxicFlows,
  formatJson,
  formatText,
  inferFlowLabels,
  type LabelledTool,
  loadToolDefs,
  PERMISSIVE_POLICY,
  parsePolicy,
  parseSuppressions,
  ScanOptionsError,
  type ScanReport,
  STRICT_POLICY,
  scanTools,
  type TargetResult,
} from "../../../src/scan/index.js";
import { corpusPath, describeCorpus } from "../../helpers/corpus.js";

const validate = new Ajv({ allErrors: true, strict: true }).compile(
  JSON.parse(readFileSync("docs/scan-report.schema.json", "utf8")),
);
const work = mkdtempSync(join(tmpdir(), "airlock-flows-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const toolsOf = (corpus: string, server: string): ToolDefinition[] =>
  JSON.parse(readFileSync(corpusPath(corpus, `${server}.json`), "utf8")).tools;

/** A Claude Desktop config with each server's captured tools inlined, written to `work`. */
function claudeConfig(servers: Record<string, ToolDefinition[]>): string {
  const file = join(work, `claude_desktop_config-${Object.keys(servers).join("+")}.json`);
  const mcpServers = Object.fromEntries(
    Object.entries(servers).map(([name, tools]) => [
      name,
      { command: "npx", args: ["-y", name], tools },
    ]),
  );
  writeFileSync(file, JSON.stringify({ mcpServers }, null, 2));
  return file;
}

const flowOf = (report: ScanReport, code: string): TargetResult | undefined =>
  report.results.find((r) => r.kind === "flow" && r.findings[0]?.code === code);
const legNames = (flow: TargetResult | undefined) =>
  Object.fromEntries(
    (flow?.findings[0]?.flow?.legs ?? []).map((leg) => [
      leg.label,
      leg.tools.map((t) => `${t.server}/${t.tool}`).sort(),
    ]),
  );

describeCorpus("three real servers that together form an exfiltration path", () => {
  const servers = () => ({
    "brave-search": toolsOf("real-servers", "brave-search"),
    filesystem: toolsOf("real-servers", "filesystem"),
    netlify: toolsOf("real-servers-wide", "netlify"),
  });

  it("names the exact tools on each leg, with their servers and evidence", async () => {
    const report = scanTools(await loadToolDefs(claudeConfig(servers())), PERMISSIVE_POLICY);
    const flow = flowOf(report, "SCAN014");
    expect(flow).toMatchObject({ kind: "flow", name: "exfiltration-path", grade: "warn" });
    expect(legNames(flow)).toEqual({
      "untrusted-content": ["brave-search/brave_local_search", "brave-search/brave_web_search"],
      "private-data": [
        "filesystem/directory_tree",
        "filesystem/get_file_info",
        "filesystem/list_allowed_directories",
        "filesystem/list_directory",
        "filesystem/list_directory_with_sizes",
        "filesystem/read_file",
        "filesystem/read_media_file",
        "filesystem/read_multiple_files",
        "filesystem/read_text_file",
        "filesystem/search_files",
      ],
      "public-sink": ["netlify/netlify-deploy-services-updater"],
    });
    const legs = flow!.findings[0]!.flow!.legs;
    expect(legs.map((l) => [l.label, l.count, l.more, l.servers])).toEqual([
      ["untrusted-content", 2, 0, [{ server: "brave-search", count: 2 }]],
      ["private-data", 10, 0, [{ server: "filesystem", count: 10 }]],
      ["public-sink", 1, 0, [{ server: "netlify", count: 1 }]],
    ]);
    for (const leg of legs) for (const t of leg.tools) expect(t.evidence).not.toBe("");
    expect(flow!.findings[0]!.message).toMatch(/^exfiltration path across 3 servers: /);
    expect(validate(JSON.parse(formatJson(report))), JSON.stringify(validate.errors)).toBe(true);
    const text = formatText(report, { color: false });
    expect(text).toContain("toxic flow: exfiltration-path");
    expect(text).toContain(
      'public-sink (1 tool): netlify/netlify-deploy-services-updater [name token "deploy"]',
    );
  });

  it("no server alone and no pair of them forms it", async () => {
    const all = servers();
    const names = Object.keys(all) as (keyof typeof all)[];
    for (const a of names)
      for (const b of names) {
        const subset = a === b ? { [a]: all[a] } : { [a]: all[a], [b]: all[b] };
        const report = scanTools(await loadToolDefs(claudeConfig(subset)), PERMISSIVE_POLICY);
        expect(flowOf(report, "SCAN014"), `${a} + ${b}`).toBeUndefined();
      }
  });

  it("removing the tools of any one leg removes the finding", async () => {
    const all = servers();
    for (const label of ["untrusted-content", "private-data", "public-sink"]) {
      const kept = Object.fromEntries(
        Object.entries(all).map(([server, tools]) => [
          server,
          tools.filter((t) => !inferFlowLabels(t, { server }).some((l) => l.label === label)),
        ]),
      );
      const report = scanTools(await loadToolDefs(claudeConfig(kept)), PERMISSIVE_POLICY);
      expect(flowOf(report, "SCAN014"), `without ${label}`).toBeUndefined();
      expect(report.toolCount).toBeLessThan(25);
    }
  });

  it("strict fails it, permissive warns, a policy file sets its own grade", async () => {
    const set = await loadToolDefs(claudeConfig(servers()));
    expect(flowOf(scanTools(set, STRICT_POLICY), "SCAN014")?.grade).toBe("fail");
    expect(scanTools(set, STRICT_POLICY).exitCode).toBe(2);
    const relaxed = parsePolicy({ extends: "strict", grades: { SCAN014: "warn" } });
    expect(flowOf(scanTools(set, relaxed), "SCAN014")?.grade).toBe("warn");
  });

  it("a policy label correction removes the finding (a deploy that is not public)", async () => {
    const set = await loadToolDefs(claudeConfig(servers()));
    const policy = parsePolicy({
      extends: "permissive",
      flows: { labels: [{ tools: "netlify/netlify-deploy-services-updater", labels: [] }] },
    });
    const report = scanTools(set, policy);
    expect(flowOf(report, "SCAN014")).toBeUndefined();
    const tool = report.results.find((r) => r.name === "netlify-deploy-services-updater");
    expect(tool?.flowLabels).toEqual([]);
  });

  it("a suppression takes one tool off a leg; a leg left empty suppresses the finding", async () => {
    const set = await loadToolDefs(claudeConfig(servers()));
    const one = (tool: string, server?: string) =>
      parseSuppressions({
        version: 1,
        suppressions: [
          {
            tool,
            code: "SCAN014",
            reason: "every deploy is approved by a person",
            ...(server ? { server } : {}),
          },
        ],
      });
    const sink = scanTools(set, PERMISSIVE_POLICY, {
      suppressions: one("netlify-deploy-services-updater"),
    });
    const suppressed = flowOf(sink, "SCAN014")!.findings[0]!;
    expect(suppressed.suppressed).toEqual({
      reason: "every public-sink tool is accepted: every deploy is approved by a person",
      expires: null,
    });
    expect(flowOf(sink, "SCAN014")!.grade).toBe("pass");
    expect(sink.suppressions.applied).toHaveLength(1);

    const partial = scanTools(set, PERMISSIVE_POLICY, { suppressions: one("read_file") });
    const finding = flowOf(partial, "SCAN014")!.findings[0]!;
    expect(finding.suppressed).toBeUndefined();
    const privateLeg = finding.flow!.legs.find((l) => l.label === "private-data")!;
    expect(privateLeg.accepted).toBe(1);
    expect(privateLeg.tools.at(-1)).toMatchObject({
      tool: "read_file",
      accepted: { expires: null },
    });

    const wrongServer = scanTools(set, PERMISSIVE_POLICY, {
      suppressions: one("netlify-deploy-services-updater", "elsewhere"),
    });
    expect(flowOf(wrongServer, "SCAN014")!.findings[0]!.suppressed).toBeUndefined();
    expect(wrongServer.suppressions.unused).toHaveLength(1);
  });
});

describeCorpus("the worked example of docs/toxic-flows.md: GitHub, fetch and Slack", () => {
  it("every server contributes to the exfiltration path, on every leg it can", async () => {
    const file = claudeConfig({
      github: toolsOf("real-servers", "github"),
      fetch: toolsOf("real-servers-wide", "fetch"),
      slack: toolsOf("real-servers-wide", "slack"),
    });
    const report = scanTools(await loadToolDefs(file), PERMISSIVE_POLICY);
    const legs = flowOf(report, "SCAN014")!.findings[0]!.flow!.legs;
    const serversOf = (label: string) =>
      legs.find((l) => l.label === label)!.servers.map((s) => `${s.server} ${s.count}`);
    expect(serversOf("untrusted-content")).toEqual(["github 9", "fetch 6", "slack 2"]);
    expect(serversOf("private-data")).toEqual(["github 14", "slack 5"]);
    expect(serversOf("public-sink")).toEqual(["github 7", "fetch 6", "slack 2"]);
    expect(flowOf(report, "SCAN015")).toBeUndefined();
  });
});

describe("bounded, linear work", () => {
  /** `copies` copies of `base` on distinct servers, each read through a counting proxy. */
  function labelled(base: LabelledTool[], copies: number, reads: { n: number }): LabelledTool[] {
    const out: LabelledTool[] = [];
    for (let c = 0; c < copies; c++)
      for (const t of base) {
        const copy = { ...t, server: `${t.server}-${c}` };
        out.push(
          new Proxy(copy, {
            get(target, key, receiver) {
              reads.n++;
              return Reflect.get(target, key, receiver);
            },
          }),
        );
      }
    return out;
  }

  it("4N tools: the same findings, capped lists, four times the reads", () => {
    const base: LabelledTool[] = [];
    const label = (tool: string, ...labels: string[]) =>
      base.push({
        tool,
        server: "s",
        source: "memory",
        labels: labels.map((l) => ({ label: l, source: "policy", evidence: "test" })) as never,
      });
    for (let i = 0; i < 100; i++) {
      label(`fetch_${i}`, "untrusted-content", "public-sink");
      label(`read_${i}`, "private-data");
      label(`delete_${i}`, "destructive");
      label(`echo_${i}`);
    }
    const small = { n: 0 };
    const large = { n: 0 };
    const a = detectToxicFlows(labelled(base, 1, small));
    const b = detectToxicFlows(labelled(base, 4, large));
    expect(a.map((f) => f.code)).toEqual(["SCAN014", "SCAN015"]);
    expect(b.map((f) => f.code)).toEqual(["SCAN014", "SCAN015"]);
    for (const flow of b)
      for (const leg of flow.legs) {
        expect(leg.tools.length).toBe(10);
        expect(leg.servers.length).toBeLessThanOrEqual(10);
      }
    expect(b[0]!.legs[1]!.count).toBe(4 * a[0]!.legs[1]!.count);
    expect(large.n).toBe(4 * small.n);
    expect(JSON.stringify(b).length).toBeLessThan(1.2 * JSON.stringify(a).length);
  });

  it("refuses tools that are not labelled tools, naming the index", () => {
    const ok = { tool: "t", server: null, source: "memory", labels: [] };
    for (const bad of [
      null,
      { ...ok, labels: "x" },
      { ...ok, labels: [{ label: "secret" }] },
      { ...ok, tool: 1 },
    ])
      expect(() => detectToxicFlows([ok, bad] as never)).toThrow(/tools\[1\]/);
    expect(() => detectToxicFlows("x" as never)).toThrow(ScanOptionsError);
  });

  it("refuses a leg cap that is not an integer from 1 to 1000", () => {
    for (const maxLegTools of [0, 1.5, 1001, Number.NaN])
      expect(() => scanTools([], PERMISSIVE_POLICY, { flows: { maxLegTools } })).toThrow(
        ScanOptionsError,
      );
    expect(
      scanTools(
        [
          { name: "fetch_url", inputSchema: { type: "object", properties: { url: {} } } },
          { name: "read_file" },
        ],
        PERMISSIVE_POLICY,
        {
          flows: { maxLegTools: 1 },
        },
      ).results.some((r) => r.kind === "flow"),
    ).toBe(true);
  });
});
