import { McpClientUnsupportedError } from "./errors.js";
import { type McpToolClient, type ToolsListRequest, toolPageSource } from "./tool-page-source.js";

/**
 * A result "schema" that accepts the answer as sent: the zod-3 style `safeParse` the SDK
 * 1.x `request` calls, and the Standard Schema `validate` the 2.x `request` calls.
 */
const AS_SENT = Object.freeze({
  safeParse: (data: unknown) => ({ success: true, data }),
  safeParseAsync: async (data: unknown) => ({ success: true, data }),
  "~standard": Object.freeze({
    version: 1,
    vendor: "agent-airlock",
    validate: (value: unknown) => ({ value }),
  }),
});

type RequestMethod = (request: unknown, schema: unknown) => Promise<unknown>;

/**
 * A `tools/list` request function that reads pages through an SDK 1.x or 2.x `Client`
 * without the client's result parsing, so no field is stripped (the 1.x client drops keys
 * it does not know, for example inside `annotations`). Approve from the same view the
 * runtime checks: pair it with {@link PinnedClientTransport}, which also sees raw pages.
 *
 * @example
 * ```ts
 * import { Client } from "@modelcontextprotocol/sdk/client/index.js";
 * import { listAllTools, rawToolsList } from "agent-airlock/mcp";
 * declare const client: Client; // connected
 * const { tools } = await listAllTools(rawToolsList(client)); // every field as served
 * ```
 */
export function rawToolsList(client: McpToolClient): ToolsListRequest {
  const kind = toolPageSource(client).kind;
  if (kind !== "sdk-1" && kind !== "sdk-2") {
    throw new McpClientUnsupportedError(
      `rawToolsList needs an @modelcontextprotocol/sdk or @modelcontextprotocol/client Client, got a ${kind} client; wrap its transport with PinnedClientTransport instead`,
    );
  }
  const request = (client as { request: RequestMethod }).request;
  return (params) => request.call(client, { method: "tools/list", params }, AS_SENT);
}
