/**
 * The listing side the MCP adapters share: a server's tools grouped by name, the one
 * definition of a name, and the tools of a capability table that match their pins.
 *
 * @module
 */
import { ToolGuardError } from "../guard/errors.js";
import type { ToolGuard } from "../guard/tool-guard.js";
import { listAllTools } from "../mcp/list-all-tools.js";
import type { OnDrift } from "../mcp/list-tools.js";
import type { McpToolClient } from "../mcp/tool-page-source.js";

/**
 * Every page of the server's tools (agent-airlock's pager: cursor loops, endless and
 * broken pages refused), grouped by name; a name listed more than once keeps every copy.
 * Used by the adapters that build tools from a listing.
 */
export async function listingByName(
  client: McpToolClient,
  maxPages: number,
): Promise<Map<string, unknown[]>> {
  const byName = new Map<string, unknown[]>();
  for (const tool of (await listAllTools(client, { maxPages })).tools) {
    const copies = byName.get(tool.name);
    if (copies === undefined) byName.set(tool.name, [tool]);
    else copies.push(tool);
  }
  return byName;
}

/**
 * The one definition of `name` in a listing grouped by name (undefined when it is not
 * listed), or a `TOOL_DRIFT` refusal when the listing has it twice.
 */
export function uniqueDefinition(listing: Map<string, unknown[]>, name: string): unknown {
  const copies = listing.get(name);
  if (copies === undefined) return undefined;
  if (copies.length > 1) {
    throw new ToolGuardError(
      "TOOL_DRIFT",
      name,
      `the server lists tool ${JSON.stringify(name)} ${copies.length} times: which one would run is ambiguous`,
    );
  }
  return copies[0];
}

/**
 * The definitions the server lists (every page) for the tools of `capabilities`, in the
 * table's order, each checked against its pin (`guard.checkDefinition`). A drifted tool,
 * an unpinned one when pins are required, or one listed twice rejects with its
 * {@link ToolGuardError}, or is left out with `onDrift: "filter"`. A table tool the
 * server does not list is simply absent.
 */
export async function admittedDefinitions(
  client: McpToolClient,
  capabilities: ReadonlyMap<string, string>,
  guard: ToolGuard,
  options: { onDrift: OnDrift; maxPages: number },
): Promise<unknown[]> {
  const listing = await listingByName(client, options.maxPages);
  const admitted: unknown[] = [];
  for (const name of capabilities.keys()) {
    try {
      const definition = uniqueDefinition(listing, name);
      if (definition === undefined) continue;
      await guard.checkDefinition(name, definition);
      admitted.push(definition);
    } catch (err) {
      if (options.onDrift === "raise" || !(err instanceof ToolGuardError)) throw err;
    }
  }
  return admitted;
}
