import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";

describe("airlock CLI", () => {
  it("prints help and exits 0", () => {
    const out = execFileSync(process.execPath, ["--import", "tsx", "src/cli/bin.ts", "--help"], {
      encoding: "utf8",
    });
    expect(out).toContain("Usage: airlock");
    expect(out).toContain("scan-tools");
  });
});
