import { McpClientUnsupportedError } from "./errors.js";

/** The kinds of MCP client agent-airlock can page, each by its own paging call. */
export type McpClientKind =
  /** `@modelcontextprotocol/sdk` 1.x `Client`: `listTools({ cursor })`. */
  | "sdk-1"
  /** `@modelcontextprotocol/client` 2.x `Client`: first page by `request`, then `listTools({ cursor })`. */
  | "sdk-2"
  /** Vercel `@ai-sdk/mcp` client: `listTools({ params: { cursor } })`. */
  | "ai-sdk"
  /** A bare `request(params) => result` function answering `tools/list`. */
  | "request-function"
  /** An object with a `listTools()` of unknown signature: first page only. */
  | "list-only";

/** A `tools/list` request function: receives the request params, returns the result. */
export type ToolsListRequest = (params: { cursor?: string }) => unknown;

/**
 * Anything a client helper accepts: an SDK 1.x or 2.x `Client`, an `@ai-sdk/mcp` client,
 * or a `request(params) => result` function. Typed loosely on purpose so that no client
 * package is imported by this module; the object is inspected at run time.
 */
export type McpToolClient = ToolsListRequest | object;

/** One way of fetching `tools/list` pages from a client. */
export interface ToolPageSource {
  /** The client kind, or `server` when agent-airlock reads a server's own listing. */
  readonly kind: McpClientKind | "server";
  /** False when the client has no way to pass a cursor (kind `list-only`). */
  readonly followsCursor: boolean;
  fetchPage(cursor: string | undefined): Promise<unknown>;
}

type Method = (...args: unknown[]) => unknown;

function method(target: object, name: string): Method | undefined {
  const value = (target as Record<string, unknown>)[name];
  return typeof value === "function" ? (value as Method) : undefined;
}

/**
 * Recognise `client` and return its paging call. Detection looks only at public
 * methods: the 2.x client has `getProtocolEra`, the AI SDK client has
 * `toolsFromDefinitions`, the 1.x client has `request` and `getServerCapabilities`.
 *
 * @example
 * ```ts
 * import { toolPageSource } from "agent-airlock/mcp";
 * const source = toolPageSource(async () => ({ tools: [{ name: "echo" }] }));
 * console.log(source.kind, await source.fetchPage(undefined));
 * ```
 */
export function toolPageSource(client: McpToolClient): ToolPageSource {
  if (typeof client === "function") {
    const request = client as ToolsListRequest;
    return {
      kind: "request-function",
      followsCursor: true,
      fetchPage: async (cursor) => request(cursor === undefined ? {} : { cursor }),
    };
  }
  if (typeof client !== "object" || client === null) {
    throw new McpClientUnsupportedError(
      `expected an MCP client or a tools/list request function, got ${client === null ? "null" : typeof client}`,
    );
  }
  const listTools = method(client, "listTools");
  const request = method(client, "request");
  if (listTools && method(client, "toolsFromDefinitions")) {
    return {
      kind: "ai-sdk",
      followsCursor: true,
      fetchPage: async (cursor) =>
        listTools.call(client, cursor === undefined ? undefined : { params: { cursor } }),
    };
  }
  if (listTools && request && method(client, "getProtocolEra")) {
    // 2.x listTools() without a cursor walks every page itself (capped at its own
    // limit, and cached): ask for the first page directly so we do the paging.
    return {
      kind: "sdk-2",
      followsCursor: true,
      fetchPage: async (cursor) =>
        cursor === undefined
          ? request.call(client, { method: "tools/list", params: {} })
          : listTools.call(client, { cursor }),
    };
  }
  if (listTools && request && method(client, "getServerCapabilities")) {
    return {
      kind: "sdk-1",
      followsCursor: true,
      fetchPage: async (cursor) =>
        listTools.call(client, cursor === undefined ? undefined : { cursor }),
    };
  }
  if (listTools) {
    return {
      kind: "list-only",
      followsCursor: false,
      fetchPage: async () => listTools.call(client),
    };
  }
  throw new McpClientUnsupportedError(
    "this object is not an MCP client agent-airlock can page: pass an @modelcontextprotocol/sdk Client, an @modelcontextprotocol/client Client, an @ai-sdk/mcp client, or a request(params) => result function for tools/list",
  );
}
