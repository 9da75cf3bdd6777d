/**
 * `agent-airlock/scan`: the static contract checker behind `airlock scan-tools`. Load
 * tool declarations from any supported input, check them against a least-privilege
 * policy, and render the report as text, JSON, SARIF or Markdown.
 *
 * @example
 * ```ts
 * import { formatText, loadToolDefs, resolvePolicy, scanTools } from "agent-airlock/scan";
 * const report = scanTools(await loadToolDefs("examples/data/scan/tools.json"), resolvePolicy("read-only"));
 * process.stdout.write(formatText(report, { color: false }));
 * ```
 */
export { CAPABILITIES, type CapabilityProfile, inferCapabilities } from "./capabilities.js";
export { nameSkeleton } from "./confusables.js";
export {
  ScanInputError,
  type ScanInputErrorCode,
  ScanOptionsError,
  ScanPolicyError,
  type ScanPolicyErrorCode,
  ScanSuppressionsError,
} from "./errors.js";
export { type Extracted, extractToolDefs, type InputForm } from "./extract.js";
export {
  DEFAULT_MAX_LEG_TOOLS,
  detectToxicFlows,
  FLOW_LABELS,
  type FlowAcceptance,
  type FlowLabel,
  type FlowLabelEntry,
  type FlowLabelEvidence,
  type FlowLabelOptions,
  type FlowLabelSource,
  type FlowLeg,
  type FlowLegTool,
  type FlowPolicy,
  inferFlowLabels,
  type LabelledTool,
  TOXIC_FLOWS,
  type ToxicFlow,
  type ToxicFlowDetail,
  type ToxicFlowId,
  type ToxicFlowOptions,
  type ToxicFlowRule,
} from "./flows/index.js";
export { formatJson, REPORT_SCHEMA_ID } from "./format-json.js";
export { formatMarkdown, type MarkdownOptions } from "./format-markdown.js";
export { formatSarif, toSarif } from "./format-sarif.js";
export { formatText, type TextOptions } from "./format-text.js";
export { KNOWN_CONFIG_NAMES, type LoadOptions, loadToolDefs, parseToolDefs } from "./load.js";
export {
  detectInjection,
  detectInjectionInTool,
  type InjectionFinding,
  type InjectionSignal,
  MAX_FINDINGS_PER_TEXT,
  MAX_TEXT_LENGTH,
  MAX_TEXT_WALK_DEPTH,
  MAX_TEXT_WALK_NODES,
  MAX_TOOL_TEXT_LENGTH,
  type TextSite,
} from "./poisoning/index.js";
export {
  CAMOUFLAGE_RESISTANT_POLICY,
  type CapabilityPolicy,
  PERMISSIVE_POLICY,
  POLICIES,
  POLICY_NAMES,
  type PolicyName,
  READ_ONLY_POLICY,
  resolvePolicy,
  type SecurityPolicy,
  STRICT_POLICY,
} from "./policy.js";
export { loadPolicyFile, parsePolicy } from "./policy-file.js";
export { RULE_CODES, RULES, type RuleInfo } from "./rules/catalog.js";
export { issuerProblem } from "./rules/issuer.js";
export { MAX_NAMED_COLLISIONS } from "./rules/names.js";
export { type ScanOptions, scanTools } from "./scan.js";
export { MAX_SCHEMA_DEPTH, MAX_SCHEMA_NODES } from "./schema-walk.js";
export { loadSuppressions, parseSuppressions } from "./suppressions.js";
export { wordTokens } from "./tokens.js";
export type {
  CapabilitySource,
  Finding,
  Grade,
  InferredCapability,
  InputProblem,
  LoadedTool,
  NameCollision,
  NameRelation,
  Origin,
  RuleCode,
  RuleGrades,
  ScanReport,
  ServerInstructions,
  Suppression,
  SuppressionOutcome,
  TargetResult,
  ToolSet,
} from "./types.js";
