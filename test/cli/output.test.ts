import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { colorEnabled } from "../../src/cli/output.js";

const tty = { isTTY: true };
const pipe = { isTTY: false };

describe("colorEnabled", () => {
  it("never colours a pipe unless FORCE_COLOR asks, even under CI", () => {
    expect(colorEnabled(pipe, {})).toBe(false);
    expect(colorEnabled(pipe, { CI: "true" })).toBe(false);
    expect(colorEnabled({}, { CI: "1", TERM: "xterm-256color" })).toBe(false);
    expect(colorEnabled(pipe, { FORCE_COLOR: "1" })).toBe(true);
  });

  it("NO_COLOR wins over FORCE_COLOR and a terminal", () => {
    expect(colorEnabled(tty, { NO_COLOR: "1", FORCE_COLOR: "1" })).toBe(false);
  });

  it("FORCE_COLOR=0 or an empty value forces nothing", () => {
    expect(colorEnabled(pipe, { FORCE_COLOR: "0" })).toBe(false);
    expect(colorEnabled(tty, { FORCE_COLOR: "0" })).toBe(false);
    expect(colorEnabled(pipe, { FORCE_COLOR: "" })).toBe(false);
  });
});

describe("scan-tools text through a pipe", () => {
  it("is plain under CI=1 (picocolors alone would colour it)", () => {
    const env: NodeJS.ProcessEnv = { ...process.env, CI: "1" };
    delete env.NO_COLOR;
    delete env.FORCE_COLOR;
    const out = spawnSync(
      process.execPath,
      ["--import", "tsx", "src/cli/bin.ts", "scan-tools", "-"],
      { input: JSON.stringify([{ name: "get_a" }]), encoding: "utf8", env, timeout: 30_000 },
    );
    expect(out.stdout).toContain("get_a");
    expect(/\u001b\[/.test(out.stdout)).toBe(false);
  });
});
