import { readToolName } from "../canonical/digest.js";
import { AirlockError, ToolListingDriftError } from "../errors.js";
import type { ToolDefinitionPinGuard } from "./guard.js";
import type { ListingCheck, PinDecision, RefusedTool } from "./types.js";

/**
 * The tools array of a `tools/list` result: `{ tools: [...] }`, any object with an array
 * `.tools` (an SDK `ListToolsResult`), or the array itself. Anything else is
 * `ToolListingDriftError` with fault `unreadable`.
 *
 * @example
 * ```ts
 * import { listingTools } from "agent-airlock";
 * console.log(listingTools({ tools: [{ name: "a" }] }).length); // 1
 * ```
 */
export function listingTools(listing: unknown): readonly unknown[] {
  if (Array.isArray(listing)) return listing;
  if (typeof listing === "object" && listing !== null) {
    const tools = (listing as { tools?: unknown }).tools;
    if (Array.isArray(tools)) return tools;
  }
  throw new ToolListingDriftError(
    "unreadable",
    "tools/list refused: the result is not a listing (expected { tools: [...] } or an array)",
  );
}

interface ReadEntry {
  index: number;
  name: string | null;
  plain: unknown;
  error: string | null;
}

function readEntry(entry: unknown, index: number): ReadEntry {
  let plain = entry;
  try {
    const toJSON = (entry as { toJSON?: unknown } | null)?.toJSON;
    if (typeof toJSON === "function") plain = toJSON.call(entry);
    return { index, name: readToolName(plain), plain, error: null };
  } catch (err) {
    const raw = (plain as { name?: unknown } | null)?.name;
    const name = typeof raw === "string" && raw !== "" ? raw : null;
    return { index, name, plain, error: (err as Error).message };
  }
}

/** Judge a listing against `guard`: see `ToolDefinitionPinGuard.checkListing`. */
export function judgeListing(guard: ToolDefinitionPinGuard, listing: unknown): ListingCheck {
  const tools = listingTools(listing);
  const entries = tools.map(readEntry);
  const counts = new Map<string, number>();
  for (const entry of entries) {
    if (entry.error === null && entry.name !== null) {
      counts.set(entry.name, (counts.get(entry.name) ?? 0) + 1);
    }
  }
  const admitted: string[] = [];
  const refused: RefusedTool[] = [];
  const decisions: PinDecision[] = [];
  const present = new Set<string>();
  for (const entry of entries) {
    if (entry.name !== null) present.add(entry.name);
    if (entry.error !== null || entry.name === null) {
      refused.push({
        name: entry.name,
        index: entry.index,
        reason: "unreadable",
        detail: `entry ${entry.index} cannot be read as a tool: ${entry.error ?? "no name"}`,
      });
      continue;
    }
    const copies = counts.get(entry.name) ?? 0;
    if (copies > 1) {
      refused.push({
        name: entry.name,
        index: entry.index,
        reason: "duplicate",
        detail: `tool ${JSON.stringify(entry.name)} is listed ${copies} times; every copy is refused (a call by name could reach any of them)`,
      });
      continue;
    }
    let decision: PinDecision;
    try {
      decision = guard.check(entry.plain);
    } catch (err) {
      if (!(err instanceof AirlockError)) throw err;
      refused.push({
        name: entry.name,
        index: entry.index,
        reason: "unreadable",
        detail: `tool ${JSON.stringify(entry.name)} cannot be canonicalised: ${err.message}`,
      });
      continue;
    }
    decisions.push(decision);
    if (decision.allowed) {
      admitted.push(entry.name);
    } else {
      refused.push({
        name: entry.name,
        index: entry.index,
        reason: decision.verdict === "deny_unpinned" ? "unpinned" : "drift",
        decision,
        detail: decision.detail,
      });
    }
  }
  const missing = guard
    .pinnedNames()
    .filter((name) => !present.has(name))
    .sort();
  return { allowed: refused.length === 0, admitted, refused, missing, decisions };
}

function describeRefusal(tool: RefusedTool): string {
  const label = tool.name === null ? `#${tool.index}` : tool.name;
  const why =
    tool.reason === "drift" && tool.decision
      ? tool.decision.verdict.replace(/^deny_/, "").replaceAll("_", " ")
      : tool.reason;
  return `${label} (${why})`;
}

/** Most refused tools a message names; the rest are counted (a hostile listing can be huge). */
const MAX_NAMED_REFUSALS = 20;

/** The refusal of a listing, with the message MCP clients see. */
export function refusedListingError(check: ListingCheck): ToolListingDriftError {
  const named = check.refused.slice(0, MAX_NAMED_REFUSALS).map(describeRefusal).join(", ");
  const more =
    check.refused.length > MAX_NAMED_REFUSALS
      ? ` and ${check.refused.length - MAX_NAMED_REFUSALS} more`
      : "";
  return new ToolListingDriftError(
    "refused",
    `tools/list refused: not admitted by the pins: ${named}${more}`,
    check,
  );
}

/** Options of {@link admitToolsList}. */
export interface AdmitOptions {
  /** `raise` (default): throw on any refusal. `filter`: drop every tool not admitted. */
  onDrift?: "raise" | "filter";
}

/**
 * What an MCP client calls on every `tools/list` result (the first, and every one after,
 * with or without `notifications/tools/list_changed`): a new listing is a ceiling to
 * check, never a refresh to adopt. Returns the result in its own shape; never mutates it.
 *
 * - `raise`: throws `ToolListingDriftError` when any tool is refused.
 * - `filter`: returns a copy holding only admitted tools (every copy of a duplicate goes).
 * - `enforce` off: returns the result unchanged (judge it with `checkListing` to log).
 * - A result that is not a listing throws in every mode.
 *
 * @example
 * ```ts
 * import { ToolDefinitionPinGuard, admitToolsList } from "agent-airlock";
 * const guard = new ToolDefinitionPinGuard();
 * guard.approve({ name: "add" });
 * const result = { tools: [{ name: "add" }, { name: "exfiltrate" }] };
 * admitToolsList(guard, result, { onDrift: "filter" }).tools; // [{ name: "add" }]
 * ```
 */
export function admitToolsList<T>(
  guard: ToolDefinitionPinGuard,
  result: T,
  options: AdmitOptions = {},
): T {
  const onDrift = options.onDrift ?? "raise";
  if (onDrift !== "raise" && onDrift !== "filter") {
    throw new ToolListingDriftError(
      "unreadable",
      `unknown onDrift mode ${JSON.stringify(onDrift)}`,
    );
  }
  const check = guard.checkListing(result);
  if (!guard.enforce || check.allowed) return result;
  if (onDrift === "raise") throw refusedListingError(check);
  const refusedAt = new Set(check.refused.map((tool) => tool.index));
  const tools = listingTools(result).filter((_, index) => !refusedAt.has(index));
  return (Array.isArray(result) ? tools : { ...(result as object), tools }) as T;
}
