/**
 * The flow label corrections of a policy (`flows.labels`): each entry a tool glob and
 * the labels it sets, the first matching entry winning over inference. Compiled once per
 * policy; a policy object whose entries are not valid is refused here, so a hand-built
 * policy cannot label tools by accident.
 */
import picomatch from "picomatch";
import { ScanPolicyError } from "../errors.js";
import type { SecurityPolicy } from "../policy.js";
import { toolGlobTest } from "../policy-match.js";
import { isFlowLabel } from "./labels.js";
import type { FlowLabelEntry } from "./types.js";

/** A policy's label entries, compiled: the first entry that matches a tool, or null. */
export interface FlowLabelMatcher {
  match(name: string, server: string | null): FlowLabelEntry | null;
}

const NONE: FlowLabelMatcher = Object.freeze({ match: () => null });
const COMPILED = new WeakMap<SecurityPolicy, FlowLabelMatcher>();

/**
 * Compile `policy.flows.labels` (none: a matcher that never matches). Throws
 * `SCAN_POLICY_INVALID` naming the entry when an entry is not a non-empty glob with a
 * list of known, distinct labels.
 */
export function compileFlowLabels(policy: SecurityPolicy): FlowLabelMatcher {
  const cached = COMPILED.get(policy);
  if (cached !== undefined) return cached;
  const compiled = compile(policy);
  // Shipped and parsed policies are frozen: their entries cannot change after this.
  if (Object.isFrozen(policy)) COMPILED.set(policy, compiled);
  return compiled;
}

function compile(policy: SecurityPolicy): FlowLabelMatcher {
  const flows = (policy as { flows?: unknown }).flows;
  if (flows === undefined) return NONE;
  const entries = readFlowLabelEntries(flows, "policy.flows");
  if (entries.length === 0) return NONE;
  const tests = entries.map((entry) => ({ entry, test: toolGlobTest(entry.tools) }));
  return {
    match(name, server) {
      for (const t of tests) if (t.test(name, server)) return t.entry;
      return null;
    },
  };
}

/**
 * Validate the `flows` section of a policy (parsed JSON or a policy object) and return
 * its label entries, frozen copies. `where` names the section in messages.
 */
export function readFlowLabelEntries(flows: unknown, where: string): FlowLabelEntry[] {
  const fail = (what: string) => new ScanPolicyError("SCAN_POLICY_INVALID", `${where}${what}`);
  if (typeof flows !== "object" || flows === null || Array.isArray(flows))
    throw fail(" must be an object with a labels list");
  const labels = (flows as Record<string, unknown>).labels;
  for (const key of Object.keys(flows))
    if (key !== "labels") throw fail(`: unknown key ${JSON.stringify(key)} (allowed: labels)`);
  if (labels === undefined) return [];
  if (!Array.isArray(labels)) throw fail(".labels must be an array of {tools, labels}");
  return labels.map((entry, i) => readEntry(entry, `${where}.labels[${i}]`));
}

function readEntry(entry: unknown, at: string): FlowLabelEntry {
  const fail = (what: string) => new ScanPolicyError("SCAN_POLICY_INVALID", `${at}${what}`);
  if (typeof entry !== "object" || entry === null || Array.isArray(entry))
    throw fail(" must be an object {tools, labels}");
  const e = entry as Record<string, unknown>;
  for (const key of Object.keys(e))
    if (key !== "tools" && key !== "labels")
      throw fail(`: unknown key ${JSON.stringify(key)} (allowed: tools, labels)`);
  if (typeof e.tools !== "string" || e.tools.trim() === "")
    throw fail(".tools must be a non-empty tool glob");
  try {
    picomatch.makeRe(e.tools);
  } catch {
    throw fail(`.tools is not a valid glob: ${JSON.stringify(e.tools)}`);
  }
  if (!Array.isArray(e.labels)) throw fail(".labels must be an array of flow labels ([] for none)");
  const seen = new Set<string>();
  for (const [j, label] of e.labels.entries()) {
    if (!isFlowLabel(label))
      throw fail(
        `.labels[${j}] ${JSON.stringify(label)} is not a flow label (private-data, untrusted-content, public-sink, destructive)`,
      );
    if (seen.has(label)) throw fail(`.labels[${j}] ${JSON.stringify(label)} is listed twice`);
    seen.add(label);
  }
  return Object.freeze({
    tools: e.tools,
    labels: Object.freeze([...seen]) as FlowLabelEntry["labels"],
  });
}
