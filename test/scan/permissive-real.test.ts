/**
 * The calibration rule of the default policy: real servers do not fail under
 * `permissive`. Checked one server at a time over the 96 servers (2,023 tools) of
 * ../shared/corpus/real-servers-wide, as an operator scans a server's saved listing; the
 * exceptions are listed, with why, in docs/scan-tools.md ("Exceptions on the wide corpus").
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { loadToolDefs, PERMISSIVE_POLICY, scanTools } from "../../src/scan/index.js";
import { corpusPath, describeCorpus } from "../helpers/corpus.js";

/**
 * The one SCAN002 false positive of the poisoning detector (src/scan/poisoning/) on this
 * corpus: hevy's server instructions, an honest note on how to call its tools ("always
 * call the exact tool name and pass inputs in the tools/call arguments object") read as
 * tool shadowing. It is on the server's instructions, not on a tool: no tool of the 2,023
 * fails SCAN002 (checked below). This test allows it; it does not ask for it.
 */
const DETECTOR_EXCEPTIONS = new Set(["hevy/hevy SCAN002"]);

/** True findings: each server claims less in an annotation than the tool does. */
const TRUE_CONTRADICTIONS = ["mobile/mobile_terminate_app SCAN011", "ssh/read-command SCAN011"];

describeCorpus("real servers under permissive (real-servers-wide, one server at a time)", () => {
  it("fail only where docs/scan-tools.md lists an exception", async () => {
    const dir = corpusPath("real-servers-wide");
    const fails: string[] = [];
    let tools = 0;
    let sdkOpen = 0;
    let toolScan002 = 0;
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".json"))) {
      const report = scanTools(await loadToolDefs(join(dir, file)), PERMISSIVE_POLICY);
      tools += report.toolCount;
      for (const r of report.results) {
        for (const f of r.findings) {
          if (f.grade === "fail") fails.push(`${r.server}/${r.name} ${f.code}`);
          if (f.code === "SCAN002" && r.kind === "tool") toolScan002++;
          if (f.code === "SCAN003" && f.message.includes("MCP SDK")) sdkOpen++;
        }
      }
    }
    expect(tools).toBe(2023);
    const unique = [...new Set(fails)].sort();
    expect(unique.filter((f) => !DETECTOR_EXCEPTIONS.has(f))).toEqual(TRUE_CONTRADICTIONS);
    // The detector flags none of the 2,023 tools, at any grade.
    expect(toolScan002).toBe(0);
    // The open schemas the MCP SDK wrote itself are recognised as such (issue 13, item 5).
    expect(sdkOpen).toBeGreaterThan(150);
  });
});
