import type {
  Transport,
  TransportSendOptions,
} from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, MessageExtraInfo } from "@modelcontextprotocol/sdk/types.js";
import { type ListingFault, ToolListingDriftError } from "../errors.js";
import type { ToolDefinitionPinGuard } from "../pins/index.js";
import type { ListingCheck, ToolDefinition } from "../pins/types.js";
import {
  errorMessage,
  isObject,
  isRequest,
  isResponse,
  type JsonRpcId,
  resultMessage,
} from "./json-rpc.js";
import { checkOnDrift, type OnDrift } from "./list-tools.js";
import {
  blockedToolResult,
  LISTING_REFUSED_ERROR_CODE,
  listingRefusedMessage,
  quoteName,
} from "./refusal.js";
import { checkMaxPages, DEFAULT_MAX_PAGES } from "./tool-pages.js";

/** What a transport guard refused (or, with `enforce` off, would have refused). */
export interface TransportRefusal {
  kind: "listing" | "call";
  /** True when the message was actually refused (false with `enforce` off: logged only). */
  enforced: boolean;
  message: string;
  /** The tool of a refused call. */
  toolName?: string;
  /** The pagination or listing fault of a refused listing. */
  fault?: ListingFault;
  /** The per-page judgement, when there is one. */
  check?: ListingCheck;
}

/** Options of {@link PinnedClientTransport}. */
export interface PinnedClientTransportOptions {
  /** `raise` (default): a page with a refused tool becomes a JSON-RPC error. `filter`: refused tools are dropped. */
  onDrift?: OnDrift;
  /** Refuse the tools/list request for a page past this many (default 100); it is never sent. */
  maxPages?: number;
  /** Called with every refusal; an exception in it is ignored. */
  onRefusal?: (refusal: TransportRefusal) => void;
}

interface ListingState {
  cursors: Set<string>;
  names: Set<string>;
  pages: number;
}

/**
 * A client-side `Transport` that judges raw `tools/list` pages before the client parses
 * them (full fidelity: the SDK 1.x client strips fields it does not know before your
 * code sees them) and refuses a `tools/call` of any tool the last checked listing did
 * not admit. Wrap the transport, then connect the client to the wrapper.
 *
 * Pages are judged as they arrive: a tool seen on an earlier page of the same listing
 * is a duplicate (refused on its second page and no longer callable). A listing starts
 * with a request without a cursor; its admitted tools replace the previous ones, so the
 * callable set is always the last listing's, ceilinged by the pins. Pagination faults
 * (non-string or repeated cursor, a page that is not a listing, more than `maxPages`)
 * become JSON-RPC errors in every mode and leave nothing callable.
 *
 * A refused call never reaches the server: the client receives an `isError` result whose
 * text starts `AIRLOCK_BLOCK:`. With `guard.enforce` off nothing is refused; refusals are
 * reported to `onRefusal` only.
 *
 * @example
 * ```ts
 * import { Client } from "@modelcontextprotocol/sdk/client/index.js";
 * import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
 * import { ToolDefinitionPinGuard } from "agent-airlock";
 * import { PinnedClientTransport } from "agent-airlock/mcp";
 * const guard = new ToolDefinitionPinGuard();
 * const [clientSide] = InMemoryTransport.createLinkedPair();
 * const client = new Client({ name: "app", version: "1.0.0" });
 * const transport = new PinnedClientTransport(clientSide, guard, { onDrift: "filter" });
 * // await client.connect(transport); await client.listTools();
 * console.log(transport.admitted); // []
 * ```
 */
export class PinnedClientTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  readonly #inner: Transport;
  readonly #guard: ToolDefinitionPinGuard;
  readonly #onDrift: OnDrift;
  readonly #maxPages: number;
  readonly #onRefusal: ((refusal: TransportRefusal) => void) | undefined;
  readonly #pending = new Map<JsonRpcId, { first: boolean }>();
  #listing: ListingState | undefined;
  readonly #admitted = new Map<string, ToolDefinition>();

  constructor(
    inner: Transport,
    guard: ToolDefinitionPinGuard,
    options: PinnedClientTransportOptions = {},
  ) {
    this.#inner = inner;
    this.#guard = guard;
    this.#onDrift = checkOnDrift(options.onDrift ?? "raise");
    this.#maxPages = checkMaxPages(options.maxPages ?? DEFAULT_MAX_PAGES);
    this.#onRefusal = options.onRefusal;
    inner.onmessage = (message, extra) => this.#receive(message, extra);
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
  }

  /** Names of the tools the last checked listing admitted (callable now). */
  get admitted(): string[] {
    return [...this.#admitted.keys()];
  }

  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  setProtocolVersion(version: string): void {
    this.#inner.setProtocolVersion?.(version);
  }

  start(): Promise<void> {
    return this.#inner.start();
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (isRequest(message) && message.method === "tools/list") {
      const cursor = message.params?.cursor;
      const first = cursor === undefined;
      if (!first && this.#listing && this.#listing.pages >= this.#maxPages) {
        this.#failListing("too_many_pages", `tools/list has more than ${this.#maxPages} pages`);
        this.#deliverLater(
          errorMessage(
            message.id,
            LISTING_REFUSED_ERROR_CODE,
            `tools/list refused: more than ${this.#maxPages} pages`,
          ),
        );
        return;
      }
      this.#pending.set(message.id, { first });
    } else if (isRequest(message) && message.method === "tools/call") {
      const reason = this.#refuseCall(message.params?.name);
      if (reason !== undefined) {
        const enforced = this.#guard.enforce;
        this.#report({
          kind: "call",
          enforced,
          message: reason,
          toolName: String(message.params?.name),
        });
        if (enforced) {
          this.#deliverLater(resultMessage(message.id, blockedToolResult(reason)));
          return;
        }
      }
    }
    return this.#inner.send(message, options);
  }

  #deliverLater(message: unknown): void {
    queueMicrotask(() => this.onmessage?.(message as JSONRPCMessage));
  }

  #report(refusal: TransportRefusal): void {
    try {
      this.#onRefusal?.(refusal);
    } catch {
      // A faulty listener must not change the decision.
    }
  }

  #refuseCall(name: unknown): string | undefined {
    if (typeof name !== "string") return "the tool call has no tool name.";
    const definition = this.#admitted.get(name);
    if (definition === undefined) {
      return `tool ${quoteName(name)} is not admitted by the pins: it was not admitted by the last checked tools/list. List the tools again, or ask the operator to approve it.`;
    }
    try {
      const decision = this.#guard.check(definition);
      if (decision.allowed) return undefined;
      return `tool ${quoteName(name)} is not admitted by the pins: ${decision.detail}`;
    } catch (err) {
      return `tool ${quoteName(name)} cannot be judged: ${(err as Error).message}`;
    }
  }

  #receive(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
    if (isResponse(message)) {
      const request = this.#pending.get(message.id);
      if (request !== undefined) {
        this.#pending.delete(message.id);
        this.onmessage?.(this.#judgePage(message, request.first) as JSONRPCMessage, extra);
        return;
      }
    }
    this.onmessage?.(message, extra);
  }

  #failListing(fault: ListingFault, message: string, check?: ListingCheck): void {
    this.#listing = undefined;
    this.#admitted.clear();
    this.#report({ kind: "listing", enforced: true, message, fault, ...(check ? { check } : {}) });
  }

  #judgePage(
    message: { id: JsonRpcId; result?: unknown; error?: unknown },
    first: boolean,
  ): unknown {
    if (first) {
      this.#listing = { cursors: new Set(), names: new Set(), pages: 0 };
      this.#admitted.clear();
    }
    if (message.error !== undefined) {
      if (first) this.#listing = undefined;
      return message;
    }
    const listing = this.#listing ?? {
      cursors: new Set<string>(),
      names: new Set<string>(),
      pages: 0,
    };
    this.#listing = listing;
    const page = message.result;
    const refuse = (fault: ListingFault, text: string, check?: ListingCheck) => {
      this.#failListing(fault, text, check);
      return errorMessage(message.id, LISTING_REFUSED_ERROR_CODE, text, { fault });
    };
    if (!isObject(page) || !Array.isArray(page.tools)) {
      return refuse(
        first ? "unreadable" : "page_not_listing",
        "tools/list refused: the page is not a listing",
      );
    }
    const next = page.nextCursor;
    if (next !== undefined && typeof next !== "string") {
      return refuse("cursor_not_string", "tools/list refused: nextCursor is not a string");
    }
    if (typeof next === "string" && next !== "") {
      if (listing.cursors.has(next)) {
        return refuse("cursor_repeated", "tools/list refused: a cursor was returned twice");
      }
      listing.cursors.add(next);
    }
    listing.pages += 1;
    const tools = page.tools as unknown[];
    let check: ListingCheck;
    try {
      check = this.#guard.checkListing({ tools });
    } catch (err) {
      if (err instanceof ToolListingDriftError)
        return refuse(err.fault, `tools/list refused: ${err.message}`);
      throw err;
    }
    const admitted = new Set(check.admitted);
    const refusedNames: (string | null)[] = check.refused.map((r) => r.name);
    const repeated = new Set<string>();
    for (const tool of tools) {
      const name = isObject(tool) ? tool.name : undefined;
      if (typeof name !== "string") continue;
      if (listing.names.has(name)) {
        repeated.add(name);
        refusedNames.push(name);
        this.#admitted.delete(name);
      }
    }
    for (const tool of tools) {
      const name = isObject(tool) ? tool.name : undefined;
      if (typeof name === "string") listing.names.add(name);
    }
    const kept = tools.filter((tool) => {
      const name = isObject(tool) ? tool.name : undefined;
      return typeof name === "string" && admitted.has(name) && !repeated.has(name);
    });
    if (refusedNames.length > 0) {
      const text = listingRefusedMessage(refusedNames);
      if (!this.#guard.enforce) {
        this.#report({ kind: "listing", enforced: false, message: text, fault: "refused", check });
        for (const tool of tools) this.#admitTool(tool);
        return message;
      }
      if (this.#onDrift === "raise") return refuse("refused", text, check);
      this.#report({ kind: "listing", enforced: true, message: text, fault: "refused", check });
    }
    for (const tool of kept) this.#admitTool(tool);
    if (kept.length === tools.length) return message;
    return { ...message, result: { ...page, tools: kept } };
  }

  #admitTool(tool: unknown): void {
    if (isObject(tool) && typeof tool.name === "string") {
      this.#admitted.set(tool.name, tool as ToolDefinition);
    }
  }
}
