/**
 * SCAN014 and SCAN015: the toxic flows of the whole input (flows/toxic.ts) as report
 * results, one per combination found, each with one finding that names the tools on each
 * leg. A flow whose leg a suppression emptied stays in the report, suppressed.
 */

import type { ToxicFlow } from "../flows/toxic.js";
import type { FlowLeg, FlowLegTool } from "../flows/types.js";
import type { Finding, TargetResult } from "../types.js";
import { RULES } from "./catalog.js";

const WHAT: Readonly<Record<string, string>> = {
  "untrusted-content": "text outsiders write",
  "private-data": "read private data",
  "public-sink": "send it out",
  destructive: "delete, overwrite or run something",
};

/** One result per toxic flow, in `TOXIC_FLOWS` order. */
export function flowResults(flows: readonly ToxicFlow[]): TargetResult[] {
  return flows.map((flow) => {
    const finding: Finding = {
      code: flow.code,
      grade: RULES[flow.code].grade,
      message: messageOf(flow),
      flow: { id: flow.id, legs: flow.legs },
    };
    if (flow.suppressed !== null)
      finding.suppressed = { reason: flow.suppressed.reason, expires: flow.suppressed.expires };
    const last = flow.legs[flow.legs.length - 1]!;
    return {
      kind: "flow",
      name: flow.id,
      server: null,
      // Where SARIF places the finding: the file of the first tool named on the last leg.
      source: last.tools[0]?.source ?? "memory",
      grade: "pass",
      capabilities: [],
      flowLabels: [],
      findings: [finding],
    };
  });
}

const qualified = (t: FlowLegTool) => (t.server === null ? t.tool : `${t.server}/${t.tool}`);

function legPhrase(leg: FlowLeg): string {
  const example = leg.tools[0];
  return `${leg.count} tool${leg.count === 1 ? "" : "s"}${example === undefined ? "" : `, e.g. ${qualified(example)}`}`;
}

function messageOf(flow: ToxicFlow): string {
  const [source, ...rest] = flow.legs;
  const steps = rest.map((l) => `${WHAT[l.label]} (${legPhrase(l)})`).join(" and ");
  const servers = new Set(flow.legs.flatMap((l) => l.servers.map((s) => s.server)));
  const across = servers.size > 1 ? ` across ${servers.size} servers` : "";
  return `${flow.title}${across}: ${WHAT[source!.label]} (${legPhrase(source!)}) can steer the agent to ${steps}`;
}
