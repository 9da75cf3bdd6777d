/**
 * `node --import tsx scripts/measure-poisoning.ts [--detail] [--json FILE]`
 *
 * Totals of SCAN002 on both halves of `poisoning-dev` and `public-pocs` and on
 * `real-servers-wide`. With `--detail`, the misses and false alarms of the **tuning**
 * halves only are listed (id, technique, signals). The aside halves are counted and never
 * listed: that is the split rule (bench/lib/poisoning-sets.ts), and this script is the one
 * tool that reads them.
 */
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type DevVerdict,
  judgeAll,
  loadDevSet,
  realWide,
  type Tally,
  tally,
} from "../bench/lib/poisoning-sets.js";

const corpus = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "shared", "corpus");
const detail = process.argv.includes("--detail");
const jsonAt = process.argv.indexOf("--json");

const pct = (a: number, b: number) => (b === 0 ? "n/a" : `${((100 * a) / b).toFixed(1)}%`);
const line = (name: string, t: Tally) =>
  `${name.padEnd(34)} caught ${`${t.caught}/${t.poisoned}`.padStart(7)} ${pct(t.caught, t.poisoned).padStart(6)}   benign flagged ${`${t.flagged}/${t.benign}`.padStart(7)} ${pct(t.flagged, t.benign).padStart(6)}`;

const summary: Record<string, Tally | number> = {};
const out: string[] = [];
const tuningDetail: string[] = [];

function report(name: string, verdicts: DevVerdict[]) {
  const tuning = verdicts.filter((v) => v.case.half === "tuning");
  const aside = verdicts.filter((v) => v.case.half === "aside");
  const t = tally(tuning);
  const a = tally(aside);
  summary[`${name} tuning`] = t;
  summary[`${name} aside`] = a;
  out.push(line(`${name} tuning (odd)`, t));
  out.push(line(`${name} ASIDE (even)`, a));
  for (const v of tuning) {
    if (v.case.poisoned !== v.flagged) {
      tuningDetail.push(
        `${v.case.poisoned ? "MISS " : "FALSE"} ${v.case.id} [${v.case.technique}] ${v.signals.join(",")}`,
      );
    }
  }
}

const dev = judgeAll(loadDevSet(corpus, "poisoning-dev"));
report("poisoning-dev", dev);
const pocs = judgeAll(loadDevSet(corpus, "public-pocs"));
report(
  "public-pocs clear",
  pocs.filter((v) => !v.case.ambiguous),
);
const amb = tally(pocs.filter((v) => v.case.ambiguous));
summary["public-pocs ambiguous"] = amb;
out.push(line("public-pocs ambiguous (both halves)", amb));
const wide = realWide(corpus);
summary["real-servers-wide flagged"] = wide.flagged.length;
out.push(`real-servers-wide: ${wide.flagged.length}/${wide.tools} tools with SCAN002`);
for (const f of wide.flagged) out.push(`  real: ${f}`);
if (detail) out.push("", "tuning halves only:", ...tuningDetail.sort());
process.stdout.write(`${out.join("\n")}\n`);
if (jsonAt > 0) writeFileSync(process.argv[jsonAt + 1]!, `${JSON.stringify(summary, null, 1)}\n`);
