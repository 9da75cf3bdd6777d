/**
 * `agent-airlock/mcp`: tool-definition pins inside MCP clients and servers.
 *
 * Client side: {@link listToolsPinned}, {@link listAllToolsPinned}, {@link keepToolsPinned},
 * {@link PinnedClientTransport}. Server side: {@link createSecureMcpServer},
 * {@link secureServer}, {@link PinnedServerTransport}, {@link toolDefinitions},
 * {@link checkServerTools}.
 */

export * from "../proxy/index.js";
export {
  type ArgumentCheck,
  checkToolArguments,
  type UnknownArgumentsPolicy,
} from "./argument-guard.js";
export { McpClientUnsupportedError, McpOptionError, McpServerProbeError } from "./errors.js";
export {
  type KeepToolsPinnedOptions,
  keepToolsPinned,
  type PinnedToolSet,
} from "./keep-tools-pinned.js";
export { listAllTools } from "./list-all-tools.js";
export {
  type ListAllToolsPinnedOptions,
  type ListToolsPinnedOptions,
  listAllToolsPinned,
  listToolsPinned,
  type OnDrift,
} from "./list-tools.js";
export {
  PinnedClientTransport,
  type PinnedClientTransportOptions,
  type TransportRefusal,
} from "./pinned-client-transport.js";
export {
  PinnedServerTransport,
  type ServerGuardOptions,
  type ServerRefusal,
} from "./pinned-server-transport.js";
export { rawToolsList } from "./raw-tools-list.js";
export {
  AIRLOCK_BLOCK,
  type BlockedToolResult,
  blockedToolResult,
  LISTING_REFUSED_ERROR_CODE,
} from "./refusal.js";
export {
  type CreateSecureMcpServerOptions,
  createSecureMcpServer,
  type SecuredServer,
  type SecureMcpServer,
  type SecureServerOptions,
  type SecureToolRegistrar,
  secureServer,
} from "./secure-server.js";
export {
  type ConnectableServer,
  checkServerTools,
  type ServerToolJudgement,
  toolDefinitions,
} from "./server-tools.js";
export {
  type McpClientKind,
  type McpToolClient,
  type ToolPageSource,
  type ToolsListRequest,
  toolPageSource,
} from "./tool-page-source.js";
export {
  type CollectedToolPages,
  collectToolPages,
  DEFAULT_MAX_PAGES,
  type ToolListing,
} from "./tool-pages.js";
