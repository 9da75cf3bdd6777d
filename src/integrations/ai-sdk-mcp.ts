/**
 * Vercel AI SDK with an MCP server (`@ai-sdk/mcp`): the tools the server lists become AI
 * SDK tools only when they are in the capability table and match their pins, and every
 * call checks the definition served at that moment and the delegation before the server
 * is called. `@ai-sdk/mcp` is not imported: the client is used through its public
 * methods.
 *
 * @module
 */
import { ToolGuardError } from "../guard/errors.js";
import type { ToolGuard } from "../guard/tool-guard.js";
import type { OnDrift } from "../mcp/list-tools.js";
import { guardAiSdkTool } from "./ai-sdk.js";
import { readAdapterSettings, requireClientMethods } from "./mcp-client.js";
import { admittedDefinitions, listingByName, uniqueDefinition } from "./mcp-listing.js";
import type { OnRefusal } from "./refusal.js";

/** What {@link guardAiSdkMcpTools} needs of an `@ai-sdk/mcp` client (`createMCPClient`). */
export interface AiSdkMcpClient {
  listTools(options?: { params?: { cursor?: string } }): Promise<unknown>;
  // biome-ignore lint/suspicious/noExplicitAny: the AI SDK's own types, not imported here.
  toolsFromDefinitions(definitions: any): Record<string, any>;
}

/** Options of {@link guardAiSdkMcpTools}. */
export interface GuardAiSdkMcpToolsOptions {
  /** The guard (agent, root, verifier, pins) every call is checked against. */
  guard: ToolGuard;
  /**
   * Tool name to capability. Only these tools are exposed to the model; every other tool
   * the server lists stays out, description and all.
   */
  capabilities: Readonly<Record<string, string>>;
  /**
   * A listed tool of the table whose definition is not its pin (or that the server lists
   * twice): `"raise"` (default) rejects with its {@link ToolGuardError}, `"filter"` leaves
   * it out.
   */
  onDrift?: OnDrift;
  /** On a refused call: the model gets `Blocked by policy (CODE)...` (default) or the error is thrown. */
  onRefusal?: OnRefusal;
  /** Most `tools/list` pages followed, at start and on each call. Default 100. */
  maxPages?: number;
}

/**
 * AI SDK tools for an MCP server, behind the tool guard. Lists every page of the server's
 * tools; keeps the tools named in `capabilities` whose definitions match their pins (a
 * drifted or doubly listed one rejects, or is left out with `onDrift: "filter"`); builds
 * them with the client's own `toolsFromDefinitions`; and wraps each `execute` so that every
 * call lists the server again, checks the definition served now against its pin, checks
 * the delegation, and only then calls the server.
 *
 * Pin the definitions as this client's `listTools()` returns them.
 *
 * @throws {ToolGuardError} `GUARD_MISCONFIGURED` when the client or an option is invalid;
 *   `TOOL_DRIFT` / `TOOL_DEFINITION_MISSING` for a drifted tool under `onDrift: "raise"`.
 * @throws {ToolListingDriftError} when the server's pagination misbehaves.
 * @example
 * ```ts
 * import { createMCPClient } from "@ai-sdk/mcp";
 * import { generateText } from "ai";
 * import { guardAiSdkMcpTools } from "agent-airlock/ai-sdk";
 * // transport: your MCP transport; guard: createToolGuard({ ..., pins }); model: your model
 * const mcp = await createMCPClient({ transport });
 * const tools = await guardAiSdkMcpTools(mcp, { guard, capabilities: { get_forecast: "weather:forecast" } });
 * await generateText({ model, tools, prompt: "Weather in Oslo?" });
 * ```
 */
export async function guardAiSdkMcpTools(
  client: AiSdkMcpClient,
  options: GuardAiSdkMcpToolsOptions,
  // biome-ignore lint/suspicious/noExplicitAny: the AI SDK's tool type, not imported here.
): Promise<Record<string, any>> {
  requireClientMethods(
    client,
    ["listTools", "toolsFromDefinitions"],
    "guardAiSdkMcpTools needs an @ai-sdk/mcp client (listTools and toolsFromDefinitions)",
  );
  const { guard, capabilities, maxPages, onDrift } = readAdapterSettings(options);

  const admitted = await admittedDefinitions(client, capabilities, guard, { onDrift, maxPages });

  const built = client.toolsFromDefinitions({ tools: admitted });
  // biome-ignore lint/suspicious/noExplicitAny: the AI SDK's tool type, not imported here.
  const tools: Record<string, any> = {};
  for (const [name, capability] of capabilities) {
    const tool = Object.hasOwn(built, name) ? built[name] : undefined;
    if (tool === undefined) continue;
    Object.defineProperty(tools, name, {
      value: guardAiSdkTool(name, tool, {
        guard,
        capability,
        definition: async () => uniqueDefinition(await listingByName(client, maxPages), name),
        ...(options.onRefusal === undefined ? {} : { onRefusal: options.onRefusal }),
      }),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return tools;
}
