/** The closed list of flow labels, in the order reports show them. */
import type { FlowLabel } from "./types.js";

/**
 * Every flow label, in report order (see `FlowLabel` for what each means).
 *
 * @example
 * ```ts
 * import { FLOW_LABELS } from "agent-airlock/scan";
 * console.log(FLOW_LABELS.join(", ")); // "private-data, untrusted-content, public-sink, destructive"
 * ```
 */
export const FLOW_LABELS: readonly FlowLabel[] = Object.freeze([
  "private-data",
  "untrusted-content",
  "public-sink",
  "destructive",
]);

const KNOWN: ReadonlySet<string> = new Set(FLOW_LABELS);

/** Is `value` one of {@link FLOW_LABELS}? */
export const isFlowLabel = (value: unknown): value is FlowLabel =>
  typeof value === "string" && KNOWN.has(value);
