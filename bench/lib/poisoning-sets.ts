/**
 * The poisoning development sets, split the one way every measurement uses.
 *
 * Split rule: a case's id ends in a number; odd numbers are the **tuning** half, even
 * numbers the **aside** half. The aside half is only ever counted: nothing that reads it
 * may print a case's id, text or verdict (see `scripts/measure-poisoning.ts`).
 * `public-pocs` rows marked `ambiguous` are kept apart from the clear rows.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseToolDefs, resolvePolicy, scanTools } from "../../src/scan/index.js";

/** One labelled tool definition of a development set. */
export interface DevCase {
  id: string;
  poisoned: boolean;
  technique: string;
  half: "tuning" | "aside";
  ambiguous: boolean;
  tool: unknown;
}

/** The result of scanning one case through the product (`scanTools`, permissive). */
export interface DevVerdict {
  case: DevCase;
  flagged: boolean;
  signals: string[];
}

const permissive = resolvePolicy("permissive");

/** Which half an id belongs to: the parity of the number it ends with. */
export function halfOf(id: string): "tuning" | "aside" {
  const m = /(\d+)$/.exec(id);
  if (!m) throw new Error(`case id without a number: ${id}`);
  return Number(m[1]) % 2 === 1 ? "tuning" : "aside";
}

/** Reads a JSONL development set (`poisoning-dev` or `public-pocs`). */
export function loadDevSet(corpus: string, name: "poisoning-dev" | "public-pocs"): DevCase[] {
  return readFileSync(join(corpus, name, "cases.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => {
      const r = JSON.parse(l) as {
        id: string;
        label: string;
        technique: string;
        ambiguous?: boolean;
        tool: unknown;
      };
      return {
        id: r.id,
        poisoned: r.label === "poisoned",
        technique: r.technique,
        half: halfOf(r.id),
        ambiguous: r.ambiguous === true,
        tool: r.tool,
      };
    });
}

/** SCAN002 signals raised on one tool definition, through `scanTools` under permissive. */
export function scan002Signals(tool: unknown): string[] {
  const set = parseToolDefs(JSON.stringify({ tools: [tool] }), "case");
  const report = scanTools(set, permissive, { policyName: "permissive" });
  const signals = new Set<string>();
  for (const r of report.results) {
    for (const f of r.findings) if (f.code === "SCAN002") signals.add(f.signal ?? "?");
  }
  return [...signals];
}

/** Scans every case. */
export function judgeAll(cases: DevCase[]): DevVerdict[] {
  return cases.map((c) => {
    const signals = scan002Signals(c.tool);
    return { case: c, flagged: signals.length > 0, signals };
  });
}

/** Caught / poisoned and flagged / benign over a selection of verdicts. */
export interface Tally {
  caught: number;
  poisoned: number;
  flagged: number;
  benign: number;
}

/** Counts a selection. */
export function tally(verdicts: DevVerdict[]): Tally {
  const t: Tally = { caught: 0, poisoned: 0, flagged: 0, benign: 0 };
  for (const v of verdicts) {
    if (v.case.poisoned) {
      t.poisoned++;
      if (v.flagged) t.caught++;
    } else {
      t.benign++;
      if (v.flagged) t.flagged++;
    }
  }
  return t;
}

/** Tools of `real-servers-wide` with a SCAN002 finding, scanned one server file at a time. */
export function realWide(corpus: string): { tools: number; flagged: string[] } {
  const dir = join(corpus, "real-servers-wide");
  const flagged: string[] = [];
  let tools = 0;
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()) {
    const set = parseToolDefs(readFileSync(join(dir, file), "utf8"), file);
    const report = scanTools(set, permissive, { policyName: "permissive" });
    tools += set.tools.length;
    for (const r of report.results) {
      if (r.findings.some((f) => f.code === "SCAN002")) flagged.push(`${file}/${r.name}`);
    }
  }
  return { tools, flagged };
}
