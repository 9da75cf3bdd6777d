import { type McpToolClient, toolPageSource } from "./tool-page-source.js";
import {
  collectToolPages,
  DEFAULT_MAX_PAGES,
  mergedListing,
  type ToolListing,
} from "./tool-pages.js";

/**
 * Every page of `tools/list` through `client`, unjudged: the whole listing in the first
 * page's shape without `nextCursor`. Pagination faults are still refused
 * (`ToolListingDriftError`), so a looping or endless server cannot hang a review. This
 * is what an operator reviews before approving (`airlock pin`).
 *
 * @example
 * ```ts
 * import { listAllTools } from "agent-airlock/mcp";
 * const listing = await listAllTools(async () => ({ tools: [{ name: "echo" }] }));
 * console.log(listing.tools.length); // 1
 * ```
 */
export async function listAllTools(
  client: McpToolClient,
  options: { maxPages?: number } = {},
): Promise<ToolListing> {
  const collected = await collectToolPages(toolPageSource(client), {
    maxPages: options.maxPages ?? DEFAULT_MAX_PAGES,
  });
  return mergedListing(collected);
}
