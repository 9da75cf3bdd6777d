/**
 * Capability inference on real definitions: the Playwright server kept in
 * test/fixtures/real-servers (issue 13, item 6) and the servers of ../shared/corpus
 * (the SCAN011 calibration, code arguments that are not code).
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  inferCapabilities,
  loadToolDefs,
  READ_ONLY_POLICY,
  resolvePolicy,
  scanTools,
  type ToolSet,
} from "../../src/scan/index.js";
import { corpusPath, describeCorpus } from "../helpers/corpus.js";

const PLAYWRIGHT = join("test", "fixtures", "real-servers", "playwright.json");
const capsOf = (set: ToolSet, name: string) => {
  const tool = set.tools.find((t) => t.definition.name === name);
  if (tool === undefined) throw new Error(`no tool ${name}`);
  return inferCapabilities(tool.definition).capabilities.map((c) => c.capability);
};

describe("the real Playwright server (@playwright/mcp 0.0.83)", () => {
  it("every tool annotated destructiveHint: true keeps a write capability, and read-only fails it", async () => {
    const set = await loadToolDefs(PLAYWRIGHT);
    const destructive = set.tools.filter(
      (t) => (t.definition.annotations as { destructiveHint?: unknown })?.destructiveHint === true,
    );
    expect(destructive.length).toBe(18);
    const report = scanTools(set, READ_ONLY_POLICY);
    for (const t of destructive) {
      const r = report.results.find((x) => x.name === t.definition.name)!;
      expect(r.grade, t.definition.name).toBe("fail");
      const denied = r.findings.filter((f) => f.code === "SCAN006").map((f) => f.capability);
      expect(denied.length, t.definition.name).toBeGreaterThan(0);
    }
    // The tools that only read the page still pass read-only's grants (net.outbound warns).
    for (const name of ["browser_snapshot", "browser_take_screenshot", "browser_console_messages"])
      expect(report.results.find((x) => x.name === name)?.grade).toBe("warn");
  });

  it("browser_run_code_unsafe and browser_evaluate are execution, not only net.outbound", async () => {
    const set = await loadToolDefs(PLAYWRIGHT);
    expect(capsOf(set, "browser_run_code_unsafe")).toContain("exec.command");
    expect(capsOf(set, "browser_evaluate")).toContain("exec.command");
    const unsafe = set.tools.find((t) => t.definition.name === "browser_run_code_unsafe")!;
    const exec = inferCapabilities(unsafe.definition).capabilities.find(
      (c) => c.capability === "exec.command",
    );
    expect(exec?.evidence).toMatch(/argument "code"|name token "run"/);
  });
});

describe("code arguments need a text that says code", () => {
  const tool = (argument: string, description: string, toolDescription = "") => ({
    name: "do_it",
    description: toolDescription,
    inputSchema: { type: "object", properties: { [argument]: { type: "string", description } } },
  });
  it("execution when the argument's or the tool's description says so", () => {
    const caps = (t: object) => inferCapabilities(t as never).capabilities.map((c) => c.capability);
    expect(caps(tool("code", "JavaScript to run in the page"))).toContain("exec.command");
    expect(caps(tool("function", "() => { ... }", "Evaluate a function"))).toContain(
      "exec.command",
    );
    expect(caps(tool("expression", "", "Runs arbitrary Python"))).toContain("exec.command");
    expect(caps(tool("code", "The item code"))).not.toContain("exec.command");
    expect(caps(tool("function", "Function name (e.g. 'arn_parse')"))).not.toContain(
      "exec.command",
    );
  });
  it("a run verb next to a code noun is execution whatever else the name names", () => {
    const caps = (name: string) =>
      inferCapabilities({ name }).capabilities.map((c) => c.capability);
    expect(caps("browser_run_code")).toContain("exec.command");
    expect(caps("run_javascript")).toContain("exec.command");
    expect(caps("get_code_references")).not.toContain("exec.command");
    expect(caps("generateReactCode")).not.toContain("exec.command");
  });
});

describe("the first verb is the action", () => {
  const access = (name: string) => inferCapabilities({ name }).access;
  it("a later verb is the object, unless a conjunction brings a second action", () => {
    expect(access("get_merge_request")).toBe("read");
    expect(access("list_commit_statuses")).toBe("read");
    expect(access("linear_getProjectUpdateById")).toBe("read");
    expect(access("get-broadcast")).toBe("read");
    expect(access("get_pipeline_run")).toBe("read");
    expect(access("search_and_replace")).toBe("write");
    expect(access("create_or_update_file")).toBe("write");
    expect(access("find_and_delete")).toBe("delete");
    expect(access("batch_delete")).toBe("delete");
    // A noun-verb second after a prefix that is no verb, when no plain verb follows.
    expect(access("slack_post_message")).toBe("write");
    expect(access("issue_comment_list")).toBe("read");
  });
  it("weak cues decide access but do not contradict an annotation (SCAN011)", () => {
    const codes = (tool: Record<string, unknown>) =>
      scanTools([
        { inputSchema: { type: "object", additionalProperties: false }, ...tool },
      ]).results[0]!.findings.map((f) => f.code);
    // A run verb: an audit that only reads is honest with readOnlyHint: true.
    expect(codes({ name: "run_audit", annotations: { readOnlyHint: true } })).toEqual([]);
    // A detach verb: removing a label is no destruction.
    expect(
      codes({
        name: "removeGmailLabel",
        annotations: { readOnlyHint: false, destructiveHint: false },
      }),
    ).toEqual([]);
    // A noun-verb in the last place: a weather archive is read.
    expect(codes({ name: "weather_archive", annotations: { readOnlyHint: true } })).toEqual([]);
    // Firm evidence still contradicts.
    expect(codes({ name: "delete_user", annotations: { readOnlyHint: true } })).toEqual([
      "SCAN011",
    ]);
    expect(
      codes({ name: "purge_cache", annotations: { readOnlyHint: false, destructiveHint: false } }),
    ).toEqual(["SCAN011"]);
    expect(codes({ name: "remove_file", annotations: { readOnlyHint: true } })).toEqual([
      "SCAN011",
    ]);
  });
  it("a lone run verb under readOnlyHint runs nothing, unless annotations may not narrow", () => {
    const tool = { name: "runAccessibilityAudit", annotations: { readOnlyHint: true } };
    expect(inferCapabilities(tool).capabilities.map((c) => c.capability)).toEqual(["state.read"]);
    expect(
      inferCapabilities(tool, { annotationsMayNarrow: false }).capabilities.map(
        (c) => c.capability,
      ),
    ).toEqual(["exec.command"]);
  });
  it("only a word that goes out contradicts openWorldHint: false", () => {
    const closedWorld = { openWorldHint: false, readOnlyHint: true };
    const codes = (name: string, properties: Record<string, unknown> = {}) =>
      scanTools([
        {
          name,
          annotations: closedWorld,
          inputSchema: { type: "object", properties, additionalProperties: false },
        },
      ]).results[0]!.findings.map((f) => f.code);
    expect(codes("get_project_url")).toEqual([]);
    expect(codes("listBrowserTabs")).toEqual([]);
    expect(codes("get_webhook")).toEqual([]);
    expect(codes("get_attachment", { url: { type: "string", format: "uri" } })).toEqual([]);
    expect(codes("fetch_page")).toEqual(["SCAN011"]);
    expect(codes("web_search")).toEqual(["SCAN011"]);
  });
});

describeCorpus("capability inference on the real servers", () => {
  const wide = corpusPath("real-servers-wide");
  const servers = readdirSync(wide)
    .filter((f) => f.endsWith(".json"))
    .sort();

  it("code arguments of the corpus: code to run is execution, an item code or a function name is not", async () => {
    const at = async (file: string, name: string) =>
      capsOf(await loadToolDefs(join(wide, file)), name);
    expect(await at("puppeteer-merajmehrabi.json", "puppeteer_evaluate")).toContain("exec.command");
    expect(await at("browser-agent-infra.json", "browser_evaluate")).toContain("exec.command");
    expect(await at("xero.json", "create-item")).not.toContain("exec.command");
    expect(await at("terraform.json", "functionDetails")).not.toContain("exec.command");
  });

  it("SCAN011 under permissive, one server at a time: only the two true contradictions", async () => {
    const found: string[] = [];
    for (const file of servers) {
      const report = scanTools(await loadToolDefs(join(wide, file)), resolvePolicy("permissive"));
      for (const r of report.results)
        for (const f of r.findings) if (f.code === "SCAN011") found.push(`${r.server}/${r.name}`);
    }
    // ssh's read-command runs shell commands under readOnlyHint: true (an allow list the
    // scanner cannot see); mobile_terminate_app ends an app under destructiveHint: false.
    expect(found).toEqual(["mobile/mobile_terminate_app", "ssh/read-command"]);
  });
});
