import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";

describe("examples/pins.ts", () => {
  it("runs and shows each behaviour of docs/pins.md", () => {
    const out = execFileSync(process.execPath, ["--import", "tsx", "examples/pins.ts"], {
      encoding: "utf8",
    });
    expect(out.trim().split("\n")).toEqual([
      "approved get_forecast true",
      "same definition: allow_pinned",
      "keys reordered: allow_pinned",
      "rug pull: deny_description_drift [ 'description' ]",
      "validate threw TOOL_DEFINITION_DRIFT",
      "unknown tool: deny_unpinned",
      "filtered: [ 'get_forecast' ]",
      "tools/list refused: not admitted by the pins: run_shell (unpinned)",
    ]);
  });
});
