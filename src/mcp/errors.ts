import { AirlockError } from "../errors.js";

/**
 * The object handed to a client helper is not an MCP client agent-airlock knows how to
 * page: not an `@modelcontextprotocol/sdk` 1.x `Client`, an `@modelcontextprotocol/client`
 * 2.x `Client`, an `@ai-sdk/mcp` client, nor a `request(params) => result` function.
 * Code `MCP_CLIENT_UNSUPPORTED`.
 *
 * @example
 * ```ts
 * import { ToolDefinitionPinGuard } from "agent-airlock";
 * import { McpClientUnsupportedError, listToolsPinned } from "agent-airlock/mcp";
 * try {
 *   await listToolsPinned({}, new ToolDefinitionPinGuard());
 * } catch (err) {
 *   if (err instanceof McpClientUnsupportedError) console.log(err.code); // "MCP_CLIENT_UNSUPPORTED"
 * }
 * ```
 */
export class McpClientUnsupportedError extends AirlockError {
  declare readonly code: "MCP_CLIENT_UNSUPPORTED";
  constructor(message: string) {
    super("MCP_CLIENT_UNSUPPORTED", message);
  }
}

/**
 * An option passed to an `agent-airlock/mcp` helper is out of range (for example
 * `maxPages: 0` or an unknown `onDrift`). Code `MCP_INVALID_OPTION`.
 *
 * @example
 * ```ts
 * import { ToolDefinitionPinGuard } from "agent-airlock";
 * import { McpOptionError, listAllToolsPinned } from "agent-airlock/mcp";
 * try {
 *   await listAllToolsPinned(async () => ({ tools: [] }), new ToolDefinitionPinGuard(), { maxPages: 0 });
 * } catch (err) {
 *   if (err instanceof McpOptionError) console.log(err.code); // "MCP_INVALID_OPTION"
 * }
 * ```
 */
export class McpOptionError extends AirlockError {
  declare readonly code: "MCP_INVALID_OPTION";
  constructor(message: string) {
    super("MCP_INVALID_OPTION", message);
  }
}

/**
 * agent-airlock could not read a server's own tool listing (it did not answer
 * `initialize` or `tools/list`, answered with an error, or is already connected to
 * another transport). Code `MCP_SERVER_PROBE_FAILED`. The server is never treated as
 * having no tools: callers refuse instead.
 *
 * @example
 * ```ts
 * import { McpServerProbeError, toolDefinitions } from "agent-airlock/mcp";
 * try {
 *   await toolDefinitions({ connect: async () => { throw new Error("busy"); } });
 * } catch (err) {
 *   if (err instanceof McpServerProbeError) console.log(err.code); // "MCP_SERVER_PROBE_FAILED"
 * }
 * ```
 */
export class McpServerProbeError extends AirlockError {
  declare readonly code: "MCP_SERVER_PROBE_FAILED";
  /** The JSON-RPC error code, when the server answered with an error. */
  readonly rpcCode: number | undefined;
  constructor(message: string, options?: { cause?: unknown; rpcCode?: number }) {
    super("MCP_SERVER_PROBE_FAILED", message, options);
    this.rpcCode = options?.rpcCode;
  }
}
