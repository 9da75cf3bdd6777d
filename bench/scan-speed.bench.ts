/**
 * `npm run bench -- scan-speed`: how fast scan-tools checks the real servers' tools, in
 * process (per tool) and as a whole CLI process, each as a ratio to JSON.parse of the
 * same input measured in the same run; plus two hostile inputs: the 100,000-level schema,
 * and one tool listed N and 4N times (a SCAN012 group: time and output must grow linearly).
 * The Python original's figures were measured elsewhere: quoted as recorded, never divided by.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { inferCapabilities } from "../src/scan/capabilities.js";
import {
  formatJson,
  loadToolDefs,
  PERMISSIVE_POLICY,
  parseToolDefs,
  STRICT_POLICY,
  scanTools,
} from "../src/scan/index.js";
import { detectInjectionInTool } from "../src/scan/poisoning/index.js";
import { compilePolicy } from "../src/scan/policy-match.js";
import { annotationFindings } from "../src/scan/rules/annotations.js";
import { issuerFindings } from "../src/scan/rules/issuer.js";
import { nameFindings } from "../src/scan/rules/names.js";
import { policyFindings } from "../src/scan/rules/policy.js";
import { schemaFindings } from "../src/scan/rules/schema.js";
import { formatNs, formatRatio, measure, table } from "./lib/measure.js";

export const title = "scan-tools speed";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const corpus = join(root, "..", "shared", "corpus", "real-servers");

/** Fastest of `runs` wall-clock runs (the least disturbed on a shared machine), in ms. */
function fastestMs(runs: number, fn: () => void): number {
  const samples: number[] = [];
  fn(); // warm the file cache
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    samples.push(performance.now() - t0);
  }
  return Math.min(...samples);
}

export async function run(): Promise<string> {
  if (!existsSync(corpus)) return "_Skipped: ../shared/corpus/real-servers is missing._";
  const files = readdirSync(corpus)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => join(corpus, f));
  const texts = files.map((f) => readFileSync(f, "utf8"));
  const set = await loadToolDefs(corpus);
  const n = set.tools.length;
  const out: string[] = [];

  // In process: the whole set, per tool. Warm every path first so no row pays for the JIT.
  for (let i = 0; i < 200; i++) {
    for (const t of texts) JSON.parse(t);
    scanTools(set, PERMISSIVE_POLICY);
    scanTools(set, STRICT_POLICY);
  }
  // The machine is shared: interleave the operations over several passes and keep, for
  // each, the fastest round of any pass (the least disturbed), besides the median.
  const ops: Record<string, () => unknown> = {
    parse: () => {
      for (const t of texts) JSON.parse(t);
    },
    permissive: () => scanTools(set, PERMISSIVE_POLICY),
    strict: () => scanTools(set, STRICT_POLICY),
    loadAndScan: () => {
      for (let i = 0; i < texts.length; i++) {
        scanTools(parseToolDefs(texts[i]!, files[i]!), PERMISSIVE_POLICY);
      }
    },
    detector: () => {
      for (const t of set.tools) detectInjectionInTool(t.definition);
    },
    // scanTools' own rules without the SCAN002 detector: the framework's share.
    framework: () => {
      const compiled = compilePolicy(PERMISSIVE_POLICY);
      const names = nameFindings(set.tools, (i) => String(i));
      set.tools.forEach((t, i) => {
        const d = t.definition;
        const p = inferCapabilities(d, { annotationsMayNarrow: true });
        // As scanTools does it: every rule appends to one list per tool.
        const findings = policyFindings(d.name, t.server, p, compiled, "permissive");
        schemaFindings(d, p, findings);
        issuerFindings(d, findings);
        annotationFindings(d, p, findings);
        for (const f of names.get(i) ?? []) findings.push(f);
        findings.sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
      });
    },
  };
  const best: Record<string, { min: number; medians: number[] }> = {};
  for (let pass = 0; pass < 5; pass++) {
    for (const [name, fn] of Object.entries(ops)) {
      const m = measure(fn, { rounds: 9, roundMs: 25, clock: "cpu" });
      best[name] ??= { min: Number.POSITIVE_INFINITY, medians: [] };
      const b = best[name];
      b.min = Math.min(b.min, m.min);
      b.medians.push(m.median);
    }
  }
  const fastest = (name: string) => best[name]!.min;
  const median = (name: string) => {
    const list = [...best[name]!.medians].sort((a, b) => a - b);
    return list[Math.floor(list.length / 2)]!;
  };
  const row = (label: string, name: string) => [
    label,
    formatNs(fastest(name) / n),
    formatNs(median(name) / n),
    formatRatio(fastest(name) / fastest("parse")),
  ];
  out.push(
    `In process, the ${n} tools of the ${files.length} real servers (../shared/corpus/real-servers), per tool. ` +
      "The baseline is `JSON.parse` of the same files in the same run; times are the process's CPU time (time spent waiting for a shared core is not counted), and ratios use the fastest round of 5 interleaved passes.",
    "",
    table(
      ["operation", "per tool (fastest)", "per tool (median)", "× JSON.parse"],
      [
        row("JSON.parse of the files (baseline)", "parse"),
        row("scanTools, permissive", "permissive"),
        row("scanTools, strict", "strict"),
        row("parse + load + scan (what the CLI does)", "loadAndScan"),
        row("of which: SCAN002 detector alone", "detector"),
        row("of which: every other rule (capabilities, schemas, names, policy)", "framework"),
      ],
    ),
  );

  // Whole CLI process.
  try {
    execFileSync("npm", ["run", "build"], { cwd: root, stdio: "ignore" });
  } catch {
    // A build with type errors elsewhere still emits; bundle what it emitted.
    execFileSync(process.execPath, ["scripts/bundle-cli.mjs"], { cwd: root, stdio: "ignore" });
  }
  // The installed `airlock` (package.json bin): the bundle of dist/cli.
  const bin = join(root, "dist", "bundle", "bin.js");
  if (existsSync(bin)) {
    const runs = 11;
    const nodeBare = fastestMs(runs, () => spawnSync(process.execPath, ["-e", "0"]));
    const parseScript = `const fs=require("fs");for(const f of ${JSON.stringify(files)})JSON.parse(fs.readFileSync(f,"utf8"))`;
    const nodeParse = fastestMs(runs, () => spawnSync(process.execPath, ["-e", parseScript]));
    const help = fastestMs(runs, () => spawnSync(process.execPath, [bin, "--version"]));
    const cli = fastestMs(runs, () =>
      spawnSync(process.execPath, [bin, "scan-tools", corpus, "--output", "json"]),
    );
    // The same CLI unbundled (tsc output, one ES module per source file): what the bundle saves.
    const unbundledBin = join(root, "dist", "cli", "bin.js");
    const unbundled = fastestMs(runs, () =>
      spawnSync(process.execPath, [unbundledBin, "scan-tools", corpus, "--output", "json"]),
    );
    const check = spawnSync(process.execPath, [bin, "scan-tools", corpus, "--output", "json"], {
      encoding: "utf8",
    });
    const exit = check.status;
    out.push(
      "",
      `Whole process, \`airlock scan-tools <real-servers> --output json\` (dist/bundle/bin.js), fastest of ${runs} runs (exit code ${exit}). ` +
        "The baseline is a Node process that reads and `JSON.parse`s the same files, in the same run.",
      "",
      table(
        ["process", "wall time", "× baseline"],
        [
          [
            "`node -e 0` (bare start-up)",
            `${nodeBare.toFixed(1)} ms`,
            formatRatio(nodeBare / nodeParse),
          ],
          [
            "node: read + JSON.parse the files (baseline)",
            `${nodeParse.toFixed(1)} ms`,
            formatRatio(1),
          ],
          [
            "`airlock --version` (CLI start-up: Node's ESM loader and commander, no command loaded)",
            `${help.toFixed(1)} ms`,
            formatRatio(help / nodeParse),
          ],
          [
            "`airlock scan-tools` on the real servers",
            `${cli.toFixed(1)} ms`,
            formatRatio(cli / nodeParse),
          ],
          [
            "the same run unbundled, `node dist/cli/bin.js scan-tools`",
            `${unbundled.toFixed(1)} ms`,
            formatRatio(unbundled / nodeParse),
          ],
        ],
      ),
    );
    // Where a cold process spends its scan time: each phase timed inside a fresh process
    // (fastest of the runs per phase); a second scan in the same process is the warm baseline.
    const phaseScript =
      `const t0=performance.now();const s=await import(${JSON.stringify(join(root, "dist", "scan", "index.js"))});` +
      `const t1=performance.now();const p=s.resolvePolicy("permissive");const set=await s.loadToolDefs(${JSON.stringify(corpus)});` +
      "const t2=performance.now();s.scanTools(set,p,{policyName:p.name});const t3=performance.now();" +
      "s.scanTools(set,p,{policyName:p.name});const t4=performance.now();" +
      "process.stdout.write(JSON.stringify([t1-t0,t2-t1,t3-t2,t4-t3]));";
    const phases = [Infinity, Infinity, Infinity, Infinity];
    for (let r = 0; r < runs; r++) {
      const res = spawnSync(process.execPath, ["--input-type=module", "-e", phaseScript], {
        encoding: "utf8",
      });
      const times = JSON.parse(res.stdout) as number[];
      times.forEach((t, k) => {
        phases[k] = Math.min(phases[k]!, t);
      });
    }
    const [importMs, loadMs, coldMs, warmMs] = phases as [number, number, number, number];
    out.push(
      "",
      `Inside a fresh process, each phase's fastest of ${runs} runs. The baseline is the second \`scanTools\` of the same tools in the same process (warm).`,
      "",
      table(
        ["phase", "time", "× warm scan"],
        [
          [
            "import `agent-airlock/scan`",
            `${importMs.toFixed(1)} ms`,
            formatRatio(importMs / warmMs),
          ],
          [
            "`loadToolDefs` on the real servers",
            `${loadMs.toFixed(1)} ms`,
            formatRatio(loadMs / warmMs),
          ],
          [
            "first `scanTools` (cold: gate build, pattern compiles, unoptimised code)",
            `${coldMs.toFixed(1)} ms`,
            formatRatio(coldMs / warmMs),
          ],
          ["second `scanTools` (baseline)", `${warmMs.toFixed(1)} ms`, formatRatio(1)],
        ],
      ),
    );
  } else {
    out.push("", "_Whole-process row skipped: `npm run build` produced no dist/bundle/bin.js._");
  }

  // Hostile input.
  const depth = 100_000;
  const deep = `{"name":"get_deep","inputSchema":{"type":"object","additionalProperties":false,"properties":{"p":${'{"type":"array","items":'.repeat(depth)}{"type":"string"}${"}".repeat(depth)}}}}`;
  const deepParse = measure(() => JSON.parse(deep), { rounds: 7, roundMs: 100, clock: "cpu" });
  const deepScan = measure(() => scanTools(parseToolDefs(deep, "deep.json"), PERMISSIVE_POLICY), {
    rounds: 7,
    roundMs: 100,
    clock: "cpu",
  });
  const report = scanTools(parseToolDefs(deep, "deep.json"), PERMISSIVE_POLICY);
  const codes = [...new Set(report.results[0]?.findings.map((f) => f.code))].join(", ");
  let cliExit: number | null = null;
  if (existsSync(bin)) {
    const dir = mkdtempSync(join(tmpdir(), "airlock-bench-"));
    writeFileSync(join(dir, "deep.json"), deep);
    try {
      cliExit = spawnSync(process.execPath, [
        bin,
        "scan-tools",
        join(dir, "deep.json"),
        "--output",
        "json",
      ]).status;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  out.push(
    "",
    "Hostile input: one tool whose schema nests 100,000 levels (`items` in `items`, " +
      `${(deep.length / 1e6).toFixed(1)} MB), parsed and scanned in the same run (CPU time, fastest of 7 rounds each).`,
    "",
    table(
      ["operation", "time", "× JSON.parse", "outcome"],
      [
        ["JSON.parse (baseline)", formatNs(deepParse.min), formatRatio(1), "parsed"],
        [
          "parse + scanTools",
          formatNs(deepScan.min),
          formatRatio(deepScan.min / deepParse.min),
          `findings ${codes}; exit code ${report.exitCode}${cliExit === null ? "" : `; CLI exit code ${cliExit}`}`,
        ],
      ],
    ),
  );
  out.push("", ...sameNameRows(files));
  out.push(
    "",
    "**The Python original, as recorded elsewhere (not measured here, no ratio taken).** " +
      "A measurement campaign on 2026-12-01 ran this package and the Python original (v0.8.81 scan) side by side on " +
      "the same 139 real tools, in the same runs, alternating processes, on a quiet machine. It recorded, as TS / Python: " +
      "`scanTools` per tool 0.12-0.14x (ahead); the scan CLI on the 139 tools 0.42x the time (2.27x `node -e 0`) and " +
      "1.54x the peak RSS (65 vs 42 MiB); 1,600 copies of one tool 107x (28 s and 1.46 GB, the SCAN012 quadratic, " +
      "since removed: see the group rows above). The Python original cannot be installed here, so these figures are not " +
      "re-measured against the ones above.",
  );
  out.push(
    "",
    `_Load average at the end of the run: ${loadavg()[0]!.toFixed(1)} on the shared cores; ratios are against baselines measured in the same run._`,
  );
  return out.join("\n");
}

/**
 * One real tool listed N and 4N times: a SCAN012 group (one finding per tool, five other
 * members named). Before groups were counted, every pair was a finding.
 */
function sameNameRows(files: readonly string[]): string[] {
  const first = JSON.parse(readFileSync(files[0]!, "utf8")) as { tools: unknown[] };
  const tool = first.tools[0];
  // Past a few thousand copies the listing outgrows V8's young generation; both sizes do, so
  // the comparison is not between a heap that fits and one that does not.
  const sizes = [2_000, 8_000];
  const rows = sizes.map((n) => {
    const text = JSON.stringify({ tools: Array.from({ length: n }, () => tool) });
    const parse = measure(() => JSON.parse(text), { rounds: 7, roundMs: 100, clock: "cpu" });
    const scan = measure(() => scanTools(parseToolDefs(text, "copies.json"), PERMISSIVE_POLICY), {
      rounds: 7,
      roundMs: 100,
      clock: "cpu",
    });
    const report = scanTools(parseToolDefs(text, "copies.json"), PERMISSIVE_POLICY);
    const findings = report.results.reduce((sum, r) => sum + r.findings.length, 0);
    const json = formatJson(report).length;
    return { n, text: text.length, parse: parse.min, scan: scan.min, findings, json };
  });
  const [small, large] = rows as [(typeof rows)[0], (typeof rows)[0]];
  return [
    `Hostile input: the first real tool (\`${basename(files[0]!)}\`) listed ${small.n.toLocaleString("en")} and ${large.n.toLocaleString("en")} times in one listing, parsed and scanned in the same run (CPU time, fastest of 7 rounds each). Findings and the report grow exactly with the copies; the time per copy is not constant on this shared machine (a larger heap costs more garbage collection per copy, and runs vary), so the work itself is counted at N and 4N, not timed, in test/scan/growth.test.ts. Before SCAN012 counted a group once per tool, 1,000 copies gave a million findings and a 245 MB report.`,
    "",
    table(
      [
        "copies",
        "listing",
        "JSON.parse",
        "parse + scanTools",
        "per copy",
        "× JSON.parse",
        "findings",
        "JSON report",
      ],
      rows.map((r) => [
        r.n.toLocaleString("en"),
        `${(r.text / 1e6).toFixed(2)} MB`,
        formatNs(r.parse),
        formatNs(r.scan),
        formatNs(r.scan / r.n),
        formatRatio(r.scan / r.parse),
        r.findings.toLocaleString("en"),
        `${(r.json / 1e6).toFixed(2)} MB`,
      ]),
    ),
    "",
    `At 4x the copies: ${formatRatio(large.scan / small.scan)} the scan time, ${formatRatio(large.findings / small.findings)} the findings, ${formatRatio(large.json / small.json)} the report.`,
  ];
}
