/**
 * The wire form of a refusal. A refused `tools/call` is an ordinary tool result with
 * `isError: true` whose text starts `AIRLOCK_BLOCK:`, so a model sees why and can act on
 * it; a refused `tools/list` is a JSON-RPC error, so no client mistakes it for an empty
 * listing.
 */

/**
 * Prefix of every refused tool call's text.
 *
 * @example
 * ```ts
 * import { AIRLOCK_BLOCK } from "agent-airlock/mcp";
 * const refused = (text: string) => text.startsWith(AIRLOCK_BLOCK);
 * console.log(refused("AIRLOCK_BLOCK: tool \"x\" is not admitted by the pins.")); // true
 * ```
 */
export const AIRLOCK_BLOCK = "AIRLOCK_BLOCK:";

/**
 * JSON-RPC error code of a refused `tools/list` (in the implementation-defined range).
 *
 * @example
 * ```ts
 * import { LISTING_REFUSED_ERROR_CODE } from "agent-airlock/mcp";
 * import { McpError } from "@modelcontextprotocol/sdk/types.js";
 * const isPinRefusal = (err: unknown) =>
 *   err instanceof McpError && err.code === LISTING_REFUSED_ERROR_CODE;
 * ```
 */
export const LISTING_REFUSED_ERROR_CODE = -32001;

/** A `tools/call` result that refuses the call. */
export interface BlockedToolResult {
  [field: string]: unknown;
  content: { type: "text"; text: string }[];
  isError: true;
}

/**
 * The `tools/call` result agent-airlock returns instead of running a refused tool.
 *
 * @example
 * ```ts
 * import { blockedToolResult } from "agent-airlock/mcp";
 * const result = blockedToolResult("tool \"rm\" is not admitted by the pins.");
 * console.log(result.isError, result.content[0]?.text.startsWith("AIRLOCK_BLOCK:")); // true true
 * ```
 */
export function blockedToolResult(reason: string): BlockedToolResult {
  return { content: [{ type: "text", text: `${AIRLOCK_BLOCK} ${reason}` }], isError: true };
}

/** @internal The message of a refused listing, naming at most 20 tools. */
export function listingRefusedMessage(names: readonly (string | null)[]): string {
  const shown = names.slice(0, 20).map((n) => (n === null ? "<unreadable>" : JSON.stringify(n)));
  const more = names.length > 20 ? ` and ${names.length - 20} more` : "";
  return `tools/list refused: not admitted by the pins: ${shown.join(", ")}${more}`;
}

/** @internal A short, printable form of a tool name taken from hostile input. */
export function quoteName(name: unknown): string {
  if (typeof name !== "string") return `<${name === null ? "null" : typeof name}>`;
  const cut = name.length > 100 ? `${name.slice(0, 100)}...` : name;
  return JSON.stringify(cut);
}
