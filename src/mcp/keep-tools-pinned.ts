import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import type { ToolDefinitionPinGuard } from "../pins/index.js";
import type { ToolDefinition } from "../pins/types.js";
import { McpClientUnsupportedError } from "./errors.js";
import { checkOnDrift, listAllToolsPinned, type OnDrift } from "./list-tools.js";
import { type McpToolClient, toolPageSource } from "./tool-page-source.js";
import { DEFAULT_MAX_PAGES, type ToolListing } from "./tool-pages.js";

const LIST_CHANGED = "notifications/tools/list_changed";

/** Options of {@link keepToolsPinned}. */
export interface KeepToolsPinnedOptions {
  /** `filter` (default): expose what the pins admit. `raise`: any refusal exposes nothing. */
  onDrift?: OnDrift;
  /** Cap on the pages of each listing (default 100). */
  maxPages?: number;
  /** Called after every re-listing with the tools now exposed. */
  onUpdate?: (tools: readonly ToolDefinition[]) => void;
  /** Called when a re-listing fails or is refused; the exposed set is then empty. */
  onError?: (error: unknown) => void;
  /**
   * How to hear `notifications/tools/list_changed` for a client without a notification
   * API (the AI SDK client, a request function): register `onChanged`, return an
   * unsubscribe function. SDK 1.x and 2.x clients are subscribed automatically.
   */
  subscribe?: (onChanged: () => void) => () => void;
}

/** The tools a client may expose, kept under the pins. */
export interface PinnedToolSet {
  /** The tools exposed now: admitted by the pins in the last listing. */
  readonly tools: readonly ToolDefinition[];
  /** True when `name` is exposed now. */
  has(name: string): boolean;
  /** Re-list every page and re-check now; resolves with the tools then exposed. */
  refresh(): Promise<readonly ToolDefinition[]>;
  /** Stop listening for list changes. */
  stop(): void;
}

type Subscribe = (onChanged: () => void) => () => void;

function notificationSubscription(client: McpToolClient): Subscribe | undefined {
  const kind = toolPageSource(client).kind;
  const target = client as {
    setNotificationHandler?: (...args: unknown[]) => void;
    removeNotificationHandler?: (method: string) => void;
  };
  if (typeof target.setNotificationHandler !== "function") return undefined;
  if (kind !== "sdk-1" && kind !== "sdk-2") return undefined;
  return (onChanged) => {
    if (kind === "sdk-1")
      target.setNotificationHandler?.(ToolListChangedNotificationSchema, onChanged);
    else target.setNotificationHandler?.(LIST_CHANGED, onChanged);
    return () => target.removeNotificationHandler?.(LIST_CHANGED);
  };
}

/**
 * List every page through `client` now and again whenever the server sends
 * `notifications/tools/list_changed`, and keep the exposed tools under the pins.
 *
 * A new listing is a ceiling, not a refresh: it can never expose a tool the pins do not
 * admit, whatever the server says, so the exposed set can only shrink to what the pins
 * admit (a tool that drifts, is duplicated or is unpinned disappears at the next
 * listing). A listing that fails (pagination fault, unreadable page, a server error, or
 * any refusal under `onDrift: "raise"`) exposes nothing until the next good listing.
 *
 * For an SDK 1.x or 2.x client this sets the client's handler for
 * `notifications/tools/list_changed` (replacing any other, including the SDK's own
 * `listChanged` option); `stop()` removes it. The first listing's errors are thrown.
 *
 * @example
 * ```ts
 * import { Client } from "@modelcontextprotocol/sdk/client/index.js";
 * import { ToolDefinitionPinGuard } from "agent-airlock";
 * import { keepToolsPinned } from "agent-airlock/mcp";
 * declare const client: Client; // connected
 * const guard = new ToolDefinitionPinGuard();
 * const pinned = await keepToolsPinned(client, guard, {
 *   onUpdate: (tools) => console.log("exposed:", tools.map((t) => t.name)),
 * });
 * if (pinned.has("send_report")) await client.callTool({ name: "send_report", arguments: {} });
 * ```
 */
export async function keepToolsPinned(
  client: McpToolClient,
  guard: ToolDefinitionPinGuard,
  options: KeepToolsPinnedOptions = {},
): Promise<PinnedToolSet> {
  const onDrift = checkOnDrift(options.onDrift ?? "filter");
  const maxPages = options.maxPages ?? DEFAULT_MAX_PAGES;
  const subscribe = options.subscribe ?? notificationSubscription(client);
  if (!subscribe) {
    throw new McpClientUnsupportedError(
      "keepToolsPinned needs to hear notifications/tools/list_changed: pass an @modelcontextprotocol/sdk or @modelcontextprotocol/client Client, or a subscribe option",
    );
  }
  let exposed: readonly ToolDefinition[] = [];
  let names = new Set<string>();
  const expose = (tools: readonly ToolDefinition[]) => {
    exposed = Object.freeze([...tools]);
    names = new Set(tools.map((t) => t.name));
  };
  let queue: Promise<unknown> = Promise.resolve();
  const relist = (): Promise<readonly ToolDefinition[]> => {
    const run = queue.then(async () => {
      try {
        const listing: ToolListing = await listAllToolsPinned(client, guard, { onDrift, maxPages });
        expose(listing.tools);
      } catch (err) {
        expose([]);
        throw err;
      }
      try {
        options.onUpdate?.(exposed);
      } catch {
        // A faulty listener must not change what is exposed.
      }
      return exposed;
    });
    queue = run.catch(() => {});
    return run;
  };
  await relist();
  const unsubscribe = subscribe(() => {
    relist().catch((err: unknown) => {
      try {
        options.onError?.(err);
      } catch {
        // ignored: the exposed set is already empty.
      }
    });
  });
  return {
    get tools() {
      return exposed;
    },
    has: (name) => names.has(name),
    refresh: relist,
    stop: unsubscribe,
  };
}
