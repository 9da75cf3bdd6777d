import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";

const run = (...args: string[]) =>
  execFileSync(process.execPath, ["--import", "tsx", "src/cli/bin.ts", "demo", ...args], {
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
  });

describe("airlock demo", () => {
  it("admits the approved listing and refuses the rug pull, naming each reason", () => {
    const out = run();
    expect(out).toContain("✔ get_forecast       allow_pinned");
    expect(out).toContain("✘ get_forecast       deny_description_drift");
    expect(out).toContain("✘ subscribe_alerts   deny_multi_field_drift");
    expect(out).toContain("annotations, inputSchema moved");
    expect(out).toContain("✘ run_shell          deny_unpinned");
    expect(out).toContain("→ admitted: get_alerts; refused: 3");
    expect(out).not.toMatch(/\u001b\[/);
  });

  it("prints both judgements as JSON", () => {
    const result = JSON.parse(run("--output", "json"));
    expect(result.clean.allowed).toBe(true);
    expect(result.clean.admitted).toEqual(["get_forecast", "get_alerts", "subscribe_alerts"]);
    expect(result.rugPull.admitted).toEqual(["get_alerts"]);
    expect(result.rugPull.refused.map((r: { reason: string }) => r.reason)).toEqual([
      "drift",
      "drift",
      "unpinned",
    ]);
  });
});
