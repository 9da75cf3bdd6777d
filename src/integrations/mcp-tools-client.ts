/**
 * An MCP client facade for code that builds tools from a client's `listTools()` and runs
 * them with its `callTool()`, such as LangChain's `loadMcpTools` (`@langchain/mcp-adapters`):
 * the listing holds only the capability table's tools that match their pins, and every
 * call checks the definition served at that moment and the agent's delegation before the
 * server is called. The client passed in is not modified.
 *
 * @module
 */
import { ToolGuardError } from "../guard/errors.js";
import type { ToolGuard } from "../guard/tool-guard.js";
import type { OnDrift } from "../mcp/list-tools.js";
import { readAdapterSettings, requireClientMethods } from "./mcp-client.js";
import { admittedDefinitions, listingByName, uniqueDefinition } from "./mcp-listing.js";
import { type OnRefusal, readOnRefusal, refusalMessage } from "./refusal.js";

/** What {@link guardMcpToolsClient} needs of an MCP client (SDK 1.x or 2.x `Client`). */
export interface McpToolsSource {
  listTools(params?: { cursor?: string }, options?: unknown): Promise<unknown>;
  callTool(
    params: { name: string; arguments?: Record<string, unknown> },
    ...rest: unknown[]
  ): Promise<unknown>;
}

/** Options of {@link guardMcpToolsClient}. */
export interface GuardMcpToolsClientOptions {
  /** The guard (agent, root, verifier, pins) every call is checked against. */
  guard: ToolGuard;
  /**
   * Tool name to capability. Only these tools are listed; every other tool the server
   * lists stays out, description and all, and a call to one is refused.
   */
  capabilities: Readonly<Record<string, string>>;
  /**
   * A listed tool of the table whose definition is not its pin (or that the server lists
   * twice): `"raise"` (default) rejects the listing with its {@link ToolGuardError},
   * `"filter"` leaves the tool out.
   */
  onDrift?: OnDrift;
  /**
   * On a refused call: an MCP error result whose text is `Blocked by policy (CODE). Do not
   * retry this tool.` (`"message"`, default: the model reads it) or the error is thrown.
   */
  onRefusal?: OnRefusal;
  /** Most `tools/list` pages followed, per listing and per call. Default 100. */
  maxPages?: number;
}

/** The facade: the two methods tool loaders use, guarded. */
export interface GuardedMcpToolsClient {
  /** Every admitted tool, in one page (no `nextCursor`). */
  listTools(params?: { cursor?: string }): Promise<{ tools: unknown[] }>;
  /** Check, then `tools/call` through the real client (extra arguments are passed on). */
  callTool(
    params: { name: string; arguments?: Record<string, unknown> },
    ...rest: unknown[]
  ): Promise<unknown>;
}

/** The called tool's name, when it is one of the table's; a `GUARD_MISCONFIGURED` refusal otherwise. */
function toolNameOf(params: unknown, capabilities: ReadonlyMap<string, string>): string {
  let name: unknown;
  try {
    name = (params as { name?: unknown } | null)?.name;
  } catch (cause) {
    throw new ToolGuardError(
      "GUARD_MISCONFIGURED",
      undefined,
      "the call could not be read",
      {},
      { cause },
    );
  }
  if (typeof name !== "string" || !capabilities.has(name)) {
    throw new ToolGuardError(
      "GUARD_MISCONFIGURED",
      typeof name === "string" ? name : undefined,
      `tool ${JSON.stringify(name)} has no capability in the table: add it to capabilities to allow it`,
    );
  }
  return name;
}

/**
 * Guard an MCP client for tool loaders. `listTools()` pages the server itself and returns,
 * in one page, the tools named in `capabilities` whose served definitions match their
 * pins (`guard.checkDefinition`); `callTool(params, ...rest)` refuses a tool outside the
 * table, lists the server again, checks that definition and the delegation
 * (`guard.check`), and only then calls the real client with the same arguments.
 *
 * Pin the definitions as this client's `listTools()` returns them.
 *
 * @throws {ToolGuardError} `GUARD_MISCONFIGURED` when the client or an option is invalid.
 * @example
 * ```ts
 * import { loadMcpTools } from "@langchain/mcp-adapters";
 * import { guardMcpToolsClient } from "agent-airlock/guard";
 * // client: a connected @modelcontextprotocol/sdk Client; guard: createToolGuard({ ..., pins })
 * const guarded = guardMcpToolsClient(client, { guard, capabilities: { get_forecast: "weather:forecast" } });
 * const tools = await loadMcpTools("weather", guarded as never);
 * ```
 */
export function guardMcpToolsClient(
  client: McpToolsSource,
  options: GuardMcpToolsClientOptions,
): GuardedMcpToolsClient {
  requireClientMethods(
    client,
    ["listTools", "callTool"],
    "guardMcpToolsClient needs an MCP client with listTools() and callTool()",
  );
  const { guard, capabilities, maxPages, onDrift } = readAdapterSettings(options);
  const onRefusal = readOnRefusal(options.onRefusal);

  async function listTools(): Promise<{ tools: unknown[] }> {
    const admitted = await admittedDefinitions(client, capabilities, guard, { onDrift, maxPages });
    // Copies: a loader may write into what it is given (LangChain's does).
    return { tools: admitted.map((definition) => structuredClone(definition)) };
  }

  async function callTool(
    params: { name: string; arguments?: Record<string, unknown> },
    ...rest: unknown[]
  ): Promise<unknown> {
    let tool: string;
    try {
      tool = toolNameOf(params, capabilities);
      const capability = capabilities.get(tool)!;
      await guard.check({
        tool,
        capability,
        definition: async () => uniqueDefinition(await listingByName(client, maxPages), tool),
      });
    } catch (err) {
      if (onRefusal === "message" && err instanceof ToolGuardError) {
        return { isError: true, content: [{ type: "text", text: refusalMessage(err) }] };
      }
      throw err;
    }
    // The name checked is the name called, whatever a getter on `params` would say now.
    return client.callTool({ ...params, name: tool }, ...rest);
  }

  return Object.freeze({ listTools, callTool });
}
