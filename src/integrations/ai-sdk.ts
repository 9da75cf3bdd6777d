/**
 * Vercel AI SDK: put the tool guard in front of a tool's `execute`. `ai` is an optional
 * peer dependency, loaded only by this subpath: without it, importing
 * `agent-airlock/ai-sdk` throws a `PeerDependencyError` (`PEER_DEPENDENCY_MISSING`)
 * naming the package to install.
 *
 * @module
 */
import type { Tool, ToolExecutionOptions } from "ai";
import { ToolGuardError } from "../guard/errors.js";
import type { DefinitionSource, ToolGuard } from "../guard/tool-guard.js";
import { importPeer } from "../lib/peer-import.js";
import { guarded, type OnRefusal, readOnRefusal } from "./refusal.js";

export {
  type AiSdkMcpClient,
  type GuardAiSdkMcpToolsOptions,
  guardAiSdkMcpTools,
} from "./ai-sdk-mcp.js";
export { type OnRefusal, refusalMessage } from "./refusal.js";

// Loaded when this subpath is imported; a missing peer is a PeerDependencyError, not
// Node's raw ERR_MODULE_NOT_FOUND.
const { asSchema } = await importPeer<typeof import("ai")>({
  specifier: "ai",
  peer: "ai",
  subpath: "agent-airlock/ai-sdk",
});

/** Options of {@link guardAiSdkTool}. */
export interface GuardAiSdkToolOptions {
  /** The guard (agent, root, verifier, pins) every call is checked against. */
  guard: ToolGuard;
  /** The exact capability the tool needs; defaults to the tool's name. */
  capability?: string;
  /** The definition to check against the pin; defaults to {@link aiSdkToolDefinition}, read at call time. */
  definition?: DefinitionSource;
  /** On refusal: return `Blocked by policy (CODE). Do not retry this tool.` (default) or throw. */
  onRefusal?: OnRefusal;
}

/**
 * The definition of an AI SDK tool as a model sees it: `{ name, description, inputSchema }`
 * with the schema as JSON Schema. An AI SDK tool does not carry its name (it is the key in
 * the `tools` record), so pass it.
 *
 * @example
 * ```ts
 * import { tool } from "ai";
 * import { z } from "zod";
 * import { aiSdkToolDefinition } from "agent-airlock/ai-sdk";
 * const forecast = tool({ description: "Get the forecast", inputSchema: z.object({ city: z.string() }) });
 * console.log(await aiSdkToolDefinition("weather_forecast", forecast));
 * ```
 */
export async function aiSdkToolDefinition(
  name: string,
  tool: Tool,
): Promise<{ name: string; description: string | undefined; inputSchema: unknown }> {
  const inputSchema = await asSchema(tool.inputSchema as Parameters<typeof asSchema>[0]).jsonSchema;
  return { name, description: tool.description, inputSchema };
}

/**
 * Wrap an AI SDK tool's `execute` so the guard checks every call first. Returns a new tool
 * (the one passed in is not modified) with the same description and schemas. On a refusal
 * `execute` does not run and the model gets `Blocked by policy (CODE). Do not retry this
 * tool.` (or the {@link ToolGuardError} is thrown, with `onRefusal: "throw"`).
 *
 * @throws {ToolGuardError} `GUARD_MISCONFIGURED` when the name, capability or tool is invalid
 *   (a tool without `execute` has nothing to guard).
 * @example
 * ```ts
 * import { tool } from "ai";
 * import { z } from "zod";
 * import { createToolGuard } from "agent-airlock/guard";
 * import { guardAiSdkTool } from "agent-airlock/ai-sdk";
 * const guard = createToolGuard({
 *   verifier: { verifyTool: async () => ({ decision: "ALLOW", reason: "demo" }) },
 *   agent: "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK",
 *   root: "did:key:z6MknGc3ocHs3zdPiJbnaaqDi58NGb4pk1Sp9WxWufuXSdxf",
 * });
 * const forecast = tool({
 *   description: "Get the forecast",
 *   inputSchema: z.object({ city: z.string() }),
 *   execute: async ({ city }) => `Sunny in ${city}`,
 * });
 * const tools = { weather_forecast: guardAiSdkTool("weather_forecast", forecast, { guard, capability: "weather:forecast" }) };
 * ```
 */
export function guardAiSdkTool<T extends Tool>(
  name: string,
  tool: T,
  options: GuardAiSdkToolOptions,
): T {
  const execute = (tool as Tool | null)?.execute;
  if (typeof execute !== "function") {
    throw new ToolGuardError(
      "GUARD_MISCONFIGURED",
      typeof name === "string" ? name : undefined,
      "guardAiSdkTool needs an AI SDK tool with an execute function",
    );
  }
  const onRefusal = readOnRefusal(options.onRefusal);
  const definition = options.definition ?? (() => aiSdkToolDefinition(name, tool));
  const check = options.guard.wrap(
    { tool: name, capability: options.capability, definition },
    () => undefined,
  );
  return {
    ...tool,
    execute: (input: unknown, execOptions: ToolExecutionOptions) =>
      guarded(onRefusal, check, () => execute.call(tool, input, execOptions)),
  } as T;
}

/**
 * Guard every tool of an AI SDK `tools` record; `capabilities` maps a tool name to its
 * capability (a name missing from it uses the tool name). Tools without `execute` are
 * refused, not passed through unguarded.
 *
 * @example
 * ```ts
 * import { tool } from "ai";
 * import { z } from "zod";
 * import { createToolGuard } from "agent-airlock/guard";
 * import { guardAiSdkTools } from "agent-airlock/ai-sdk";
 * const guard = createToolGuard({
 *   verifier: { verifyTool: async () => ({ decision: "ALLOW", reason: "demo" }) },
 *   agent: "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK",
 *   root: "did:key:z6MknGc3ocHs3zdPiJbnaaqDi58NGb4pk1Sp9WxWufuXSdxf",
 * });
 * const tools = guardAiSdkTools(
 *   { weather_forecast: tool({ description: "Forecast", inputSchema: z.object({}), execute: async () => "sun" }) },
 *   { guard, capabilities: { weather_forecast: "weather:forecast" } },
 * );
 * ```
 */
export function guardAiSdkTools<T extends Record<string, Tool>>(
  tools: T,
  options: Omit<GuardAiSdkToolOptions, "capability" | "definition"> & {
    capabilities?: Readonly<Record<string, string>>;
  },
): T {
  const capabilities = new Map(Object.entries(options.capabilities ?? {}));
  const out: Record<string, Tool> = {};
  for (const [name, tool] of Object.entries(tools)) {
    Object.defineProperty(out, name, {
      value: guardAiSdkTool(name, tool, {
        guard: options.guard,
        capability: capabilities.get(name),
        onRefusal: options.onRefusal,
      }),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out as T;
}
