/**
 * LangChain.js: put the tool guard in front of a `StructuredTool` or a `tool()` result.
 * `@langchain/core` is an optional peer dependency, loaded only by this subpath: without
 * it, importing `agent-airlock/langchain` throws a `PeerDependencyError`
 * (`PEER_DEPENDENCY_MISSING`) naming the package to install.
 *
 * @module
 */
import type { StructuredToolInterface } from "@langchain/core/tools";
import { ToolGuardError } from "../guard/errors.js";
import type { DefinitionSource, ToolGuard } from "../guard/tool-guard.js";
import { importPeer } from "../lib/peer-import.js";
import { guarded, type OnRefusal, readOnRefusal } from "./refusal.js";

export { type OnRefusal, refusalMessage } from "./refusal.js";

// Loaded when this subpath is imported; a missing peer is a PeerDependencyError, not
// Node's raw ERR_MODULE_NOT_FOUND.
const { DynamicStructuredTool } = await importPeer<typeof import("@langchain/core/tools")>({
  specifier: "@langchain/core/tools",
  peer: "@langchain/core",
  subpath: "agent-airlock/langchain",
});
const { toJsonSchema } = await importPeer<typeof import("@langchain/core/utils/json_schema")>({
  specifier: "@langchain/core/utils/json_schema",
  peer: "@langchain/core",
  subpath: "agent-airlock/langchain",
});
type DynamicStructuredTool = import("@langchain/core/tools").DynamicStructuredTool;

/** Options of {@link guardLangChainTool}. */
export interface GuardLangChainToolOptions {
  /** The guard (agent, root, verifier, pins) every call is checked against. */
  guard: ToolGuard;
  /** The exact capability the tool needs; defaults to the tool's name. */
  capability?: string;
  /**
   * The definition to check against the tool's pin; defaults to
   * {@link langChainToolDefinition} of the wrapped tool, read at call time.
   */
  definition?: DefinitionSource;
  /** On refusal: return `Blocked by policy (CODE). Do not retry this tool.` (default) or throw. */
  onRefusal?: OnRefusal;
}

/**
 * The definition of a LangChain tool as a model sees it: `{ name, description,
 * inputSchema }` with the schema as JSON Schema. Pin this (`pinToolDefinitions`) to let the
 * guard catch a description or schema that moves.
 *
 * @example
 * ```ts
 * import { tool } from "@langchain/core/tools";
 * import { z } from "zod";
 * import { langChainToolDefinition } from "agent-airlock/langchain";
 * import { pinToolDefinitions } from "agent-airlock/guard";
 * const forecast = tool(async ({ city }) => `Sunny in ${city}`, {
 *   name: "weather_forecast",
 *   description: "Get the forecast for a city",
 *   schema: z.object({ city: z.string() }),
 * });
 * const pins = pinToolDefinitions([langChainToolDefinition(forecast)]);
 * ```
 */
export function langChainToolDefinition(tool: StructuredToolInterface): {
  name: string;
  description: string;
  inputSchema: unknown;
} {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: toJsonSchema(tool.schema as Parameters<typeof toJsonSchema>[0]),
  };
}

/**
 * Wrap a LangChain tool so the guard checks every call before the tool runs. The wrapper
 * keeps the tool's name, description and schema, so a model sees the same tool. On a
 * refusal the tool does not run, and the model gets `Blocked by policy (CODE). Do not
 * retry this tool.` (or the {@link ToolGuardError} is thrown, with `onRefusal: "throw"`).
 *
 * @throws {ToolGuardError} `GUARD_MISCONFIGURED` when the tool name or capability is invalid.
 * @example
 * ```ts
 * import { tool } from "@langchain/core/tools";
 * import { z } from "zod";
 * import { createToolGuard } from "agent-airlock/guard";
 * import { guardLangChainTool } from "agent-airlock/langchain";
 * const guard = createToolGuard({
 *   verifier: { verifyTool: async () => ({ decision: "DENY", reason: "no delegation" }) },
 *   agent: "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK",
 *   root: "did:key:z6MknGc3ocHs3zdPiJbnaaqDi58NGb4pk1Sp9WxWufuXSdxf",
 * });
 * const forecast = tool(async ({ city }) => `Sunny in ${city}`, {
 *   name: "weather_forecast",
 *   description: "Get the forecast for a city",
 *   schema: z.object({ city: z.string() }),
 * });
 * const safe = guardLangChainTool(forecast, { guard, capability: "weather:forecast" });
 * console.log(await safe.invoke({ city: "Oslo" })); // Blocked by policy (TOOL_NOT_AUTHORIZED). Do not retry this tool.
 * ```
 */
export function guardLangChainTool<T extends StructuredToolInterface>(
  tool: T,
  options: GuardLangChainToolOptions,
): DynamicStructuredTool {
  if (tool === null || typeof tool !== "object" || typeof tool.invoke !== "function") {
    throw new ToolGuardError(
      "GUARD_MISCONFIGURED",
      undefined,
      "guardLangChainTool needs a LangChain tool",
    );
  }
  const onRefusal = readOnRefusal(options.onRefusal);
  const definition = options.definition ?? (() => langChainToolDefinition(tool));
  const check = options.guard.wrap(
    { tool: tool.name, capability: options.capability, definition },
    () => undefined,
  );
  const source = tool as unknown as Partial<DynamicStructuredTool>;
  return new DynamicStructuredTool({
    name: tool.name,
    description: tool.description,
    schema: tool.schema as DynamicStructuredTool["schema"],
    returnDirect: tool.returnDirect,
    ...(source.metadata === undefined ? {} : { metadata: source.metadata }),
    ...(source.tags === undefined ? {} : { tags: source.tags }),
    // The config carries the tool call, so the inner tool formats its own ToolMessage
    // (artifacts included) and the wrapper passes it through unchanged.
    func: async (input, _runManager, config) =>
      guarded(onRefusal, check, () => tool.invoke(input as never, config)),
  });
}

/**
 * Guard a list of LangChain tools with one guard; `capabilities` maps a tool name to its
 * capability (a name missing from it uses the tool name).
 *
 * @throws {ToolGuardError} `GUARD_MISCONFIGURED` when a name or capability is invalid.
 * @example
 * ```ts
 * import { tool } from "@langchain/core/tools";
 * import { z } from "zod";
 * import { createToolGuard } from "agent-airlock/guard";
 * import { guardLangChainTools } from "agent-airlock/langchain";
 * const guard = createToolGuard({
 *   verifier: { verifyTool: async () => ({ decision: "ALLOW", reason: "demo" }) },
 *   agent: "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK",
 *   root: "did:key:z6MknGc3ocHs3zdPiJbnaaqDi58NGb4pk1Sp9WxWufuXSdxf",
 * });
 * const tools = guardLangChainTools(
 *   [tool(async () => "sun", { name: "weather_forecast", description: "Forecast", schema: z.object({}) })],
 *   { guard, capabilities: { weather_forecast: "weather:forecast" } },
 * );
 * ```
 */
export function guardLangChainTools(
  tools: readonly StructuredToolInterface[],
  options: Omit<GuardLangChainToolOptions, "capability" | "definition"> & {
    capabilities?: Readonly<Record<string, string>>;
  },
): DynamicStructuredTool[] {
  const capabilities = new Map(Object.entries(options.capabilities ?? {}));
  return tools.map((tool) =>
    guardLangChainTool(tool, {
      guard: options.guard,
      capability: capabilities.get(tool?.name),
      onRefusal: options.onRefusal,
    }),
  );
}
