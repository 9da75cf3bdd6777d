/**
 * gate-clauses.ts holds, precomputed, what the literal gate would read off each built-in
 * pattern. It must equal the live reading for every registered pattern and hold nothing
 * else; AIRLOCK_WRITE_GATE_CLAUSES=1 rewrites it from the patterns.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import "../../../src/scan/poisoning/detect.js";
import {
  buildGateTables,
  packGateTables,
  unpackGateTables,
} from "../../../src/scan/poisoning/gate-automaton.js";
import { GATE_CLAUSES, GATE_TABLES, TABLE_KEYS } from "../../../src/scan/poisoning/gate-clauses.js";
import {
  gatedPatterns,
  gateReading,
  liveGateTables,
} from "../../../src/scan/poisoning/literal-gate.js";

const FILE = new URL("../../../src/scan/poisoning/gate-clauses.ts", import.meta.url);

function liveTable(): Map<string, unknown> {
  const table = new Map<string, unknown>();
  for (const pattern of gatedPatterns()) {
    table.set(`${pattern.flags}/${pattern.source}`, gateReading(pattern));
  }
  return table;
}

describe("gate-clauses.ts", () => {
  it("equals the clauses read live off every registered pattern, and holds no other", () => {
    const live = liveTable();
    if (process.env.AIRLOCK_WRITE_GATE_CLAUSES === "1") {
      const source = readFileSync(FILE, "utf8");
      const rows = [...live].map(([key, reading]) => {
        const { clauses, leading } = reading as { clauses: unknown; leading: number };
        return `  ${JSON.stringify(JSON.stringify([key, clauses, leading]))},`;
      });
      const start = source.indexOf("[\n", source.indexOf("const ROWS")) + 2;
      const end = source.indexOf("];\n", start);
      let next = `${source.slice(0, start)}${rows.join("\n")}\n${source.slice(end)}`;
      const tables = liveGateTables();
      const from = next.indexOf("{", next.indexOf("export const GATE_TABLES"));
      const to = next.indexOf("};\n", from) + 1;
      next = `${next.slice(0, from)}${JSON.stringify(tables, null, 2)}${next.slice(to)}`;
      writeFileSync(FILE, next);
      return;
    }
    expect(live.size).toBeGreaterThan(40);
    expect(new Map(GATE_CLAUSES)).toEqual(live);
  });

  it("holds the automaton's tables built from those clauses, for the patterns in that order", () => {
    if (process.env.AIRLOCK_WRITE_GATE_CLAUSES === "1") return;
    expect(GATE_TABLES.states).toBeGreaterThan(1000);
    expect(GATE_TABLES).toEqual(liveGateTables());
    expect(TABLE_KEYS).toEqual(gatedPatterns().map((p) => `${p.flags}/${p.source}`));
  });

  it("packed tables read back as built", () => {
    const built = buildGateTables(["he", "she", "his", "hers", "é!"], new Set([4]), [
      [0],
      [1, 2],
      [2],
      [3],
      [4],
    ]);
    expect(unpackGateTables(packGateTables(built))).toEqual(built);
  });
});
