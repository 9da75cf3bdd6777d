import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ToolDefinitionPinGuard } from "../pins/index.js";
import type { ListingCheck, ToolDefinition } from "../pins/types.js";
import { McpServerProbeError } from "./errors.js";
import { type ProbeRequest, probeServer } from "./server-probe.js";
import {
  collectToolPages,
  DEFAULT_MAX_PAGES,
  mergedListing,
  type ToolListing,
} from "./tool-pages.js";

/**
 * Anything that serves MCP over a transport it is handed: an SDK 1.x `McpServer`, the
 * low-level `Server`, or a FastMCP server. Only the public `connect` is used.
 */
export interface ConnectableServer {
  connect(transport: Transport): Promise<unknown>;
}

/** A server's listing as agent-airlock reads it, judged by a pin guard. */
export interface ServerToolJudgement {
  /** Every tool the server lists, all pages, in order (duplicates kept). */
  listing: ToolListing;
  check: ListingCheck;
  /** The admitted tools by name (each admitted name is unique in the listing). */
  admitted: Map<string, ToolDefinition>;
}

/** @internal Read every page of the server's own listing through `request`. */
export async function readServerListing(
  request: ProbeRequest,
  maxPages: number = DEFAULT_MAX_PAGES,
): Promise<ToolListing> {
  const fetchPage = async (cursor: string | undefined) => {
    try {
      return await request("tools/list", cursor === undefined ? {} : { cursor });
    } catch (err) {
      // A server without a tools/list handler serves no tool (and none can be called).
      if (cursor === undefined && err instanceof McpServerProbeError && err.rpcCode === -32601) {
        return { tools: [] };
      }
      throw err;
    }
  };
  const collected = await collectToolPages(
    { kind: "server", followsCursor: true, fetchPage },
    { maxPages },
  );
  return mergedListing(collected);
}

/** @internal Judge a server listing once. */
export function judgeListing(
  listing: ToolListing,
  guard: ToolDefinitionPinGuard,
): ServerToolJudgement {
  const check = guard.checkListing({ tools: listing.tools });
  const names = new Set(check.admitted);
  const admitted = new Map<string, ToolDefinition>();
  for (const tool of listing.tools) {
    if (names.has(tool.name)) admitted.set(tool.name, tool);
  }
  return { listing, check, admitted };
}

/**
 * The tools `server` serves, one definition per name (the first listed, which is the one
 * FastMCP and the SDK resolve a call to), read through the protocol itself: the server
 * is connected to an in-memory transport, initialised, listed page by page, then
 * disconnected. Works for an SDK `McpServer`, the low-level `Server` and FastMCP, without
 * touching private fields. The server must not be connected elsewhere at the time
 * (an SDK server serves one transport at a time): connect it after this.
 *
 * @example
 * ```ts
 * import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
 * import { toolDefinitions } from "agent-airlock/mcp";
 * const server = new McpServer({ name: "demo", version: "1.0.0" });
 * server.registerTool("ping", { description: "Answer pong." }, async () => ({
 *   content: [{ type: "text", text: "pong" }],
 * }));
 * console.log((await toolDefinitions(server)).map((t) => t.name)); // ["ping"]
 * ```
 */
export async function toolDefinitions(
  server: ConnectableServer,
  options: { maxPages?: number; timeoutMs?: number } = {},
): Promise<ToolDefinition[]> {
  const listing = await probeServer(
    server,
    (request) => readServerListing(request, options.maxPages),
    options,
  );
  const seen = new Set<string>();
  const unique: ToolDefinition[] = [];
  for (const tool of listing.tools) {
    const name =
      typeof tool === "object" && tool !== null ? (tool as { name?: unknown }).name : undefined;
    if (typeof name !== "string" || seen.has(name)) continue;
    seen.add(name);
    unique.push(tool);
  }
  return unique;
}

/**
 * The start-up check alone: read every tool `server` serves (as {@link toolDefinitions}
 * does) and judge the whole listing with `guard`. `check.allowed` false means a secured
 * server would refuse to start. Throws `McpServerProbeError` when the listing cannot be
 * read and `ToolListingDriftError` on a pagination fault.
 *
 * @example
 * ```ts
 * import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
 * import { ToolDefinitionPinGuard } from "agent-airlock";
 * import { checkServerTools } from "agent-airlock/mcp";
 * const server = new McpServer({ name: "demo", version: "1.0.0" });
 * server.registerTool("ping", { description: "Answer pong." }, async () => ({
 *   content: [{ type: "text", text: "pong" }],
 * }));
 * const check = await checkServerTools(server, new ToolDefinitionPinGuard());
 * console.log(check.allowed, check.refused.map((r) => r.name)); // false ["ping"]
 * ```
 */
export async function checkServerTools(
  server: ConnectableServer,
  guard: ToolDefinitionPinGuard,
  options: { maxPages?: number; timeoutMs?: number } = {},
): Promise<ListingCheck> {
  const listing = await probeServer(
    server,
    (request) => readServerListing(request, options.maxPages),
    options,
  );
  return judgeListing(listing, guard).check;
}
