/**
 * Flow labels and toxic flows, the public part (re-exported by `agent-airlock/scan`):
 * `inferFlowLabels` labels one tool, `detectToxicFlows` finds the combinations a set of
 * labelled tools fills. The matching and the word lists stay private.
 */
export { type FlowLabelOptions, inferFlowLabels } from "./infer.js";
export { FLOW_LABELS } from "./labels.js";
export {
  DEFAULT_MAX_LEG_TOOLS,
  detectToxicFlows,
  type FlowAcceptance,
  type LabelledTool,
  TOXIC_FLOWS,
  type ToxicFlow,
  type ToxicFlowOptions,
  type ToxicFlowRule,
} from "./toxic.js";
export type {
  FlowLabel,
  FlowLabelEntry,
  FlowLabelEvidence,
  FlowLabelSource,
  FlowLeg,
  FlowLegTool,
  FlowPolicy,
  ToxicFlowDetail,
  ToxicFlowId,
} from "./types.js";
