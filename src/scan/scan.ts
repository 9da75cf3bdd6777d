/**
 * `scanTools`: every rule over every tool of one input, then the toxic flows of the whole
 * input (SCAN014, SCAN015), the policy's grades and the suppressions, summed up into one
 * report with its exit code.
 */
import type { ToolDefinition } from "../pins/types.js";
import { inferCapabilities } from "./capabilities.js";
import { compileFlowLabels, type FlowLabelMatcher } from "./flows/declared.js";
import { judgeFlowLabels } from "./flows/infer.js";
import { detectToxicFlows, type LabelledTool, type ToxicFlowOptions } from "./flows/toxic.js";
import { applyRuleGrades, readRuleGrades } from "./grades.js";
import { CleanTexts } from "./poisoning/index.js";
import { PERMISSIVE_POLICY, type SecurityPolicy } from "./policy.js";
import { compilePolicy } from "./policy-match.js";
import { annotationFindings } from "./rules/annotations.js";
import { flowResults } from "./rules/flows.js";
import { issuerFindings } from "./rules/issuer.js";
import { nameFindings } from "./rules/names.js";
import { instructionFindings, toolPoisoningFindings } from "./rules/poisoning.js";
import { policyFindings } from "./rules/policy.js";
import { schemaFindings } from "./rules/schema.js";
import { indexSuppressions, isExpired, type SuppressionMatcher } from "./suppressions.js";
import type {
  Finding,
  Grade,
  InputProblem,
  LoadedTool,
  RuleCode,
  ScanReport,
  Suppression,
  TargetResult,
  ToolSet,
} from "./types.js";

/** Options of {@link scanTools}. */
export interface ScanOptions {
  /** Name shown in findings and the report (default: the policy's own `name`). */
  policyName?: string;
  /** Reviewed per-finding exceptions (see `parseSuppressions`). */
  suppressions?: readonly Suppression[];
  /** Clock for suppression expiry (default: now). */
  now?: Date;
  /** Limits of the toxic flow findings (SCAN014, SCAN015): tools listed per leg. */
  flows?: Omit<ToxicFlowOptions, "accept">;
}

const RANK: Record<Grade, number> = { pass: 0, warn: 1, fail: 2 };
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Check each tool's declared contract against a policy. `input` is what `loadToolDefs`
 * returns (tools, server instructions and input problems), or an array of tool
 * definitions (plain objects, or objects with `toJSON()` such as SDK tools). Never
 * mutates the input, never throws on hostile tools: an unreadable entry is an input
 * problem (exit code 2), a schema past the analysis bounds is a SCAN013 finding.
 *
 * Every tool also gets its flow labels (`flowLabels`), and the combinations the tools fill
 * together, across servers, are results of kind `flow` after the tools: SCAN014
 * (exfiltration path) and SCAN015 (destructive injection path), each naming the tools on
 * its legs. Throws only for a bad option or a hand-built policy whose `grades` or `flows`
 * are invalid (`SCAN_OPTIONS_INVALID`, `SCAN_POLICY_INVALID`).
 *
 * Exit code: 2 if any unsuppressed finding fails or the input has an error, else 1 if
 * anything warns (input warnings included), else 0.
 *
 * @example
 * ```ts
 * import { resolvePolicy, scanTools } from "agent-airlock/scan";
 * const report = scanTools(
 *   [{ name: "delete_file", inputSchema: { type: "object", properties: { path: { type: "string" } } } }],
 *   resolvePolicy("strict"),
 *   { policyName: "strict" },
 * );
 * console.log(report.exitCode, report.results[0]?.findings.map((f) => f.code)); // 2 ["SCAN003", "SCAN005", "SCAN006"]
 * ```
 */
export function scanTools(
  input: ToolSet | readonly unknown[] | { tools: readonly unknown[] },
  policy: SecurityPolicy = PERMISSIVE_POLICY,
  options: ScanOptions = {},
): ScanReport {
  const set = toToolSet(input);
  const policyName = options.policyName ?? policy.name;
  const grades = readRuleGrades(policy.grades);
  const declared = compileFlowLabels(policy);
  const results: TargetResult[] = [];
  for (const inst of set.instructions) {
    results.push({
      kind: "instructions",
      name: inst.server ?? inst.source,
      server: inst.server,
      source: inst.source,
      grade: "pass",
      capabilities: [],
      flowLabels: [],
      findings: instructionFindings(inst.text),
    });
  }
  const labelled = scanToolTargets(set.tools, policy, policyName, declared, results);
  for (const r of results) applyRuleGrades(r.findings, grades);

  const now = options.now ?? new Date();
  const list = options.suppressions ?? [];
  const live = list.filter((s) => !isExpired(s, now));
  const applied = new Set<Suppression>();
  const match = live.length === 0 ? undefined : indexSuppressions(live);
  if (match !== undefined) suppressToolFindings(results, match, applied);
  const flows = flowResults(
    detectToxicFlows(labelled, {
      maxLegTools: options.flows?.maxLegTools,
      accept: match === undefined ? undefined : flowAcceptance(match, applied),
    }),
  );
  for (const r of flows) {
    applyRuleGrades(r.findings, grades);
    results.push(r);
  }
  const suppressions = {
    applied: live.filter((s) => applied.has(s)),
    expired: list.filter((s) => isExpired(s, now)),
    unused: live.filter((s) => !applied.has(s)),
  };
  return summarise(set, policyName, results, suppressions);
}

/** The per-tool rules; returns each tool with its flow labels for the set analysis. */
function scanToolTargets(
  tools: readonly LoadedTool[],
  policy: SecurityPolicy,
  policyName: string,
  declared: FlowLabelMatcher,
  results: TargetResult[],
): LabelledTool[] {
  const compiled = compilePolicy(policy);
  const names = nameFindings(tools, definitionKeys(tools));
  const inference = { annotationsMayNarrow: policy.capabilities.annotationsMayNarrow };
  // Texts found clean in one tool are not read again for the next (real listings repeat
  // parameter descriptions); dropped when this call returns.
  const clean = new CleanTexts();
  const labelled: LabelledTool[] = [];
  for (let i = 0; i < tools.length; i++) {
    const loaded = tools[i]!;
    const def = loaded.definition;
    const profile = inferCapabilities(def, inference);
    const findings = policyFindings(def.name, loaded.server, profile, compiled, policyName);
    for (const f of toolPoisoningFindings(def, clean)) findings.push(f);
    schemaFindings(def, profile, findings);
    issuerFindings(def, findings);
    annotationFindings(def, profile, findings);
    const named = names.get(i);
    if (named !== undefined) for (const f of named) findings.push(f);
    if (!isSortedByCode(findings)) findings.sort(byCode);
    const flowLabels = judgeFlowLabels(def, loaded.server, profile, declared);
    labelled.push({
      tool: def.name,
      server: loaded.server,
      source: loaded.source,
      labels: flowLabels,
    });
    results.push({
      kind: "tool",
      name: def.name,
      server: loaded.server,
      source: loaded.source,
      grade: "pass",
      capabilities: profile.capabilities,
      flowLabels,
      findings,
    });
  }
  return labelled;
}

/** Grades, counts and the exit code over every result and input problem. */
function summarise(
  set: ToolSet,
  policyName: string,
  results: TargetResult[],
  suppressions: ScanReport["suppressions"],
): ScanReport {
  let worst = 0;
  let failed = 0;
  let warned = 0;
  let passed = 0;
  for (const r of results) {
    let g = 0;
    for (const f of r.findings) if (!f.suppressed) g = Math.max(g, RANK[f.grade]);
    r.grade = g === 2 ? "fail" : g === 1 ? "warn" : "pass";
    if (g === 2) failed++;
    else if (g === 1) warned++;
    else passed++;
    worst = Math.max(worst, g);
  }
  for (const p of set.problems) {
    if (p.severity === "error") worst = 2;
    else if (p.severity === "warning") worst = Math.max(worst, 1);
  }
  const exitCode = worst as 0 | 1 | 2;
  return {
    schemaVersion: 1,
    policy: policyName,
    exitCode,
    grade: exitCode === 2 ? "fail" : exitCode === 1 ? "warn" : "pass",
    failed,
    warned,
    passed,
    toolCount: set.tools.length,
    results,
    problems: set.problems,
    suppressions,
  };
}

const byCode = (a: Finding, b: Finding) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0);

/** Most tools have at most one finding per code, already in order: no sort needed then. */
function isSortedByCode(findings: readonly Finding[]): boolean {
  for (let i = 1; i < findings.length; i++)
    if (findings[i - 1]!.code > findings[i]!.code) return false;
  return true;
}

/** Mark the tool findings a live suppression covers; record the suppressions used. */
function suppressToolFindings(
  results: TargetResult[],
  match: SuppressionMatcher,
  applied: Set<Suppression>,
): void {
  for (const r of results) {
    if (r.kind !== "tool") continue;
    for (const f of r.findings) {
      const s = match(r.name, f.code, r.server);
      if (s) {
        f.suppressed = { reason: s.reason, expires: s.expires ?? null };
        applied.add(s);
      }
    }
  }
}

/**
 * A suppression of SCAN014/SCAN015 names one tool: it takes that tool off the legs of
 * that flow (flows/toxic.ts), found by the same index as the tool findings' suppressions.
 */
function flowAcceptance(match: SuppressionMatcher, applied: Set<Suppression>) {
  return (code: RuleCode, tool: string, server: string | null) => {
    const s = match(tool, code, server);
    if (s === undefined) return null;
    applied.add(s);
    return { reason: s.reason, expires: s.expires ?? null };
  };
}

/**
 * Accept a `ToolSet`, an array of definitions, or a listing (`{ tools: [...] }`, such as
 * an SDK `ListToolsResult`). Anything else, and any entry that is not a readable tool,
 * becomes an input error rather than an exception.
 */
function toToolSet(input: unknown): ToolSet {
  if (Array.isArray(input)) return fromArray(input);
  if (!isObject(input) || !Array.isArray(input.tools)) {
    return {
      tools: [],
      instructions: [],
      problems: [
        {
          severity: "error",
          code: "INPUT_INVALID",
          source: "memory",
          message: "memory: not a tool set, a listing or an array of tools",
        },
      ],
      sources: [],
    };
  }
  const looksLoaded = Array.isArray(input.problems) && Array.isArray(input.instructions);
  if (!looksLoaded) return fromArray(input.tools);
  const set = input as unknown as ToolSet;
  const tools: LoadedTool[] = [];
  const problems: InputProblem[] = [...set.problems];
  set.tools.forEach((t, i) => {
    const def = isObject(t) ? t.definition : undefined;
    if (isObject(def) && typeof def.name === "string" && def.name !== "") tools.push(t);
    else problems.push(entryError(i, "a loaded tool without a readable definition"));
  });
  const instructions = set.instructions.filter((x) => isObject(x) && typeof x.text === "string");
  return { tools, instructions, problems, sources: Array.isArray(set.sources) ? set.sources : [] };
}

/** Turn an array of definitions into a tool set; unreadable entries become input errors. */
function fromArray(list: readonly unknown[]): ToolSet {
  const tools: LoadedTool[] = [];
  const problems: InputProblem[] = [];
  list.forEach((entry, i) => {
    let value = entry;
    try {
      const toJSON = isObject(entry) ? entry.toJSON : undefined;
      if (typeof toJSON === "function") value = toJSON.call(entry);
    } catch (err) {
      problems.push(entryError(i, `toJSON() threw (${(err as Error)?.message ?? String(err)})`));
      return;
    }
    if (!isObject(value)) {
      problems.push(entryError(i, "not an object"));
      return;
    }
    const name = Object.hasOwn(value, "name") ? value.name : undefined;
    if (typeof name !== "string" || name === "") {
      problems.push(entryError(i, "no non-empty string name"));
      return;
    }
    tools.push({ definition: value as ToolDefinition, source: "memory", server: null });
  });
  return { tools, instructions: [], problems, sources: ["memory"] };
}

function entryError(i: number, what: string): InputProblem {
  return {
    severity: "error",
    code: "ENTRY_INVALID",
    source: "memory",
    message: `memory#/${i}: ${what}`,
  };
}

/**
 * SCAN012's identity of a definition: its JSON text, so two tools are "the very same"
 * when their texts are equal. A definition JSON.stringify cannot write (too deep, cyclic)
 * is identical only to itself: the same object listed twice.
 */
function definitionKeys(tools: readonly LoadedTool[]): (index: number) => string {
  const unwritable = new Map<object, string>();
  return (index) => {
    const definition = tools[index]!.definition;
    try {
      return JSON.stringify(definition);
    } catch {
      // JSON text never starts with a NUL, so these keys meet no text.
      const key = unwritable.get(definition) ?? `\u0000${unwritable.size}`;
      unwritable.set(definition, key);
      return key;
    }
  };
}
