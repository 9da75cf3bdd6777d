/**
 * Behaviour cases as data: every `cases/<signal>.jsonl` row is a text the named signal
 * must fire on (`fires`), a benign twin on which nothing may fire (`quiet`), or a known
 * miss (`known-miss`: a poisoned text the detector does not catch yet, asserted as not
 * caught, so that a change which catches it flips the row instead of passing silently).
 * A new case is a line in a file; no code changes.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { detectInjectionInTool } from "../../../src/scan/poisoning/index.js";
import { SIGNALS } from "../../../src/scan/poisoning/signals/index.js";
import type { InjectionSignal } from "../../../src/scan/poisoning/types.js";

interface Case {
  text: string;
  lang: string;
  expect: "fires" | "quiet" | "known-miss";
  kind?: "description" | "schema-description" | "schema-default";
  why?: string;
  /** Further parameters of the tool (string properties), so a text can name them. */
  params?: string[];
}

const dir = join(import.meta.dirname, "cases");

/** The text placed where its kind says, in an otherwise plain tool. */
function toolWith(c: Case): unknown {
  const kind = c.kind ?? "description";
  const property: Record<string, unknown> = { type: "string" };
  if (kind === "schema-description") property.description = c.text;
  if (kind === "schema-default") property.default = c.text;
  const properties: Record<string, unknown> = { value: property };
  for (const p of c.params ?? []) properties[p] = { type: "string" };
  return {
    name: "sample_tool",
    description: kind === "description" ? c.text : "Does one thing.",
    inputSchema: { type: "object", properties },
  };
}

const files = readdirSync(dir).filter((f) => f.endsWith(".jsonl"));
const known = new Set<string>([...SIGNALS.map((s) => s.id), "encoded-instruction"]);

describe("poisoning cases (test/scan/poisoning/cases/*.jsonl)", () => {
  it("every file is named for a signal and holds rows of every kind", () => {
    expect(files.length).toBeGreaterThan(10);
    for (const f of files) expect(known.has(f.replace(/\.jsonl$/, ""))).toBe(true);
  });

  for (const file of files) {
    const signal = file.replace(/\.jsonl$/, "") as InjectionSignal;
    const rows = readFileSync(join(dir, file), "utf8")
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(l) as Case);
    describe(signal, () => {
      for (const c of rows) {
        it(`${c.expect} [${c.lang}] ${c.text.slice(0, 70)}`, () => {
          const found = detectInjectionInTool(toolWith(c));
          const signals = found.map((f) => f.signal);
          if (c.expect === "fires") expect(signals).toContain(signal);
          else if (c.expect === "known-miss") expect(signals).not.toContain(signal);
          else expect(found.map((f) => `${f.signal}: ${f.why}`)).toEqual([]);
        });
      }
    });
  }
});
