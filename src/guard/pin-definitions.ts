/**
 * Pins for the tool guard: `{ toolName: sha256 }` over the RFC 8785 (JCS) text of each
 * definition as served.
 *
 * @module
 */
import { definitionSha256 } from "../canonical/index.js";
import { ToolGuardError } from "./errors.js";

/** Approved definitions for the tool guard: tool name to lowercase hex SHA-256. */
export type ToolPins = Record<string, string>;

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

function listOf(tools: unknown): unknown[] {
  if (Array.isArray(tools)) return tools;
  if (tools !== null && typeof tools === "object") {
    const inner = (tools as { tools?: unknown }).tools;
    if (Array.isArray(inner)) return inner;
  }
  throw new ToolGuardError(
    "GUARD_MISCONFIGURED",
    undefined,
    "pinToolDefinitions needs an array of tool definitions or a { tools: [...] } listing",
  );
}

/**
 * Pin tool definitions: `{ toolName: sha256 }`, the `pins` a tool guard takes. Pin the
 * definitions exactly as the agent will receive them (for an MCP client, as its
 * `listTools()` returns them: the 1.x SDK client drops fields it does not know).
 *
 * @throws {ToolGuardError} `GUARD_MISCONFIGURED` when a tool has no valid name or a name is
 *   listed twice (which of the two would be approved?).
 * @throws {CanonicalizationError} when a definition has no JCS form (NaN, Infinity, a lone
 *   surrogate, a cycle, too deep).
 * @example
 * ```ts
 * import { pinToolDefinitions } from "agent-airlock/guard";
 * const pins = pinToolDefinitions([
 *   { name: "weather_forecast", description: "Get the forecast for a city", inputSchema: { type: "object" } },
 * ]);
 * console.log(Object.keys(pins)); // ["weather_forecast"]
 * ```
 */
export function pinToolDefinitions(tools: unknown): ToolPins {
  const pins: ToolPins = {};
  const seen = new Set<string>();
  const list = listOf(tools);
  for (let index = 0; index < list.length; index++) {
    const tool = list[index];
    const name =
      tool !== null && typeof tool === "object" ? (tool as { name?: unknown }).name : undefined;
    if (typeof name !== "string" || !TOOL_NAME.test(name)) {
      throw new ToolGuardError(
        "GUARD_MISCONFIGURED",
        typeof name === "string" ? name : undefined,
        `tool at index ${index} has no valid name (1 to 128 letters, digits, "_", "-" or ".")`,
      );
    }
    if (seen.has(name)) {
      throw new ToolGuardError(
        "GUARD_MISCONFIGURED",
        name,
        `tool ${JSON.stringify(name)} is listed more than once: pin one definition per name`,
      );
    }
    seen.add(name);
    // defineProperty, so a tool named "__proto__" becomes an own key like any other.
    Object.defineProperty(pins, name, {
      value: definitionSha256(tool),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return pins;
}
