import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  CAMOUFLAGE_RESISTANT_POLICY,
  loadPolicyFile,
  PERMISSIVE_POLICY,
  POLICY_NAMES,
  parsePolicy,
  READ_ONLY_POLICY,
  resolvePolicy,
  ScanPolicyError,
  STRICT_POLICY,
  scanTools,
} from "../../src/scan/index.js";

const closed = { type: "object", properties: {}, additionalProperties: false };
const codes = (report: ReturnType<typeof scanTools>, i = 0) =>
  report.results.filter((r) => r.kind === "tool")[i]?.findings.map((f) => f.code) ?? [];

describe("shipped policies", () => {
  it("map 1:1 to the --policy names", () => {
    expect(POLICY_NAMES).toEqual(["permissive", "read-only", "strict", "deny-by-default"]);
    expect(resolvePolicy("permissive")).toBe(PERMISSIVE_POLICY);
    expect(resolvePolicy("read-only")).toBe(READ_ONLY_POLICY);
    expect(resolvePolicy("strict")).toBe(STRICT_POLICY);
    expect(resolvePolicy("deny-by-default")).toBe(CAMOUFLAGE_RESISTANT_POLICY);
  });

  it("an unknown name is SCAN_POLICY_UNKNOWN listing the valid ones", () => {
    expect(() => resolvePolicy("lenient")).toThrow(
      /permissive, read-only, strict, deny-by-default/,
    );
    expect(() => resolvePolicy("__proto__")).toThrow(ScanPolicyError);
  });

  it("are frozen", () => {
    expect(Object.isFrozen(READ_ONLY_POLICY.capabilities.denied)).toBe(true);
    expect(() => (READ_ONLY_POLICY.allow as string[]).push("x")).toThrow();
  });

  const table: [string, string, string[]][] = [
    // tool name, policy, expected codes (schemas closed, so only policy rules fire)
    ["list_issues", "permissive", []],
    ["delete_file", "permissive", []],
    ["list_issues", "read-only", []],
    ["create_issue", "read-only", ["SCAN006"]],
    ["fetch_url", "read-only", ["SCAN007"]],
    ["get_env", "read-only", ["SCAN007"]],
    ["frobnicate", "read-only", ["SCAN007"]],
    ["create_issue", "strict", ["SCAN007"]],
    ["delete_issue", "strict", ["SCAN006"]],
    ["run_shell", "strict", ["SCAN006"]],
    ["frobnicate", "strict", ["SCAN006"]],
    ["read_file", "deny-by-default", ["SCAN001"]],
    ["create_issue", "deny-by-default", ["SCAN001", "SCAN006"]],
  ];
  it.each(table)("%s under %s → %j", (name, policy, expected) => {
    const report = scanTools([{ name, inputSchema: closed }], resolvePolicy(policy));
    expect(codes(report)).toEqual(expected);
  });

  it("deny-by-default does not let annotations narrow what a name shows", () => {
    const t = { name: "delete_entities", inputSchema: closed, annotations: { readOnlyHint: true } };
    const read = scanTools([t], READ_ONLY_POLICY);
    expect(read.results[0]?.capabilities.map((c) => c.capability)).toEqual(["state.read"]);
    const deny = scanTools([t], CAMOUFLAGE_RESISTANT_POLICY);
    expect(deny.results[0]?.capabilities.map((c) => c.capability)).toEqual(["state.delete"]);
  });
});

describe("user policies", () => {
  it("extends a preset by adding to its lists", () => {
    const p = parsePolicy({
      version: 1,
      name: "team",
      extends: "deny-by-default",
      tools: { allow: ["github/get_*", "read_file"], deny: ["*_admin"] },
      capabilities: { granted: ["net.outbound"] },
    });
    expect(p.allow).toEqual(["github/get_*", "read_file"]);
    expect(p.capabilities.granted).toContain("fs.read");
    expect(p.capabilities.granted).toContain("net.outbound");
    expect(p.capabilities.annotationsMayNarrow).toBe(false);
  });

  it("globs with a slash match server/tool; deny wins over allow", () => {
    const p = parsePolicy({
      tools: { allow: ["github/*", "echo"], deny: ["github/delete_*"] },
      capabilities: { granted: ["**"] },
    });
    const set = {
      tools: [
        { definition: { name: "get_issue", inputSchema: closed }, source: "x", server: "github" },
        { definition: { name: "get_issue2", inputSchema: closed }, source: "x", server: "gitlab" },
        { definition: { name: "delete_repo", inputSchema: closed }, source: "x", server: "github" },
        { definition: { name: "echo", inputSchema: closed }, source: "x", server: null },
      ],
      instructions: [],
      problems: [],
      sources: ["x"],
    };
    const report = scanTools(set, p);
    const tools = report.results.filter((r) => r.kind === "tool");
    expect(tools.map((r) => r.findings.map((f) => f.message))).toEqual([
      [],
      ["tool not allow-listed by policy custom"],
      ['tool denied by policy custom (deny glob "github/delete_*")'],
      [],
    ]);
  });

  it.each([
    [[], "a policy must be a JSON object"],
    [{ allowed: ["x"] }, 'unknown key "allowed"'],
    [{ version: 2 }, "version must be 1"],
    [{ extends: "lenient" }, "unknown policy"],
    [{ tools: { allow: "x" } }, "tools.allow must be an array"],
    [{ tools: { allow: [""] } }, "tools.allow[0] must be a non-empty string"],
    [{ tools: { permit: [] } }, "unknown key tools.permit"],
    [{ capabilities: { granted: [1] } }, "capabilities.granted[0]"],
    [
      { capabilities: { annotationsMayNarrow: "no" } },
      "annotationsMayNarrow must be true or false",
    ],
    [{ name: "" }, "name must be a non-empty string"],
  ])("rejects %j with a clear message", (value, message) => {
    expect(() => parsePolicy(value, "p.json")).toThrow(message);
    try {
      parsePolicy(value, "p.json");
    } catch (err) {
      expect(err).toBeInstanceOf(ScanPolicyError);
      expect((err as ScanPolicyError).code).toBe("SCAN_POLICY_INVALID");
      expect((err as Error).message.startsWith("p.json: ")).toBe(true);
    }
  });

  it("loads the example policy file and names the file in errors", async () => {
    const p = await loadPolicyFile("examples/data/scan/policy.json");
    expect(p.name).toBe("team-read-only");
    expect(p.deny).toEqual(["run_*", "*_shell"]);
    const dir = mkdtempSync(join(tmpdir(), "airlock-policy-"));
    writeFileSync(join(dir, "bad.json"), "{");
    await expect(loadPolicyFile(join(dir, "bad.json"))).rejects.toThrow(
      /bad\.json: policy file is not valid JSON/,
    );
    await expect(loadPolicyFile(join(dir, "none.json"))).rejects.toMatchObject({
      code: "SCAN_POLICY_INVALID",
    });
  });
});
