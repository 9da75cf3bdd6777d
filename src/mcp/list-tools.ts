import { ToolListingDriftError } from "../errors.js";
import { admitToolsList, type ToolDefinitionPinGuard } from "../pins/index.js";
import { McpOptionError } from "./errors.js";
import { type McpToolClient, toolPageSource } from "./tool-page-source.js";
import {
  collectToolPages,
  DEFAULT_MAX_PAGES,
  mergedListing,
  type ToolListing,
} from "./tool-pages.js";

/** What to do with a listing the pins refuse. */
export type OnDrift = "raise" | "filter";

/** Options of {@link listToolsPinned}. */
export interface ListToolsPinnedOptions {
  /** `raise` (default) throws `ToolListingDriftError`; `filter` drops every unadmitted tool. */
  onDrift?: OnDrift;
}

/** Options of {@link listAllToolsPinned}. */
export interface ListAllToolsPinnedOptions extends ListToolsPinnedOptions {
  /** Refuse a listing with more pages than this (default 100). The page past it is never requested. */
  maxPages?: number;
}

/** @internal */
export function checkOnDrift(onDrift: unknown): OnDrift {
  if (onDrift !== "raise" && onDrift !== "filter") {
    throw new McpOptionError(`onDrift must be "raise" or "filter", got ${String(onDrift)}`);
  }
  return onDrift;
}

/**
 * One `tools/list` call through `client`, judged by `guard`. The result comes back in
 * the client's own shape (a copy: the client's object is never modified). With
 * `onDrift: "filter"` unadmitted tools are dropped; with `"raise"` a refused listing
 * throws `ToolListingDriftError`. A result that is not a listing throws in every mode
 * (fault `unreadable`). With `guard.enforce` off the listing comes back unchanged.
 *
 * @example
 * ```ts
 * import { ToolDefinitionPinGuard } from "agent-airlock";
 * import { listToolsPinned } from "agent-airlock/mcp";
 * const guard = new ToolDefinitionPinGuard();
 * guard.approve({ name: "echo", description: "Echo text." });
 * const listing = await listToolsPinned(
 *   async () => ({ tools: [{ name: "echo", description: "Echo text." }, { name: "rm_rf" }] }),
 *   guard,
 *   { onDrift: "filter" },
 * );
 * console.log(listing.tools.map((t) => t.name)); // ["echo"]
 * ```
 */
export async function listToolsPinned(
  client: McpToolClient,
  guard: ToolDefinitionPinGuard,
  options: ListToolsPinnedOptions = {},
): Promise<ToolListing> {
  const onDrift = checkOnDrift(options.onDrift ?? "raise");
  const page = await toolPageSource(client).fetchPage(undefined);
  if (!isListing(page)) {
    throw new ToolListingDriftError(
      "unreadable",
      "tools/list did not return a listing (expected an object with a tools array); nothing is admitted",
    );
  }
  return admitToolsList(guard, page as ToolListing, { onDrift }) as ToolListing;
}

/**
 * Every page of `tools/list` through `client`, collected and judged once by `guard` (a
 * tool on two pages is a duplicate, and `missing` covers the whole listing). The result
 * has the first page's shape, every admitted tool, and no `nextCursor`.
 *
 * Pagination faults throw `ToolListingDriftError` in every mode, `enforce` off included:
 * `cursor_repeated`, `cursor_not_string`, `page_not_listing`, `too_many_pages` (the page
 * past `maxPages` is never requested) and `cursor_unsupported`. An empty-string cursor
 * ends the listing.
 *
 * @example
 * ```ts
 * import { ToolDefinitionPinGuard } from "agent-airlock";
 * import { listAllToolsPinned } from "agent-airlock/mcp";
 * const pages: Record<string, { tools: { name: string }[]; nextCursor?: string }> = {
 *   "": { tools: [{ name: "a" }], nextCursor: "p2" },
 *   p2: { tools: [{ name: "b" }] },
 * };
 * const guard = new ToolDefinitionPinGuard();
 * guard.approve({ name: "a" });
 * const listing = await listAllToolsPinned(async ({ cursor }) => pages[cursor ?? ""], guard, {
 *   onDrift: "filter",
 * });
 * console.log(listing.tools.map((t) => t.name)); // ["a"]
 * ```
 */
export async function listAllToolsPinned(
  client: McpToolClient,
  guard: ToolDefinitionPinGuard,
  options: ListAllToolsPinnedOptions = {},
): Promise<ToolListing> {
  const onDrift = checkOnDrift(options.onDrift ?? "raise");
  const collected = await collectToolPages(toolPageSource(client), {
    maxPages: options.maxPages ?? DEFAULT_MAX_PAGES,
  });
  return admitToolsList(guard, mergedListing(collected), { onDrift }) as ToolListing;
}

function isListing(page: unknown): boolean {
  return (
    typeof page === "object" &&
    page !== null &&
    !Array.isArray(page) &&
    Array.isArray((page as { tools?: unknown }).tools)
  );
}
