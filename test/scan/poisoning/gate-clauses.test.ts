/**
 * gate-clauses.ts holds, precomputed, what the literal gate would read off each built-in
 * pattern. It must equal the live reading for every registered pattern and hold nothing
 * else; AIRLOCK_WRITE_GATE_CLAUSES=1 rewrites it from the patterns.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import "../../../src/scan/poisoning/detect.js";
import { GATE_CLAUSES } from "../../../src/scan/poisoning/gate-clauses.js";
import { gateClauses, gatedPatterns } from "../../../src/scan/poisoning/literal-gate.js";

const FILE = new URL("../../../src/scan/poisoning/gate-clauses.ts", import.meta.url);

function liveTable(): Map<string, unknown> {
  const table = new Map<string, unknown>();
  for (const pattern of gatedPatterns()) {
    table.set(`${pattern.flags}/${pattern.source}`, gateClauses(pattern));
  }
  return table;
}

describe("gate-clauses.ts", () => {
  it("equals the clauses read live off every registered pattern, and holds no other", () => {
    const live = liveTable();
    if (process.env.AIRLOCK_WRITE_GATE_CLAUSES === "1") {
      const source = readFileSync(FILE, "utf8");
      const rows = [...live].map(
        ([key, clauses]) => `  ${JSON.stringify(JSON.stringify([key, clauses]))},`,
      );
      const start = source.indexOf("[\n", source.indexOf("const ROWS")) + 2;
      const end = source.indexOf("];\n", start);
      writeFileSync(FILE, `${source.slice(0, start)}${rows.join("\n")}\n${source.slice(end)}`);
      return;
    }
    expect(live.size).toBeGreaterThan(40);
    expect(new Map(GATE_CLAUSES)).toEqual(live);
  });
});
