import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  extractToolDefs,
  loadToolDefs,
  POLICY_NAMES,
  resolvePolicy,
  scanTools,
} from "../../src/scan/index.js";
import { corpusPath, describeCorpus } from "../helpers/corpus.js";

describeCorpus("scan-tools on the real servers (calibration)", () => {
  it("loads the 7 captured servers: 66 tools and the everything server's instructions", async () => {
    const set = await loadToolDefs(corpusPath("real-servers"));
    expect(set.tools).toHaveLength(66);
    expect(new Set(set.tools.map((t) => t.server)).size).toBe(7);
    expect(set.instructions.map((i) => i.server)).toEqual(["everything"]);
    expect(set.problems.filter((p) => p.severity !== "info")).toEqual([]);
  });

  it("under permissive: warnings only, and no contract rule fires that the servers do not deserve", async () => {
    const report = scanTools(
      await loadToolDefs(corpusPath("real-servers")),
      resolvePolicy("permissive"),
    );
    const counts: Record<string, number> = {};
    for (const r of report.results)
      for (const f of r.findings) counts[f.code] = (counts[f.code] ?? 0) + 1;
    // The tools' findings are open surfaces on read tools (SCAN004) and unconstrained
    // path/sql strings (SCAN005): both real, both warnings. No SCAN003/009/010/011/012/013.
    // The seven servers together also make both toxic flows (github alone is an
    // exfiltration path: issues in, private repositories, comments and pushes out), which
    // permissive warns.
    expect(counts).toEqual({ SCAN004: 18, SCAN005: 18, SCAN014: 1, SCAN015: 1 });
    expect(report.exitCode).toBe(1);
    expect(report.failed).toBe(0);
  });

  it("grade distribution per policy (tools + 1 instructions target + 2 toxic flows)", async () => {
    const set = await loadToolDefs(corpusPath("real-servers"));
    const dist = Object.fromEntries(
      POLICY_NAMES.map((p) => {
        const r = scanTools(set, resolvePolicy(p));
        return [p, [r.failed, r.warned, r.passed]];
      }),
    );
    // The two toxic flows warn under permissive and fail under the other presets.
    expect(dist).toEqual({
      permissive: [0, 36, 33],
      "read-only": [28, 24, 17],
      strict: [6, 46, 17],
      "deny-by-default": [68, 0, 1],
    });
  });
});

describeCorpus("scan-tools loaders on the other corpora", () => {
  it("reads every mcp-guardbench frame (JSON-RPC tools/list and initialize)", () => {
    const dir = corpusPath("mcp-guardbench", "cases");
    const init = JSON.parse(
      readFileSync(`${dir}/attacks/owasp-mcp-1-initialize-instructions-injection.json`, "utf8"),
    );
    const found = extractToolDefs(init.message, "initialize");
    expect(found.form).toBe("jsonrpc-initialize");
    expect(found.instructions[0]?.server).toBe("helper-server");
    const benign = JSON.parse(readFileSync(`${dir}/benign/legitimate-tools-list.json`, "utf8"));
    const listed = extractToolDefs(benign.message, "tools/list");
    expect(listed.form).toBe("jsonrpc-tools-list");
    expect(listed.tools.length).toBeGreaterThan(1);
  });

  it("rebuilds every airlock-mcptox fixture as a tool the scanner accepts", () => {
    const data = JSON.parse(readFileSync(corpusPath("airlock-mcptox", "fixtures.json"), "utf8"));
    const tools = data.fixtures.map((f: { name: string; description: string }) => ({
      name: f.name,
      description: f.description,
      inputSchema: data.inputSchema_for_every_fixture,
    }));
    for (const t of tools) {
      const report = scanTools([t], resolvePolicy("permissive"));
      expect(report.problems).toEqual([]);
      // The schema is closed and typed: only SCAN002 may fire on these.
      expect(report.results[0]?.findings.every((f) => f.code === "SCAN002")).toBe(true);
    }
  });
});

describe("scan-tools keeps the CLI lean", () => {
  it("nothing reachable from the scan-tools command imports the MCP SDK", () => {
    const seen = new Set<string>();
    const queue = ["src/cli/commands/scan-tools.ts"];
    while (queue.length > 0) {
      const file = queue.pop()!;
      if (seen.has(file)) continue;
      seen.add(file);
      const text = readFileSync(file, "utf8");
      expect(text).not.toMatch(
        /from\s+["']@modelcontextprotocol|import\(\s*["']@modelcontextprotocol/,
      );
      for (const m of text.matchAll(/(?:from|import\()\s*["'](\.{1,2}\/[^"']+)\.js["']/g)) {
        const base = file.slice(0, file.lastIndexOf("/"));
        const parts = `${base}/${m[1]}.ts`.split("/");
        const out: string[] = [];
        for (const p of parts) {
          if (p === "..") out.pop();
          else if (p !== ".") out.push(p);
        }
        queue.push(out.join("/"));
      }
    }
    expect(seen.has("src/scan/scan.ts")).toBe(true);
  });
});
