import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parsePinFile } from "../../src/pins/pin-file.js";
import { runCli, tempDir } from "./helpers.js";

/** A saved tools/list answer with everything a hostile server could send. */
function hostileListing(): string {
  const deep = `${'{"a":'.repeat(100_000)}1${"}".repeat(100_000)}`;
  return `{"tools":[
    {"name":"fine","description":"A fine tool.","inputSchema":{"type":"object"}},
    {"name":"__proto__","description":"named like a prototype","inputSchema":{"type":"object"}},
    {"name":"deep","inputSchema":${deep}},
    {"name":"twice","description":"one"},
    {"name":"twice","description":"two"},
    {"name":"esc\\u001b[2Jape","description":"clears the screen \\u001b[2J and \\u202e reverses"},
    {"name":"lone\\ud800","description":"a lone surrogate"},
    {"description":"no name at all"},
    42
  ]}`;
}

describe("pin and check on a hostile saved listing", () => {
  it("pins only what can be pinned, refuses the rest with exit 1, and never crashes", async () => {
    const dir = tempDir();
    const listing = join(dir, "hostile.json");
    writeFileSync(listing, hostileListing());
    const pins = join(dir, "airlock.pins.json");
    const run = await runCli(["pin", "--pins", pins, "--server", "h", "--yes", "--from", listing]);
    expect(run.code, run.stderr).toBe(1);
    // Terminal control characters from the server are shown escaped, never sent raw.
    expect(run.stdout).not.toMatch(/[\u001b\u202e]/);
    expect(run.stdout).toContain('NEW        "esc\\u001b[2Jape"');
    expect(run.stdout).toContain("\\u202e reverses");
    const file = parsePinFile(readFileSync(pins, "utf8"));
    expect(Object.keys(file.servers.h!.tools)).toContain("__proto__");
    expect(Object.keys(file.servers.h!.tools)).not.toContain("deep");
    expect(Object.keys(file.servers.h!.tools)).not.toContain("twice");

    const check = await runCli(["check", "--pins", pins, "--from", listing]);
    expect(check.code).toBe(2);
    expect(check.stdout).toContain("DUPLICATE  twice");
    expect(check.stdout).toContain("UNREADABLE deep");
    const json = JSON.parse(
      (await runCli(["check", "--pins", pins, "--from", listing, "--output", "json"])).stdout,
    );
    const statuses = json.servers[0].tools.map(
      (t: { name: string | null; status: string }) => `${t.name}:${t.status}`,
    );
    expect(statuses).toEqual([
      "fine:pinned",
      "__proto__:pinned",
      "deep:unreadable",
      "twice:duplicate",
      "twice:duplicate",
      "esc\u001b[2Jape:pinned",
      "lone\ud800:pinned",
      "null:unreadable",
      "null:unreadable",
    ]);
  });
});
