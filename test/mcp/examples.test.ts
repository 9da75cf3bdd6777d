import { execFile } from "node:child_process";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const run = async (example: string) =>
  (
    await promisify(execFile)(process.execPath, ["--import", "tsx", `examples/${example}`], {
      cwd: root,
      timeout: 60_000,
    })
  ).stdout;

describe("examples run as documented", () => {
  it("examples/mcp-client.ts exposes only the approved tool and drops it after a rug pull", async () => {
    const out = await run("mcp-client.ts");
    expect(out).toContain("approved: send_report\n");
    expect(out).toContain(
      "raise: tools/list refused: not admitted by the pins: list_inbox (unpinned)",
    );
    expect(out).toContain("filter: send_report\n");
    expect(out).toContain("after the rug pull, exposed: []\n");
    expect(out).toMatch(/call send_report: AIRLOCK_BLOCK: tool "send_report"/);
  });

  it("examples/mcp-server.ts refuses to start with an unreviewed tool, then guards arguments", async () => {
    const out = await run("mcp-server.ts");
    expect(out).toContain("approved: search_notes -> airlock.pins.json\n");
    expect(out).toContain(
      'listing: MCP error -32001: tools/list refused: not admitted by the pins: "delete_all_notes"',
    );
    expect(out).toMatch(/call delete_all_notes: AIRLOCK_BLOCK: this server has not started/);
    expect(out).toContain("listing: search_notes\n");
    expect(out).toContain('call search_notes: 2 notes match "tax"\n');
    expect(out).toMatch(
      /call with an extra argument: AIRLOCK_BLOCK: tool "search_notes" does not accept the argument\(s\) "upload_to"/,
    );
  });
});
