/**
 * Recognising an `inputSchema` that the MCP TypeScript SDK wrote itself from a plain zod
 * object. The SDK's zod 4 conversion leaves such a schema open (no
 * `additionalProperties: false`: it converts the input side, where zod accepts extra
 * keys), and then validates every call with the same zod object, which drops the keys it
 * does not declare before the handler runs. So the declared contract is open while the
 * handler only ever sees declared arguments: SCAN003 grades that as a warning (see
 * docs/decisions.md, "An open schema the MCP SDK wrote itself").
 */

const DRAFT_07 = "http://json-schema.org/draft-07/schema#";
const DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema";

/**
 * Which SDK conversion wrote this schema, or null: a top-level `type: "object"` with the
 * `$schema` the SDK's conversion writes, draft-07 for `@modelcontextprotocol/sdk` 1.x
 * (zod 4's `toJSONSchema`, input side) and draft 2020-12 for `@modelcontextprotocol/server`
 * 2.x, and no `additionalProperties` or `unevaluatedProperties` at all (`z.looseObject`
 * writes `additionalProperties: {}`, `z.strictObject` writes `false`). Key order is not
 * part of it: the SDK's own client reorders the keys it validates. A server can forge the
 * shape, but a server can as easily declare a closed schema it does not enforce: the shape
 * only tells which generator wrote the schema, never what the server does.
 *
 * @example
 * ```ts
 * import { sdkConversion } from "./sdk-schema.js";
 * const schema = { $schema: "http://json-schema.org/draft-07/schema#", type: "object", properties: {} };
 * console.log(sdkConversion(schema)); // "the MCP SDK 1.x zod conversion"
 * ```
 */
export function sdkConversion(schema: Record<string, unknown>): string | null {
  if (
    Object.hasOwn(schema, "additionalProperties") ||
    Object.hasOwn(schema, "unevaluatedProperties") ||
    schema.type !== "object"
  )
    return null;
  if (schema.$schema === DRAFT_07) return "the MCP SDK 1.x zod conversion";
  if (schema.$schema === DRAFT_2020_12) return "the MCP SDK 2.x zod conversion";
  return null;
}
