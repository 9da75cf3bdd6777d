/**
 * The set-level analysis: which toxic combinations the tools of one input fill together,
 * across servers. Each combination is reported once, per leg: which tools can fill each
 * label (a capped list, round robin over the servers, with counts), never one finding per
 * permutation. One pass to bucket the tools by label, one to list each leg: linear in the
 * number of tools.
 */
import { ScanOptionsError } from "../errors.js";
import type { RuleCode } from "../types.js";
import { isFlowLabel } from "./labels.js";
import type {
  FlowLabel,
  FlowLabelEvidence,
  FlowLeg,
  FlowLegTool,
  ToxicFlowDetail,
  ToxicFlowId,
} from "./types.js";

/** One toxic combination: its id, its rule code, and the labels its legs need. */
export interface ToxicFlowRule {
  id: ToxicFlowId;
  code: RuleCode;
  /** Human name of the combination. */
  title: string;
  legs: readonly FlowLabel[];
}

/**
 * The toxic combinations, each with its own stable code: an exfiltration path
 * (untrusted content, private data and a public sink) and a destructive injection path
 * (untrusted content and a destructive tool).
 *
 * @example
 * ```ts
 * import { TOXIC_FLOWS } from "agent-airlock/scan";
 * console.log(TOXIC_FLOWS.map((f) => `${f.code} ${f.id}`)); // ["SCAN014 exfiltration-path", "SCAN015 destructive-injection-path"]
 * ```
 */
export const TOXIC_FLOWS: readonly ToxicFlowRule[] = Object.freeze([
  Object.freeze({
    id: "exfiltration-path" as const,
    code: "SCAN014" as const,
    title: "exfiltration path",
    legs: Object.freeze(["untrusted-content", "private-data", "public-sink"] as const),
  }),
  Object.freeze({
    id: "destructive-injection-path" as const,
    code: "SCAN015" as const,
    title: "destructive injection path",
    legs: Object.freeze(["untrusted-content", "destructive"] as const),
  }),
]);

/** One tool of the input with its flow labels (what `inferFlowLabels` returns). */
export interface LabelledTool {
  tool: string;
  server: string | null;
  source: string;
  labels: readonly FlowLabelEvidence[];
}

/** A suppression's verdict on one tool of one flow: taken off the legs, with why. */
export type FlowAcceptance = { reason: string; expires: string | null } | null;

/** Options of {@link detectToxicFlows}. */
export interface ToxicFlowOptions {
  /** Tools listed per leg, and servers counted per leg (default {@link DEFAULT_MAX_LEG_TOOLS}). */
  maxLegTools?: number;
  /**
   * Whether a suppression takes a tool off the legs of a flow (default: none does). An
   * accepted tool is still listed, after the others, and marked.
   */
  accept?: (code: RuleCode, tool: string, server: string | null) => FlowAcceptance;
}

/**
 * Tools listed per leg of a toxic flow by default.
 *
 * @example
 * ```ts
 * import { DEFAULT_MAX_LEG_TOOLS } from "agent-airlock/scan";
 * console.log(DEFAULT_MAX_LEG_TOOLS); // 10
 * ```
 */
export const DEFAULT_MAX_LEG_TOOLS = 10;
const MAX_LEG_TOOLS_LIMIT = 1000;

/** A toxic combination the tools fill, and whether suppressions emptied one of its legs. */
export interface ToxicFlow extends ToxicFlowDetail {
  code: RuleCode;
  title: string;
  /**
   * Set when suppressions accepted every tool of a leg: the finding is suppressed, with
   * the leg, the accepting reasons and the earliest expiry among them (null: none expires).
   */
  suppressed: { label: FlowLabel; reason: string; expires: string | null } | null;
}

/**
 * Every toxic combination the tools fill together: a combination is found when each of
 * its labels is carried by at least one tool (one tool may fill several legs). Bounded
 * work: one pass over the tools, and each leg lists at most `maxLegTools` tools. Throws
 * `SCAN_OPTIONS_INVALID` for a `maxLegTools` that is not an integer from 1 to 1000, an
 * `accept` that is not a function, or a tool that is not labelled as `inferFlowLabels`
 * labels it (named by its index).
 *
 * @example
 * ```ts
 * import { detectToxicFlows } from "agent-airlock/scan";
 * const tool = (tool: string, ...labels: string[]) => ({
 *   tool, server: null, source: "memory",
 *   labels: labels.map((label) => ({ label, source: "policy", evidence: "example" })),
 * });
 * const flows = detectToxicFlows([
 *   tool("fetch", "untrusted-content", "public-sink"),
 *   tool("read_file", "private-data"),
 * ] as never);
 * console.log(flows.map((f) => f.id)); // ["exfiltration-path"]
 * ```
 */
export function detectToxicFlows(
  tools: readonly LabelledTool[],
  options: ToxicFlowOptions = {},
): ToxicFlow[] {
  const cap = readMaxLegTools(options.maxLegTools);
  if (options.accept !== undefined && typeof options.accept !== "function")
    throw new ScanOptionsError("flows.accept must be a function or undefined");
  if (!Array.isArray(tools))
    throw new ScanOptionsError("detectToxicFlows: tools must be an array of labelled tools");
  const byLabel = new Map<FlowLabel, { tool: LabelledTool; evidence: string }[]>();
  for (let i = 0; i < tools.length; i++) {
    const t = tools[i];
    assertLabelled(t, i);
    for (const l of t.labels) {
      const list = byLabel.get(l.label);
      if (list === undefined) byLabel.set(l.label, [{ tool: t, evidence: l.evidence }]);
      else list.push({ tool: t, evidence: l.evidence });
    }
  }
  const out: ToxicFlow[] = [];
  for (const rule of TOXIC_FLOWS) {
    if (!rule.legs.every((l) => (byLabel.get(l)?.length ?? 0) > 0)) continue;
    const legs = rule.legs.map((label) =>
      legOf(label, byLabel.get(label)!, rule.code, cap, options),
    );
    const emptied = legs.find((l) => l.leg.accepted === l.leg.count);
    out.push({
      id: rule.id,
      code: rule.code,
      title: rule.title,
      legs: legs.map((l) => l.leg),
      suppressed:
        emptied === undefined
          ? null
          : {
              label: emptied.leg.label,
              reason: `every ${emptied.leg.label} tool is accepted: ${[...emptied.reasons].join("; ")}`,
              expires: emptied.expires,
            },
    });
  }
  return out;
}

/** A labelled tool as `inferFlowLabels` gives it; anything else is refused, never skipped. */
function assertLabelled(t: unknown, i: number): asserts t is LabelledTool {
  const problem = labelledProblem(t);
  if (problem !== null) throw new ScanOptionsError(`detectToxicFlows: tools[${i}] ${problem}`);
}

function labelledProblem(t: unknown): string | null {
  if (typeof t !== "object" || t === null) return "is not an object";
  const x = t as Record<string, unknown>;
  if (typeof x.tool !== "string") return "has no string tool name";
  if (x.server !== null && typeof x.server !== "string") return "server must be a string or null";
  if (typeof x.source !== "string") return "has no string source";
  const labels = x.labels;
  if (!Array.isArray(labels)) return "labels must be an array";
  for (let j = 0; j < labels.length; j++) {
    const l = labels[j];
    if (typeof l !== "object" || l === null || !isFlowLabel((l as { label?: unknown }).label))
      return "has a label that is not a flow label";
  }
  return null;
}

function readMaxLegTools(value: unknown): number {
  if (value === undefined) return DEFAULT_MAX_LEG_TOOLS;
  if (
    typeof value !== "number" ||
    !Number.isInteger(value) ||
    value < 1 ||
    value > MAX_LEG_TOOLS_LIMIT
  )
    throw new ScanOptionsError(
      `flows.maxLegTools must be an integer from 1 to ${MAX_LEG_TOOLS_LIMIT} (got ${String(value).slice(0, 40)})`,
    );
  return value;
}

/** One leg: accepted tools last, each part round robin over the servers in input order. */
function legOf(
  label: FlowLabel,
  members: readonly { tool: LabelledTool; evidence: string }[],
  code: RuleCode,
  cap: number,
  options: ToxicFlowOptions,
): { leg: FlowLeg; reasons: Set<string>; expires: string | null } {
  const open: FlowLegTool[][] = [];
  const taken: FlowLegTool[][] = [];
  const groupOf = new Map<string | null, { open: FlowLegTool[]; taken: FlowLegTool[] }>();
  const servers = new Map<string | null, number>();
  let accepted = 0;
  // The reasons (a few, distinct) and the earliest expiry of the accepting suppressions.
  const reasons = new Set<string>();
  let expires: string | null = null;
  for (const { tool, evidence } of members) {
    const entry: FlowLegTool = {
      tool: tool.tool,
      server: tool.server,
      source: tool.source,
      evidence,
    };
    const verdict = options.accept?.(code, tool.tool, tool.server) ?? null;
    let group = groupOf.get(tool.server);
    if (group === undefined) {
      group = { open: [], taken: [] };
      groupOf.set(tool.server, group);
      open.push(group.open);
      taken.push(group.taken);
    }
    if (verdict === null) group.open.push(entry);
    else {
      entry.accepted = verdict;
      group.taken.push(entry);
      accepted++;
      if (reasons.size < MAX_REASONS) reasons.add(verdict.reason);
      if (verdict.expires !== null && (expires === null || verdict.expires < expires))
        expires = verdict.expires;
    }
    servers.set(tool.server, (servers.get(tool.server) ?? 0) + 1);
  }
  const listed = roundRobin(open, cap);
  for (const t of roundRobin(taken, cap - listed.length)) listed.push(t);
  const ranked = topServers(servers, cap);
  const leg: FlowLeg = {
    label,
    count: members.length,
    accepted,
    tools: listed,
    more: members.length - listed.length,
    servers: ranked.map(([server, count]) => ({ server, count })),
    moreServers: servers.size - ranked.length,
  };
  return { leg, reasons, expires };
}

/** Distinct reasons quoted in a suppressed flow's reason. */
const MAX_REASONS = 5;

/**
 * The `cap` servers with the most tools, most first (first seen first among equals): one
 * pass that keeps a sorted list of at most `cap`, so many servers cost no sort.
 */
function topServers(
  servers: ReadonlyMap<string | null, number>,
  cap: number,
): [string | null, number][] {
  const top: [string | null, number][] = [];
  for (const entry of servers) {
    if (top.length === cap && top[cap - 1]![1] >= entry[1]) continue;
    let at = top.length;
    while (at > 0 && top[at - 1]![1] < entry[1]) at--;
    top.splice(at, 0, entry);
    if (top.length > cap) top.pop();
  }
  return top;
}

/** Up to `cap` items, one from each group in turn. */
function roundRobin(groups: readonly FlowLegTool[][], cap: number): FlowLegTool[] {
  const out: FlowLegTool[] = [];
  for (let round = 0; out.length < cap; round++) {
    let any = false;
    for (const g of groups) {
      if (round >= g.length) continue;
      any = true;
      out.push(g[round]!);
      if (out.length === cap) break;
    }
    if (!any) break;
  }
  return out;
}
