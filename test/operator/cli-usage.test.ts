import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, tempDir } from "./helpers.js";

describe("operator commands: usage errors and missing inputs exit 2", () => {
  it("refuses bad numbers, a proxy without a server, and a missing pin file", async () => {
    const dir = tempDir();
    const runs = await Promise.all([
      runCli(["check", "--max-pages", "0", "--from", "x.json"]),
      runCli(["proxy", "--pins", join(dir, "none.json")]),
      runCli(["proxy", "--pins", join(dir, "none.json"), "--", process.execPath, "server.js"]),
      runCli(["check", "--pins", join(dir, "none.json")]),
    ]);
    expect(runs.map((r) => r.code)).toEqual([2, 2, 2, 2]);
    expect(runs[0]!.stderr).toContain("expected a positive integer");
    expect(runs[1]!.stderr).toContain("give the real server as -- COMMAND ARGS... or --url URL");
    expect(runs[2]!.stderr).toMatch(/pin file .*none\.json/);
  });

  it("wrap-config finds no config in an empty project and home, and says so", async () => {
    const dir = tempDir();
    const run = await runCli(["wrap-config", "--output", "json"], {
      cwd: dir,
      env: { HOME: dir, APPDATA: dir, USERPROFILE: dir },
    });
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toMatchObject({
      exitCode: 2,
      error: "no MCP client config found: give --config PATH",
    });
  });
});
