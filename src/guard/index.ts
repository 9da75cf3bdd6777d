export * from "./capability.js";
export {
  TOOL_GUARD_ERROR_CODES,
  ToolGuardError,
  type ToolGuardErrorCode,
  type ToolGuardErrorDetail,
} from "./errors.js";
export { pinToolDefinitions, type ToolPins } from "./pin-definitions.js";
export {
  createToolGuard,
  type DefinitionSource,
  MAX_CACHED_ALLOWS,
  type ToolCheck,
  type ToolGuard,
  type ToolGuardDecision,
  type ToolGuardOptions,
  type WithToolGuardOptions,
  withToolGuard,
} from "./tool-guard.js";
export type { DelegationVerifier, VerifyToolRequest, VerifyToolResult } from "./verifier.js";
