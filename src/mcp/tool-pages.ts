import { ToolListingDriftError } from "../errors.js";
import type { ToolDefinition } from "../pins/types.js";
import { McpOptionError } from "./errors.js";
import type { ToolPageSource } from "./tool-page-source.js";

/**
 * Default cap on the pages of one full listing.
 *
 * @example
 * ```ts
 * import { DEFAULT_MAX_PAGES } from "agent-airlock/mcp";
 * console.log(DEFAULT_MAX_PAGES); // 100
 * ```
 */
export const DEFAULT_MAX_PAGES = 100;

/**
 * A `tools/list` result: the tools plus whatever else the server sent (`_meta`, ...).
 * Results of the client helpers keep every field of the first page except `nextCursor`.
 */
export interface ToolListing {
  tools: ToolDefinition[];
  nextCursor?: string;
  [field: string]: unknown;
}

/** Every page of one listing, collected but not yet judged. */
export interface CollectedToolPages {
  /** The first page as the client returned it (its shape is the result's shape). */
  first: Record<string, unknown>;
  /** The tools of every page, in order, duplicates kept (the pin guard judges them). */
  tools: unknown[];
  /** How many pages were fetched. */
  pages: number;
}

/** @internal Validates a `maxPages` option. */
export function checkMaxPages(maxPages: unknown): number {
  if (typeof maxPages !== "number" || !Number.isInteger(maxPages) || maxPages < 1) {
    throw new McpOptionError(`maxPages must be a positive integer, got ${String(maxPages)}`);
  }
  return maxPages;
}

function readPage(page: unknown, index: number): { tools: unknown[]; next: unknown } {
  if (typeof page === "object" && page !== null && !Array.isArray(page)) {
    const tools = (page as { tools?: unknown }).tools;
    if (Array.isArray(tools)) return { tools, next: (page as { nextCursor?: unknown }).nextCursor };
  }
  throw new ToolListingDriftError(
    "page_not_listing",
    `tools/list page ${index + 1} is not a listing (expected an object with a tools array); nothing from this server is admitted`,
  );
}

/**
 * Fetch every `tools/list` page from `source`, refusing pagination faults whatever the
 * pin guard's mode: a cursor seen twice, a cursor that is not a string, a page that is
 * not a listing, more than `maxPages` pages (the page past the cap is never requested),
 * or a client that cannot pass a cursor. An absent or empty-string cursor ends the
 * listing.
 *
 * @example
 * ```ts
 * import { collectToolPages, toolPageSource } from "agent-airlock/mcp";
 * const pages = [{ tools: [{ name: "a" }], nextCursor: "2" }, { tools: [{ name: "b" }] }];
 * const source = toolPageSource(async ({ cursor }) => pages[cursor === undefined ? 0 : 1]);
 * const collected = await collectToolPages(source, { maxPages: 10 });
 * console.log(collected.tools.length, collected.pages); // 2 2
 * ```
 */
export async function collectToolPages(
  source: ToolPageSource,
  options: { maxPages?: number } = {},
): Promise<CollectedToolPages> {
  const maxPages = checkMaxPages(options.maxPages ?? DEFAULT_MAX_PAGES);
  const first = await source.fetchPage(undefined);
  const firstPage = readPage(first, 0);
  const tools: unknown[] = [...firstPage.tools];
  const seen = new Set<string>();
  let next = firstPage.next;
  let pages = 1;
  while (next !== undefined && next !== "") {
    if (typeof next !== "string") {
      throw new ToolListingDriftError(
        "cursor_not_string",
        `tools/list page ${pages} has a nextCursor that is not a string (${next === null ? "null" : typeof next}); the listing is refused`,
      );
    }
    if (!source.followsCursor) {
      throw new ToolListingDriftError(
        "cursor_unsupported",
        `the server returned more than one page of tools but this ${source.kind} client cannot pass a cursor; use a client agent-airlock can page`,
      );
    }
    if (seen.has(next)) {
      throw new ToolListingDriftError(
        "cursor_repeated",
        `tools/list cursor ${JSON.stringify(next.slice(0, 80))} was returned twice (a cursor loop); the listing is refused`,
      );
    }
    if (pages >= maxPages) {
      throw new ToolListingDriftError(
        "too_many_pages",
        `tools/list has more than ${maxPages} pages; the listing is refused (raise maxPages if the server is known to be this large)`,
      );
    }
    seen.add(next);
    const page = readPage(await source.fetchPage(next), pages);
    pages += 1;
    for (const tool of page.tools) tools.push(tool);
    next = page.next;
  }
  return { first: first as Record<string, unknown>, tools, pages };
}

/**
 * @internal The first page's shape carrying every collected tool, without `nextCursor`.
 * The first page is copied, never modified.
 */
export function mergedListing(collected: CollectedToolPages): ToolListing {
  const { nextCursor: _dropped, ...rest } = collected.first;
  return { ...rest, tools: collected.tools as ToolDefinition[] };
}
