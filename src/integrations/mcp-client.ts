/**
 * The tool guard on an MCP client: map each tool name to a capability, check the
 * definition the server serves now against its pin, check the delegation, then call.
 * Works with the `@modelcontextprotocol/sdk` 1.x and `@modelcontextprotocol/client` 2.x
 * `Client` (anything with `listTools(params?)` and `callTool(params)`); neither is
 * imported by this module until the cached variant subscribes to notifications.
 *
 * @module
 */
import { assertRequestedCapability } from "../guard/capability.js";
import { ToolGuardError } from "../guard/errors.js";
import type { ToolGuard } from "../guard/tool-guard.js";
import { checkOnDrift, type OnDrift } from "../mcp/list-tools.js";
import { uniqueDefinition } from "./mcp-listing.js";

/** What this module needs of an MCP client. */
export interface McpToolsClient {
  listTools(params?: { cursor?: string }): Promise<unknown>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
}

/** Options of {@link guardMcpClient} and {@link guardMcpClientCached}. */
export interface GuardMcpClientOptions {
  /** The guard (agent, root, verifier, pins) every call is checked against. */
  guard: ToolGuard;
  /** Tool name to capability. A tool missing from this table is refused. */
  capabilities: Readonly<Record<string, string>>;
  /** Most `tools/list` pages followed to find a definition. Default 100. */
  maxPages?: number;
}

/** A client whose `callTool` runs the guard first. */
export interface GuardedMcpClient {
  /**
   * Check, then call `tools/call`. Rejects with {@link ToolGuardError} when the guard refuses
   * (the server is not called); resolves with the server's result otherwise.
   */
  callTool(name: string, args?: Record<string, unknown>): Promise<unknown>;
}

/** The cached variant: it also refreshes on `notifications/tools/list_changed`. */
export interface CachedGuardedMcpClient extends GuardedMcpClient {
  /** Forget the cached listing; the next call lists again. */
  invalidate(): void;
}

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const TOOLS_LIST_CHANGED = "notifications/tools/list_changed";

function misconfigured(message: string, tool?: string): ToolGuardError {
  return new ToolGuardError("GUARD_MISCONFIGURED", tool, message);
}

/** Validate a `{ toolName: capability }` table (shared with the AI SDK MCP adapter). */
export function readCapabilities(table: unknown): Map<string, string> {
  if (table === null || typeof table !== "object" || Array.isArray(table)) {
    throw misconfigured("capabilities must be an object { toolName: capability }");
  }
  let entries: [string, unknown][];
  try {
    entries = Object.entries(table);
  } catch {
    throw misconfigured("capabilities could not be read");
  }
  const out = new Map<string, string>();
  for (const [name, capability] of entries) {
    if (!TOOL_NAME.test(name))
      throw misconfigured(`invalid tool name ${JSON.stringify(name)} in capabilities`);
    try {
      assertRequestedCapability(capability);
    } catch (err) {
      throw misconfigured(
        `capability of tool ${JSON.stringify(name)}: ${(err as Error).message}`,
        name,
      );
    }
    out.set(name, capability);
  }
  return out;
}

/** Validate a `maxPages` option (default 100). */
export function readMaxPages(value: unknown): number {
  if (value === undefined) return 100;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > 10_000) {
    throw misconfigured("maxPages must be an integer from 1 to 10000");
  }
  return value;
}

/** Refuses (`GUARD_MISCONFIGURED`, with `message`) a client without every one of `methods`. */
export function requireClientMethods(
  client: unknown,
  methods: readonly string[],
  message: string,
): void {
  if (
    client === null ||
    typeof client !== "object" ||
    methods.some((name) => typeof (client as Record<string, unknown>)[name] !== "function")
  ) {
    throw misconfigured(message);
  }
}

/**
 * The settings every MCP adapter reads from its options, validated: the guard, the
 * capability table, the page cap and what to do with a drifted tool (default `"raise"`).
 */
export function readAdapterSettings(options: {
  guard: ToolGuard;
  capabilities: Readonly<Record<string, string>>;
  maxPages?: number;
  onDrift?: OnDrift;
}): { guard: ToolGuard; capabilities: Map<string, string>; maxPages: number; onDrift: OnDrift } {
  return {
    guard: options.guard,
    capabilities: readCapabilities(options.capabilities),
    maxPages: readMaxPages(options.maxPages),
    onDrift: checkOnDrift(options.onDrift ?? "raise"),
  };
}

function assertClient(client: unknown): asserts client is McpToolsClient {
  requireClientMethods(
    client,
    ["listTools", "callTool"],
    "guardMcpClient needs an MCP client with listTools() and callTool()",
  );
}

/**
 * Every tool the server lists, by name: follows cursors up to `maxPages`, refuses a cursor
 * seen twice or one that is not a string. A name listed more than once keeps every copy.
 */
async function listAll(client: McpToolsClient, maxPages: number): Promise<Map<string, unknown[]>> {
  const byName = new Map<string, unknown[]>();
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; ; page++) {
    if (page >= maxPages) throw new Error(`tools/list has more than ${maxPages} pages`);
    // cacheMode "refresh": the 2.x client may answer from its listing cache (when the server
    // sends cache hints); ask the server itself. The 1.x client ignores the option.
    const list = client.listTools as (params?: unknown, options?: unknown) => Promise<unknown>;
    const result = (await (cursor === undefined
      ? list.call(client, undefined, { cacheMode: "refresh" })
      : list.call(client, { cursor }))) as {
      tools?: unknown;
      nextCursor?: unknown;
    } | null;
    if (result === null || typeof result !== "object" || !Array.isArray(result.tools)) {
      throw new Error("tools/list returned something that is not a listing");
    }
    for (const tool of result.tools) {
      const name = (tool as { name?: unknown } | null)?.name;
      if (typeof name !== "string") continue;
      const copies = byName.get(name);
      if (copies === undefined) byName.set(name, [tool]);
      else copies.push(tool);
    }
    const next = result.nextCursor;
    if (next === undefined || next === null || next === "") return byName;
    if (typeof next !== "string")
      throw new Error("tools/list returned a cursor that is not a string");
    if (seen.has(next)) throw new Error("tools/list returned a cursor it had returned before");
    seen.add(next);
    cursor = next;
  }
}

function makeCaller(
  client: McpToolsClient,
  options: GuardMcpClientOptions,
  definitionOf: (name: string) => Promise<unknown>,
): GuardedMcpClient["callTool"] {
  const { guard } = options;
  const capabilities = readCapabilities(options.capabilities);
  return async (name, args) => {
    const capability = typeof name === "string" ? capabilities.get(name) : undefined;
    if (capability === undefined) {
      // Refused before the guard runs, so onDecision does not see it: the table is config.
      throw misconfigured(
        `tool ${JSON.stringify(name)} has no capability in the table: add it to capabilities to allow it`,
        typeof name === "string" ? name : undefined,
      );
    }
    await guard.check({ tool: name, capability, definition: () => definitionOf(name) });
    return client.callTool(args === undefined ? { name } : { name, arguments: args });
  };
}

/**
 * Guard an MCP client's tool calls. Each `callTool(name, args)`: refuses a tool missing
 * from `capabilities`; lists the tools the server serves now (all pages) when the tool is
 * pinned or pins are required, and checks that definition; checks the delegation; then
 * calls the server. Nothing reaches the server unless every check passed.
 *
 * Pin the definitions as this client's `listTools()` returns them: the 1.x SDK client
 * drops fields it does not know.
 *
 * @throws {ToolGuardError} `GUARD_MISCONFIGURED` when the client or the table is invalid.
 * @example
 * ```ts
 * import { guardMcpClient } from "agent-airlock/guard";
 * // client: a connected @modelcontextprotocol/sdk Client; guard: createToolGuard({ ... })
 * const tools = guardMcpClient(client, { guard, capabilities: { get_forecast: "weather:forecast" } });
 * const result = await tools.callTool("get_forecast", { city: "Oslo" });
 * ```
 */
export function guardMcpClient(
  client: McpToolsClient,
  options: GuardMcpClientOptions,
): GuardedMcpClient {
  assertClient(client);
  const maxPages = readMaxPages(options.maxPages);
  const callTool = makeCaller(client, options, async (name) =>
    uniqueDefinition(await listAll(client, maxPages), name),
  );
  return Object.freeze({ callTool });
}

/** Options of {@link guardMcpClientCached}. */
export interface GuardMcpClientCachedOptions extends GuardMcpClientOptions {
  /**
   * Called after the cache is dropped on `notifications/tools/list_changed`. The cached
   * variant takes over the client's handler for that notification; chain yours here.
   */
  onToolListChanged?: () => void;
}

type Subscriber = (client: McpToolsClient, onChanged: () => void) => Promise<void>;

/** Install a `notifications/tools/list_changed` handler on a 2.x or a 1.x client. */
const subscribe: Subscriber = async (client, onChanged) => {
  const register = (client as { setNotificationHandler?: unknown }).setNotificationHandler;
  if (typeof register !== "function") {
    throw new Error("the client has no setNotificationHandler");
  }
  try {
    // @modelcontextprotocol/client 2.x: registered by method name.
    register.call(client, TOOLS_LIST_CHANGED, onChanged);
    return;
  } catch {
    // @modelcontextprotocol/sdk 1.x wants its zod schema: loaded only here, only now.
  }
  const { ToolListChangedNotificationSchema } = await import("@modelcontextprotocol/sdk/types.js");
  register.call(client, ToolListChangedNotificationSchema, onChanged);
};

/**
 * Like {@link guardMcpClient}, but the listing is fetched once and reused until the server
 * sends `notifications/tools/list_changed` (or {@link CachedGuardedMcpClient.invalidate}
 * is called). Every call still runs the guard against the cached definition.
 *
 * Trust note: a server that changes a tool without notifying is only caught by the
 * uncached {@link guardMcpClient}. Use this variant when listing on every call costs too
 * much and the transport is trusted to deliver notifications.
 *
 * If the client cannot be subscribed to the notification, every call is refused with
 * `GUARD_MISCONFIGURED` rather than served from a cache that would never refresh.
 *
 * @example
 * ```ts
 * import { guardMcpClientCached } from "agent-airlock/guard";
 * const tools = guardMcpClientCached(client, { guard, capabilities: { get_forecast: "weather:forecast" } });
 * await tools.callTool("get_forecast", { city: "Oslo" });
 * ```
 */
export function guardMcpClientCached(
  client: McpToolsClient,
  options: GuardMcpClientCachedOptions,
): CachedGuardedMcpClient {
  assertClient(client);
  const maxPages = readMaxPages(options.maxPages);
  const { onToolListChanged } = options;
  let listing: Promise<Map<string, unknown[]>> | undefined;
  const invalidate = () => {
    listing = undefined;
  };
  const subscribed = subscribe(client, () => {
    invalidate();
    try {
      onToolListChanged?.();
    } catch {
      // The user's hook must not stop the refresh.
    }
  }).then(
    () => undefined,
    (err: unknown) => err,
  );
  const callTool = makeCaller(client, options, async (name) => {
    if (listing === undefined) listing = listAll(client, maxPages);
    const current = listing;
    try {
      return uniqueDefinition(await current, name);
    } catch (err) {
      // A failed listing is not kept: the next call lists again.
      if (listing === current) listing = undefined;
      throw err;
    }
  });
  return Object.freeze({
    invalidate,
    callTool: async (name: string, args?: Record<string, unknown>) => {
      const failure = await subscribed;
      if (failure !== undefined) {
        throw new ToolGuardError(
          "GUARD_MISCONFIGURED",
          typeof name === "string" ? name : undefined,
          `cannot subscribe to ${TOOLS_LIST_CHANGED} on this client (${String((failure as Error)?.message ?? failure)}): use guardMcpClient instead`,
          {},
          { cause: failure },
        );
      }
      return callTool(name, args);
    },
  });
}
