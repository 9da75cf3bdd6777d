/**
 * The proxy's own full listing of the server (every page, under ids of its own): after
 * `notifications/initialized`, on every `notifications/tools/list_changed` and, with
 * `relistBeforeEachCall`, before each call. Its result replaces the admitted set (less
 * the names closed for the session); calls wait while a listing runs. Listings asked for
 * while one runs are folded into one more run, so a storm of `list_changed` cannot queue
 * a listing per notification.
 */
import { toolPageSource } from "../mcp/tool-page-source.js";
import { collectToolPages } from "../mcp/tool-pages.js";
import type { ToolAdmission } from "./admission.js";
import type { ProxyAuditor } from "./auditor.js";
import type { InFlightRequests } from "./request-ids.js";
import type { InFlight, ListingJudge, OwnRequest } from "./types.js";
import type { Upstream } from "./upstream.js";

/** Default wait for the server's answer to one page of the proxy's own listing. */
export const DEFAULT_LIST_TIMEOUT_MS = 30_000;

/** Default page cap of the proxy's own listing. */
export const DEFAULT_MAX_PAGES = 100;

const PROXY_ID_PREFIX = `airlock-proxy:${process.pid}:${Date.now().toString(36)}:`;

/** What an {@link OwnListing} works with: the running proxy's parts. */
export interface OwnListingContext {
  guard: ListingJudge;
  upstream: Upstream;
  inFlight: InFlightRequests<InFlight>;
  admission: ToolAdmission;
  auditor: ProxyAuditor;
  log(line: string): void;
  maxPages: number;
  listTimeoutMs: number;
  /** True once the proxy is stopping: a failed listing is then not reported. */
  stopping(): boolean;
  /** Called when no listing is running any more. */
  settled(): void;
}

/**
 * The proxy's own listings of one session.
 *
 * @example
 * ```ts
 * import { OwnListing } from "./own-listing.js";
 * const listing = new OwnListing(context); // context: the proxy's parts
 * listing.refresh();
 * console.log(listing.busy); // true until the server has answered every page
 * ```
 */
export class OwnListing {
  /** False once the server's `initialize` answer declared no tools: nothing to list then. */
  serverHasTools = true;
  private readonly context: OwnListingContext;
  private running: Promise<void> | null = null;
  private again = false;
  private nextId = 1;

  constructor(context: OwnListingContext) {
    this.context = context;
  }

  get busy(): boolean {
    return this.running !== null;
  }

  /** List the server (all pages) and replace the admitted set; folded into a running one. */
  refresh(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.listAndCheck().finally(() => {
      this.running = null;
      if (this.again && !this.context.stopping()) {
        this.again = false;
        this.refresh();
        return;
      }
      this.context.settled();
    });
  }

  private async listAndCheck(): Promise<void> {
    const { admission, auditor, guard } = this.context;
    if (!this.serverHasTools) {
      admission.admitNothing();
      return;
    }
    try {
      const collected = await collectToolPages(
        toolPageSource((params: { cursor?: string }) => this.request("tools/list", params)),
        { maxPages: this.context.maxPages },
      );
      const check = guard.checkListing({ tools: collected.tools });
      auditor.listingCheck(check, "proxy");
      admission.adoptListing(check);
      if (!check.allowed) {
        const names = check.refused.map((r) => `${r.name ?? "?"} (${r.reason})`).join(", ");
        this.context.log(`refusing ${check.refused.length} tool(s): ${names}`);
      }
    } catch (error) {
      if (this.context.stopping()) return;
      admission.admitNothing();
      auditor.listingFailed(
        (error as { fault?: unknown }).fault ?? "unreadable",
        (error as Error).message,
      );
      this.context.log(`tools/list refused, no tool can be called: ${(error as Error).message}`);
    }
  }

  private request(method: string, params: unknown): Promise<unknown> {
    const { inFlight, listTimeoutMs, upstream } = this.context;
    return new Promise((resolve, reject) => {
      const request: OwnRequest = { from: "proxy", method, resolve, reject, timer: undefined };
      let id: string;
      // A client could, however unlikely, be using the next id: then take the one after.
      do {
        id = `${PROXY_ID_PREFIX}${this.nextId++}`;
      } while (inFlight.claim(id, request).length > 0);
      request.timer = setTimeout(() => {
        inFlight.release(id);
        reject(new Error(`the server did not answer ${method} within ${listTimeoutMs} ms`));
      }, listTimeoutMs);
      request.timer.unref();
      const message = { jsonrpc: "2.0", id, method, params };
      upstream.send(message, JSON.stringify(message));
    });
  }
}
