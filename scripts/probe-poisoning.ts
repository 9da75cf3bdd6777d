/**
 * `node --import tsx scripts/probe-poisoning.ts FILE`: reads lines `P|B<TAB>text` (a
 * poisoned or benign tool description written by hand) and prints each verdict, the
 * signals and the reasons. For writing cases; it reads no corpus.
 */
import { readFileSync } from "node:fs";
import { detectInjectionInTool } from "../src/scan/poisoning/index.js";

let wrong = 0;
let n = 0;
for (const raw of readFileSync(process.argv[2]!, "utf8").split("\n")) {
  if (raw.trim() === "" || raw.startsWith("#")) continue;
  const [label, text] = [raw.slice(0, 1), raw.slice(2)];
  // Backticked identifiers are the tool's parameters, as in a real definition.
  const properties: Record<string, unknown> = { query: { type: "string" } };
  for (const m of text.matchAll(/`([A-Za-z_][A-Za-z0-9_]{0,40})`/g)) {
    properties[m[1]!] = { type: "string" };
  }
  const findings = detectInjectionInTool({
    name: "probe_tool",
    description: text,
    inputSchema: { type: "object", properties },
  });
  const flagged = findings.length > 0;
  const ok = flagged === (label === "P");
  n++;
  if (!ok) wrong++;
  const mark = ok ? "ok  " : label === "P" ? "MISS" : "FP  ";
  process.stdout.write(
    `${mark} ${label} ${text.slice(0, 150)}\n${findings.map((f) => `       - ${f.signal}: ${f.why.slice(0, 160)}\n`).join("")}`,
  );
}
process.stdout.write(`${n - wrong}/${n} right\n`);
