export {
  type CachedGuardedMcpClient,
  type GuardedMcpClient,
  type GuardMcpClientCachedOptions,
  type GuardMcpClientOptions,
  guardMcpClient,
  guardMcpClientCached,
  type McpToolsClient,
} from "../integrations/mcp-client.js";
export {
  type GuardedMcpToolsClient,
  type GuardMcpToolsClientOptions,
  guardMcpToolsClient,
  type McpToolsSource,
} from "../integrations/mcp-tools-client.js";
export { type OnRefusal, refusalMessage } from "../integrations/refusal.js";
export {
  type AttestMismatch,
  type AttestResult,
  attestMcpPins,
  MAX_ATTESTED_TOOLS,
  type McpInspector,
} from "./attest.js";
export * from "./capability.js";
export * from "./delegation/errors.js";
export * from "./delegation/issue.js";
export {
  decodeLink,
  LINK_TYPE,
  type LinkClaims,
  LinkFormatError,
  type LinkHeader,
  linkDigest,
} from "./delegation/link.js";
export * from "./delegation/verify.js";
export * from "./did/did-key.js";
export { type DidWebResolverOptions, didWebResolver, didWebUrl } from "./did/did-web.js";
export * from "./did/keys.js";
export * from "./did/resolver.js";
export * from "./didis-client.js";
export type { DidisErrorLogger } from "./didis-http.js";
export {
  type RunningDidisServer,
  type StartDidisServerOptions,
  startDidisServer,
} from "./didis-listener.js";
export type { DidisRequestLog, DidisRequestLogger } from "./didis-request-log.js";
export * from "./didis-server.js";
export {
  DEFAULT_HEADERS_TIMEOUT_MS,
  DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_SHUTDOWN_TIMEOUT_MS,
  type DidisServerLimits,
} from "./didis-server-limits.js";
export * from "./didis-verifier.js";
export {
  TOOL_GUARD_ERROR_CODES,
  ToolGuardError,
  type ToolGuardErrorCode,
  type ToolGuardErrorDetail,
} from "./errors.js";
export * from "./local-verifier.js";
export { pinToolDefinitions, type ToolPins } from "./pin-definitions.js";
export * from "./registry/file.js";
export * from "./registry/memory.js";
export { openPostgresRegistry, PostgresRegistry } from "./registry/postgres.js";
export {
  DEFAULT_POSTGRES_CONNECT_TIMEOUT_MS,
  DEFAULT_POSTGRES_POOL_SIZE,
  DEFAULT_POSTGRES_QUERY_TIMEOUT_MS,
  type PostgresConnectionOptions,
  type PostgresRegistryOptions,
  type PostgresTlsOptions,
} from "./registry/postgres-options.js";
export {
  DEFAULT_MAX_CHAINS_PER_AGENT,
  type DelegationRegistry,
  type RegisteredChain,
  type RegistryLimits,
} from "./registry/registry.js";
export * from "./registry/sqlite.js";
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
