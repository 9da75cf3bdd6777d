/**
 * The types of flow labels and toxic flows. A flow label says what a tool can contribute
 * to an attack that chains honest tools: read private data, bring in text an outsider
 * wrote, send data where outsiders read it, destroy something. A toxic flow is a
 * combination of labels that the tools of one input fill together (SCAN014, SCAN015).
 */

/**
 * What a tool can contribute to a chain of tools (docs/toxic-flows.md):
 *
 * - `private-data`: returns the user's or the organisation's non-public data.
 * - `untrusted-content`: returns text that outsiders can write.
 * - `public-sink`: can put data where outsiders can read it, or send it to an address
 *   the model chooses.
 * - `destructive`: deletes, overwrites, runs code, or makes another change that cannot
 *   be taken back.
 */
export type FlowLabel = "private-data" | "untrusted-content" | "public-sink" | "destructive";

/**
 * Where a label came from, most authoritative first: a policy file entry, the tool's own
 * `capabilities` list, an MCP annotation, an inferred capability, the name, an argument,
 * the description.
 */
export type FlowLabelSource =
  | "policy"
  | "explicit"
  | "annotation"
  | "capability"
  | "name"
  | "argument"
  | "description";

/** One label of one tool and the first reason for it. */
export interface FlowLabelEvidence {
  label: FlowLabel;
  source: FlowLabelSource;
  /** The entry, capability, annotation, token or argument that gave the label. */
  evidence: string;
}

/**
 * One policy entry that labels tools: a tool glob as in the policy's `allow` (a glob with
 * a `/` matches `server/tool`) and the labels it sets. The first entry that matches a
 * tool replaces the tool's inferred labels; an empty list means "no label".
 */
export interface FlowLabelEntry {
  tools: string;
  labels: readonly FlowLabel[];
}

/** The flow part of a policy (`SecurityPolicy.flows`). */
export interface FlowPolicy {
  /** Label corrections, first match wins. */
  labels: readonly FlowLabelEntry[];
}

/** One tool named on a leg of a toxic flow. */
export interface FlowLegTool {
  tool: string;
  server: string | null;
  source: string;
  /** Why the tool has the leg's label (`name token "fetch"`, `policy flows.labels "x"`). */
  evidence: string;
  /** Present when a suppression takes this tool off this flow's legs. */
  accepted?: { reason: string; expires: string | null };
}

/** Which tools fill one label of a toxic flow: a capped list and the counts. */
export interface FlowLeg {
  label: FlowLabel;
  /** Tools with the label. */
  count: number;
  /** Of those, the tools a suppression took off this flow (all of them: the finding is suppressed). */
  accepted: number;
  /** Tools listed (round robin over the servers, so each server shows), at most the cap. */
  tools: FlowLegTool[];
  /** Tools with the label that are not listed. */
  more: number;
  /** Tools per server, most first (at most the cap; `moreServers` counts the rest). */
  servers: { server: string | null; count: number }[];
  moreServers: number;
}

/** The detail of a SCAN014/SCAN015 finding: its flow id and its legs, in the flow's order. */
export interface ToxicFlowDetail {
  id: ToxicFlowId;
  legs: FlowLeg[];
}

/** The toxic combinations the set analysis reports, each with its own rule code. */
export type ToxicFlowId = "exfiltration-path" | "destructive-injection-path";
