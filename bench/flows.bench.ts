/**
 * `npm run bench -- flows`: what flow labels and the set analysis (SCAN014, SCAN015) cost
 * on 2,000 real tools (../shared/corpus/real-servers-wide), as a share of the whole scan of
 * the same tools in the same run, and how the set analysis grows with the number of tools.
 */
import { existsSync } from "node:fs";
import { loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { inferCapabilities } from "../src/scan/capabilities.js";
import { compileFlowLabels } from "../src/scan/flows/declared.js";
import { judgeFlowLabels } from "../src/scan/flows/infer.js";
import { detectToxicFlows, type LabelledTool } from "../src/scan/flows/toxic.js";
import { loadToolDefs, PERMISSIVE_POLICY, scanTools, type ToolSet } from "../src/scan/index.js";
import { formatNs, formatRatio, measure, table } from "./lib/measure.js";

export const title = "toxic flows (flow labels and the set analysis)";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const corpus = join(root, "..", "shared", "corpus", "real-servers-wide");
const N = 2000;

function labelAll(set: ToolSet): LabelledTool[] {
  const declared = compileFlowLabels(PERMISSIVE_POLICY);
  return set.tools.map((t) => ({
    tool: t.definition.name,
    server: t.server,
    source: t.source,
    labels: judgeFlowLabels(
      t.definition,
      t.server,
      inferCapabilities(t.definition, { annotationsMayNarrow: true }),
      declared,
    ),
  }));
}

/** `copies` copies of the labelled tools, each copy on servers of its own. */
function replicate(tools: LabelledTool[], copies: number): LabelledTool[] {
  const out: LabelledTool[] = [];
  for (let c = 0; c < copies; c++)
    for (const t of tools) out.push({ ...t, server: `${t.server}#${c}` });
  return out;
}

export async function run(): Promise<string> {
  if (!existsSync(corpus)) return "_Skipped: ../shared/corpus/real-servers-wide is missing._";
  const all = await loadToolDefs(corpus);
  const set: ToolSet = { ...all, tools: all.tools.slice(0, N), instructions: [] };
  const labelled = labelAll(set);
  const declared = compileFlowLabels(PERMISSIVE_POLICY);
  const profiles = set.tools.map((t) =>
    inferCapabilities(t.definition, { annotationsMayNarrow: true }),
  );
  for (let i = 0; i < 5; i++) {
    scanTools(set, PERMISSIVE_POLICY);
    detectToxicFlows(labelled);
  }
  const ops: Record<string, () => unknown> = {
    scan: () => scanTools(set, PERMISSIVE_POLICY),
    labels: () => {
      for (let i = 0; i < set.tools.length; i++) {
        const t = set.tools[i]!;
        judgeFlowLabels(t.definition, t.server, profiles[i]!, declared);
      }
    },
    analysis: () => detectToxicFlows(labelled),
  };
  const best: Record<string, number> = {};
  for (let pass = 0; pass < 5; pass++) {
    for (const [name, fn] of Object.entries(ops)) {
      const m = measure(fn, { rounds: 7, roundMs: 60 });
      best[name] = Math.min(best[name] ?? Number.POSITIVE_INFINITY, m.min);
    }
  }
  const flows = detectToxicFlows(labelled);
  const ms = (ns: number) => `${(ns / 1e6).toFixed(2)} ms`;
  const out: string[] = [
    `The first ${N} tools (in file order) of the ${new Set(set.tools.map((t) => t.server)).size} servers of ../shared/corpus/real-servers-wide, as one input: ` +
      `${flows.map((f) => `${f.code} with legs of ${f.legs.map((l) => `${l.count}`).join(" / ")} tools`).join(", ")}. ` +
      "The baseline is the whole `scanTools` of the same tools in the same run (every rule, flow labels and the set analysis included); fastest round of 5 interleaved passes. Target: the set analysis under 1 s. " +
      `Load average at the start: ${loadavg()[0]!.toFixed(1)} (the machine is shared).`,
    "",
    table(
      ["operation", `${N} tools`, "per tool", "× whole scan"],
      [
        [
          "`scanTools`, permissive (baseline)",
          ms(best.scan!),
          formatNs(best.scan! / N),
          formatRatio(1),
        ],
        [
          "of which: flow labels (`judgeFlowLabels`, capability profile given)",
          ms(best.labels!),
          formatNs(best.labels! / N),
          formatRatio(best.labels! / best.scan!),
        ],
        [
          "of which: the set analysis (`detectToxicFlows`)",
          ms(best.analysis!),
          formatNs(best.analysis! / N),
          formatRatio(best.analysis! / best.scan!),
        ],
      ],
    ),
  ];

  // Growth: the set analysis on 1x to 16x the labelled tools (copies on servers of their own).
  const rows: string[][] = [];
  let first = 0;
  for (const copies of [1, 2, 4, 8, 16]) {
    const tools = replicate(labelled, copies);
    for (let i = 0; i < 5; i++) detectToxicFlows(tools);
    const m = measure(() => detectToxicFlows(tools), { rounds: 9, roundMs: 80 });
    const perTool = m.min / tools.length;
    if (copies === 1) first = perTool;
    rows.push([String(tools.length), ms(m.min), formatNs(perTool), formatRatio(perTool / first)]);
  }
  out.push(
    "",
    "Growth of the set analysis: the same labelled tools copied onto servers of their own, fastest round. Linear work keeps the time per tool flat.",
    "",
    table(["tools", "set analysis", "per tool", "per tool × 2,000 tools"], rows),
  );
  return out.join("\n");
}
