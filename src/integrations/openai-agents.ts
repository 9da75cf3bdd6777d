/**
 * OpenAI Agents SDK: put the tool guard in front of a `FunctionTool`, and pin the tools an
 * `MCPServer` may expose. `@openai/agents-core` is an optional peer dependency; this module
 * only imports its types.
 *
 * @module
 */
import { timingSafeEqual } from "node:crypto";
import type { CallToolResultContent, MCPServer, RunContext } from "@openai/agents-core";
import { definitionSha256 } from "../canonical/index.js";
import { ToolGuardError } from "../guard/errors.js";
import type { DefinitionSource, ToolGuard } from "../guard/tool-guard.js";
import { guarded, type OnRefusal, readOnRefusal } from "./refusal.js";

export { type OnRefusal, refusalMessage } from "./refusal.js";

/** A tool as the MCP server lists it. */
type MCPTool = Awaited<ReturnType<MCPServer["listTools"]>>[number];

/** The shape of a `FunctionTool` the guard needs, whatever its context and schema types. */
export interface FunctionToolLike {
  type: "function";
  name: string;
  description: string;
  parameters: unknown;
  invoke: (...args: never[]) => unknown;
}

/** Options of {@link guardFunctionTool}. */
export interface GuardFunctionToolOptions {
  /** The guard (agent, root, verifier, pins) every call is checked against. */
  guard: ToolGuard;
  /** The exact capability the tool needs; defaults to the tool's name. */
  capability?: string;
  /** The definition to check against the pin; defaults to {@link functionToolDefinition}, read at call time. */
  definition?: DefinitionSource;
  /** On refusal: return `Blocked by policy (CODE). Do not retry this tool.` (default) or throw. */
  onRefusal?: OnRefusal;
}

/**
 * The definition of a `FunctionTool` as a model sees it: `{ name, description, inputSchema }`
 * (`inputSchema` is the tool's JSON `parameters`).
 *
 * @example
 * ```ts
 * import { tool } from "@openai/agents-core";
 * import { z } from "zod";
 * import { functionToolDefinition } from "agent-airlock/openai-agents";
 * const forecast = tool({
 *   name: "weather_forecast",
 *   description: "Get the forecast",
 *   parameters: z.object({ city: z.string() }),
 *   execute: async ({ city }) => `Sunny in ${city}`,
 * });
 * console.log(functionToolDefinition(forecast).inputSchema);
 * ```
 */
export function functionToolDefinition(
  tool: Pick<FunctionToolLike, "name" | "description" | "parameters">,
): {
  name: string;
  description: string;
  inputSchema: unknown;
} {
  return { name: tool.name, description: tool.description, inputSchema: tool.parameters };
}

/**
 * Wrap a `FunctionTool` (from `tool()` of `@openai/agents-core` or `@openai/agents`) so the
 * guard checks every call before `invoke` runs. Returns a new tool with the same name,
 * description, parameters and settings; the one passed in is not modified.
 *
 * @throws {ToolGuardError} `GUARD_MISCONFIGURED` when the tool, its name or the capability is invalid.
 * @example
 * ```ts
 * import { tool } from "@openai/agents-core";
 * import { z } from "zod";
 * import { createToolGuard } from "agent-airlock/guard";
 * import { guardFunctionTool } from "agent-airlock/openai-agents";
 * const guard = createToolGuard({
 *   verifier: { verifyTool: async () => ({ decision: "ALLOW", reason: "demo" }) },
 *   agent: "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK",
 *   root: "did:key:z6MknGc3ocHs3zdPiJbnaaqDi58NGb4pk1Sp9WxWufuXSdxf",
 * });
 * const forecast = tool({
 *   name: "weather_forecast",
 *   description: "Get the forecast",
 *   parameters: z.object({ city: z.string() }),
 *   execute: async ({ city }) => `Sunny in ${city}`,
 * });
 * const safe = guardFunctionTool(forecast, { guard, capability: "weather:forecast" });
 * ```
 */
export function guardFunctionTool<T extends FunctionToolLike>(
  tool: T,
  options: GuardFunctionToolOptions,
): T {
  if (
    tool === null ||
    typeof tool !== "object" ||
    tool.type !== "function" ||
    typeof tool.invoke !== "function"
  ) {
    throw new ToolGuardError(
      "GUARD_MISCONFIGURED",
      undefined,
      "guardFunctionTool needs a FunctionTool ({ type: 'function', invoke })",
    );
  }
  const onRefusal = readOnRefusal(options.onRefusal);
  const definition = options.definition ?? (() => functionToolDefinition(tool));
  const check = options.guard.wrap(
    { tool: tool.name, capability: options.capability, definition },
    () => undefined,
  );
  const invoke = tool.invoke;
  return {
    ...tool,
    invoke: (runContext: RunContext<unknown>, input: string, details?: unknown) =>
      guarded(onRefusal, check, () =>
        (invoke as (...args: unknown[]) => unknown).call(tool, runContext, input, details),
      ),
  } as T;
}

/** Options of {@link pinMcpServer}. */
export interface PinMcpServerOptions {
  /** Approved definitions `{ toolName: sha256 }` (`pinToolDefinitions` over `listTools()`). */
  pins: Readonly<Record<string, string>>;
  /** Also check delegation (and pins, if the guard has them) before every `callTool`. */
  guard?: ToolGuard;
  /** Tool name to capability for the guard; a tool missing from it uses its own name. */
  capabilities?: Readonly<Record<string, string>>;
}

const HEX64 = /^[0-9a-f]{64}$/;

/** A listed tool's name, or undefined when it has none or reading it throws. */
function nameOf(tool: unknown): string | undefined {
  try {
    const name = (tool as { name?: unknown } | null)?.name;
    return typeof name === "string" ? name : undefined;
  } catch {
    return undefined;
  }
}

/**
 * An `MCPServer` that exposes only the tools its pins admit. `listTools()` drops every tool
 * that is unpinned, drifted, unreadable or listed twice; `callTool()` refuses, with a
 * {@link ToolGuardError}, any tool the latest listing did not admit (it lists first when it
 * has not listed yet), then runs the guard, when one is given, with the admitted definition.
 * Made by {@link pinMcpServer}.
 *
 * @example
 * ```ts
 * import { MCPServerStdio } from "@openai/agents-core";
 * import { pinMcpServer } from "agent-airlock/openai-agents";
 * const server = new MCPServerStdio({ name: "weather", fullCommand: "node weather-server.js" });
 * const pins = { get_forecast: "f1e16554bd1d858284d91bd127714276451d7d1d4af02aaea40eea8090c796f9" };
 * const pinned = pinMcpServer(server, { pins }); // a PinnedMcpServer
 * // new Agent({ name: "assistant", mcpServers: [pinned] })
 * ```
 */
export class PinnedMcpServer implements MCPServer {
  readonly #inner: MCPServer;
  readonly #pins: Map<string, string>;
  readonly #guard: ToolGuard | undefined;
  readonly #capabilities: Map<string, string>;
  #admitted: Map<string, MCPTool> | undefined;
  /** Every name in the latest listing, admitted or not. */
  #listed = new Set<string>();
  /** Present when the wrapped server has it; admits the tool first, like {@link callTool}. */
  readonly callToolResult?: MCPServer["callToolResult"];

  constructor(inner: MCPServer, options: PinMcpServerOptions) {
    if (inner === null || typeof inner !== "object" || typeof inner.listTools !== "function") {
      throw new ToolGuardError("GUARD_MISCONFIGURED", undefined, "pinMcpServer needs an MCPServer");
    }
    this.#inner = inner;
    this.#pins = new Map();
    for (const [name, digest] of Object.entries(options.pins ?? {})) {
      const lower = typeof digest === "string" ? digest.toLowerCase() : "";
      if (!HEX64.test(lower)) {
        throw new ToolGuardError(
          "GUARD_MISCONFIGURED",
          name,
          `pin of tool ${JSON.stringify(name)} is not a SHA-256 digest (64 hex digits)`,
        );
      }
      this.#pins.set(name, lower);
    }
    this.#guard = options.guard;
    this.#capabilities = new Map(Object.entries(options.capabilities ?? {}));
    const full = inner.callToolResult;
    if (typeof full === "function") {
      this.callToolResult = async (toolName, args, meta, callOptions) => {
        await this.#admit(toolName);
        return full.call(inner, toolName, args, meta, callOptions);
      };
    }
  }

  get name(): string {
    return this.#inner.name;
  }
  get cacheToolsList(): boolean {
    return this.#inner.cacheToolsList;
  }
  set cacheToolsList(value: boolean) {
    this.#inner.cacheToolsList = value;
  }
  get toolFilter(): MCPServer["toolFilter"] {
    return this.#inner.toolFilter;
  }
  get toolMetaResolver(): MCPServer["toolMetaResolver"] {
    return this.#inner.toolMetaResolver;
  }
  get customDataExtractor(): MCPServer["customDataExtractor"] {
    return this.#inner.customDataExtractor;
  }
  get toolInputGuardrails(): MCPServer["toolInputGuardrails"] {
    return this.#inner.toolInputGuardrails;
  }
  get toolOutputGuardrails(): MCPServer["toolOutputGuardrails"] {
    return this.#inner.toolOutputGuardrails;
  }
  get useStructuredContent(): MCPServer["useStructuredContent"] {
    return this.#inner.useStructuredContent;
  }
  get errorFunction(): MCPServer["errorFunction"] {
    return this.#inner.errorFunction;
  }

  connect(): Promise<void> {
    return this.#inner.connect();
  }
  close(): Promise<void> {
    return this.#inner.close();
  }
  async invalidateToolsCache(): Promise<void> {
    this.#admitted = undefined;
    await this.#inner.invalidateToolsCache();
  }

  /** The tools the pins admit, in listing order. */
  async listTools(): Promise<MCPTool[]> {
    // Until this listing is judged, nothing is admitted: a failed listing refuses every call.
    this.#admitted = new Map();
    this.#listed = new Set();
    const listed = await this.#inner.listTools();
    if (!Array.isArray(listed)) {
      throw new ToolGuardError(
        "TOOL_DEFINITION_MISSING",
        undefined,
        `MCP server ${JSON.stringify(this.name)} returned a tool listing that is not an array`,
      );
    }
    const named = listed.map((tool) => ({ tool, name: nameOf(tool) }));
    const counts = new Map<string, number>();
    for (const { name } of named) {
      if (name !== undefined) counts.set(name, (counts.get(name) ?? 0) + 1);
    }
    this.#listed = new Set(counts.keys());
    const admitted = new Map<string, MCPTool>();
    for (const { tool, name } of named) {
      if (name === undefined || counts.get(name) !== 1) continue;
      const pin = this.#pins.get(name);
      if (pin === undefined) continue;
      let digest: string;
      try {
        digest = definitionSha256(tool);
      } catch {
        continue;
      }
      if (timingSafeEqual(Buffer.from(digest), Buffer.from(pin))) admitted.set(name, tool);
    }
    this.#admitted = admitted;
    return [...admitted.values()];
  }

  async callTool(
    toolName: string,
    args: Record<string, unknown> | null,
    meta?: Record<string, unknown> | null,
    options?: Parameters<MCPServer["callTool"]>[3],
  ): Promise<CallToolResultContent> {
    await this.#admit(toolName);
    return this.#inner.callTool(toolName, args, meta, options);
  }

  async #admit(toolName: string): Promise<void> {
    if (this.#admitted === undefined) await this.listTools();
    const tool = this.#admitted?.get(toolName);
    if (tool === undefined) {
      // Pinned and listed but not admitted: drifted, duplicated or unreadable. Otherwise the
      // tool has no pin, or the latest listing did not include it (or failed).
      const drifted = this.#pins.has(toolName) && this.#listed.has(toolName);
      throw new ToolGuardError(
        drifted ? "TOOL_DRIFT" : "TOOL_DEFINITION_MISSING",
        typeof toolName === "string" ? toolName : undefined,
        `tool ${JSON.stringify(toolName)} is not admitted by the pins of MCP server ${JSON.stringify(this.name)}`,
      );
    }
    if (this.#guard !== undefined) {
      await this.#guard.check({
        tool: toolName,
        capability: this.#capabilities.get(toolName),
        definition: tool,
      });
    }
  }
}

/**
 * Decorate an Agents SDK `MCPServer` so only pinned, undrifted tools are listed and called.
 * Pass the result to `new Agent({ mcpServers: [...] })` in place of the server.
 *
 * @throws {ToolGuardError} `GUARD_MISCONFIGURED` when a pin is not a SHA-256 digest.
 * @example
 * ```ts
 * import { MCPServerStdio } from "@openai/agents-core";
 * import { pinMcpServer } from "agent-airlock/openai-agents";
 * const server = pinMcpServer(
 *   new MCPServerStdio({ command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"] }),
 *   { pins: { echo: "..." } },
 * );
 * ```
 */
export function pinMcpServer(server: MCPServer, options: PinMcpServerOptions): PinnedMcpServer {
  return new PinnedMcpServer(server, options);
}
