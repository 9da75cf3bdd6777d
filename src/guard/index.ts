export * from "./capability.js";
export type { DelegationVerifier, VerifyToolRequest, VerifyToolResult } from "./verifier.js";
