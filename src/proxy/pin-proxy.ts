import type { Readable, Writable } from "node:stream";
import { AIRLOCK_BLOCK } from "../mcp/refusal.js";
import { toolPageSource } from "../mcp/tool-page-source.js";
import { collectToolPages } from "../mcp/tool-pages.js";
import type { ListingCheck } from "../pins/types.js";
import type { AuditRecord, AuditSink } from "./audit-log.js";
import { ProxyError } from "./errors.js";
import {
  errorResponse,
  idKey,
  type JsonRpcMessage,
  messageKind,
  RPC_INTERNAL_ERROR,
  RPC_INVALID_REQUEST,
  RPC_PARSE_ERROR,
} from "./json-rpc.js";
import { LineChannel, type ReceivedMessage } from "./line-channel.js";
import type { Upstream } from "./upstream.js";

/** What the proxy needs of a pin guard: `ToolDefinitionPinGuard` fits. */
export interface ListingJudge {
  checkListing(listing: unknown): ListingCheck;
}

/** Options of {@link runPinProxy}. */
export interface PinProxyOptions {
  /** The pins in force (`guardFromPinFile(file, { server })`). */
  guard: ListingJudge;
  /** The real server. */
  upstream: Upstream;
  /** The MCP client's side: what it writes, and where to answer it (stdin/stdout). */
  client: { input: Readable; output: Writable };
  /** Pin-file server section, for the audit log. */
  server?: string;
  /** Receives one record per decision. */
  audit?: AuditSink;
  /** Diagnostics for people (default: stderr). */
  log?: (line: string) => void;
  /** Page cap of the proxy's own full listings (default 100). */
  maxPages?: number;
  /** How long the proxy waits for the server to answer its own `tools/list` (default 30 s). */
  listTimeoutMs?: number;
  /** Largest message accepted from the client, in bytes. */
  maxMessageBytes?: number;
  /**
   * List the server again before each `tools/call` (one full listing per call): catches a
   * server that changes a definition without `list_changed`. Default false.
   */
  relistBeforeEachCall?: boolean;
}

/** Why the proxy stopped. */
export interface PinProxyOutcome {
  reason: "client_closed" | "upstream_closed" | "upstream_fault" | "stopped";
  /** What went wrong with the server, when it did. */
  error?: ProxyError;
}

/** A running proxy. */
export interface RunningPinProxy {
  /** Settles when the proxy has stopped, the server is stopped and the client has every answer. */
  done: Promise<PinProxyOutcome>;
  /** Stop now: answer what is waiting, stop the server. */
  stop(): Promise<PinProxyOutcome>;
}

/**
 * Text every refusal starts with, so clients and people can recognise it (one definition:
 * `AIRLOCK_BLOCK`).
 *
 * @example
 * ```ts
 * import { BLOCK_PREFIX } from "agent-airlock/mcp";
 * console.log(BLOCK_PREFIX); // "AIRLOCK_BLOCK:"
 * ```
 */
export const BLOCK_PREFIX = AIRLOCK_BLOCK;

interface PendingRequest {
  id: unknown;
  method: string;
  cursor: string | undefined;
}

interface HeldCall {
  received: ReceivedMessage;
  id: unknown;
}

/** How long a proxy whose server could not start keeps answering the client with the reason. */
const START_FAILURE_GRACE_MS = 1_000;

/** Paged listings remembered at once (for duplicates across pages). */
const MAX_OPEN_WALKS = 64;

const PROXY_ID_PREFIX = `airlock-proxy:${process.pid}:${Date.now().toString(36)}:`;

/**
 * Run a stdio MCP proxy that enforces the pins in front of a real server.
 *
 * Every message is forwarded unchanged (client messages as the proxy parsed them, server
 * messages byte for byte), except:
 * - each `tools/list` page the server returns is checked and only admitted tools reach
 *   the client (a page that is not a listing becomes an error);
 * - each `tools/call` is forwarded only when the tool was admitted by the latest listing
 *   the proxy checked; otherwise the client gets an error result starting
 *   `AIRLOCK_BLOCK:`. The proxy lists the server itself after `notifications/initialized`
 *   and again on every `notifications/tools/list_changed`, holding calls until that
 *   check is done;
 * - if the server exits, closes its output, sends malformed JSON or an oversized message,
 *   every request still waiting gets an error response, the client gets a log message,
 *   and the proxy stops.
 *
 * Not covered: a server that changes what a tool *does* without changing its definition.
 * A server that changes a definition without saying so (no `list_changed`) is caught at
 * the next listing, or before the next call with `relistBeforeEachCall`.
 *
 * @example
 * ```ts
 * import { guardFromPinFile, readPinFile } from "../pins/index.js";
 * import { runPinProxy } from "./pin-proxy.js";
 * import { spawnStdioUpstream } from "./stdio-upstream.js";
 * const guard = guardFromPinFile(await readPinFile("airlock.pins.json"), { server: "everything" });
 * const upstream = spawnStdioUpstream({ command: "npx", args: ["@modelcontextprotocol/server-everything"] });
 * const proxy = runPinProxy({ guard, upstream, client: { input: process.stdin, output: process.stdout } });
 * const outcome = await proxy.done;
 * ```
 */
export function runPinProxy(options: PinProxyOptions): RunningPinProxy {
  const proxy = new PinProxy(options);
  return { done: proxy.run(), stop: () => proxy.stop("stopped") };
}

class PinProxy {
  private readonly options: PinProxyOptions;
  private readonly client: LineChannel;
  private readonly upstream: Upstream;
  private readonly log: (line: string) => void;
  private readonly pending = new Map<string, PendingRequest>();
  private readonly own = new Map<
    string,
    { resolve(value: unknown): void; reject(error: Error): void; timer: NodeJS.Timeout }
  >();
  private held: HeldCall[] = [];
  /** Names a call may use; null until the first check has finished. */
  private admitted: Set<string> | null = null;
  private refreshing: Promise<void> | null = null;
  private refreshAgain = false;
  private serverHasTools = true;
  private nextOwnId = 1;
  /** Names already shown to the client in the listing walk a cursor continues. */
  private readonly walks = new Map<string, Set<string>>();
  private stopping: Promise<PinProxyOutcome> | null = null;
  private resolveDone: ((outcome: PinProxyOutcome) => void) | undefined;

  constructor(options: PinProxyOptions) {
    this.options = options;
    this.upstream = options.upstream;
    this.log = options.log ?? ((line) => process.stderr.write(`airlock proxy: ${line}\n`));
    this.client = new LineChannel(options.client.input, options.client.output, {
      name: "the client",
      maxMessageBytes: options.maxMessageBytes,
      keepReadingAfterMalformed: true,
    });
  }

  run(): Promise<PinProxyOutcome> {
    const done = new Promise<PinProxyOutcome>((resolve) => {
      this.resolveDone = resolve;
    });
    this.audit({ event: "proxy_start", upstream: this.upstream.description });
    this.upstream
      .start({
        message: (received) => this.fromServer(received),
        fault: (error) => void this.stop("upstream_fault", error),
        closed: (error) => void this.stop("upstream_closed", error),
      })
      .then(
        () => {
          this.client.start({
            message: (received) => this.fromClient(received),
            fault: (error) => this.clientFault(error),
            end: () => void this.stop("client_closed"),
          });
        },
        (error: ProxyError) => {
          // The server never started: answer what the client asks meanwhile (its
          // `initialize`, usually) with the reason, then stop.
          this.client.start({
            message: ({ message }) => {
              if (messageKind(message) !== "request") return;
              this.toClient(
                errorResponse(
                  (message as JsonRpcMessage).id,
                  RPC_INTERNAL_ERROR,
                  `airlock proxy: ${error.message}`,
                ),
              );
            },
            fault: () => {},
            end: () => void this.stop("upstream_closed", error),
          });
          setTimeout(() => void this.stop("upstream_closed", error), START_FAILURE_GRACE_MS);
        },
      );
    return done;
  }

  // ---- client -> server -------------------------------------------------------------

  private fromClient(received: ReceivedMessage): void {
    if (this.stopping) return;
    const { message } = received;
    if (Array.isArray(message)) {
      // Batches would let a tools/call slip past per-message checks: refuse them whole.
      for (const item of message) {
        if (messageKind(item) === "request") {
          this.toClient(
            errorResponse(
              (item as JsonRpcMessage).id,
              RPC_INVALID_REQUEST,
              `${BLOCK_PREFIX} JSON-RPC batches are not accepted by airlock proxy`,
            ),
          );
        }
      }
      return;
    }
    const kind = messageKind(message);
    const m = message as JsonRpcMessage;
    if (kind === "invalid") {
      if (typeof m === "object" && m !== null && Object.hasOwn(m, "id")) {
        this.toClient(errorResponse(m.id, RPC_INVALID_REQUEST, "invalid JSON-RPC message"));
      }
      return;
    }
    if (kind === "request") {
      if (m.method === "tools/call") {
        this.held.push({ received, id: m.id });
        // Strict mode: a fresh listing before each call, so even a silent change is seen.
        if (this.options.relistBeforeEachCall && this.admitted !== null) this.refresh();
        else this.releaseCalls();
        return;
      }
      const params = m.params as { cursor?: unknown } | undefined;
      this.pending.set(idKey(m.id), {
        id: m.id,
        method: m.method as string,
        cursor: typeof params?.cursor === "string" ? params.cursor : undefined,
      });
      this.toServer(received);
      return;
    }
    if (kind === "notification") {
      if (m.method === "notifications/cancelled") {
        const requestId = (m.params as { requestId?: unknown } | undefined)?.requestId;
        const before = this.held.length;
        this.held = this.held.filter((call) => idKey(call.id) !== idKey(requestId));
        // The server never saw a held call: its cancellation stays here.
        if (this.held.length !== before) return;
      }
      this.toServer(received);
      if (m.method === "notifications/initialized") {
        this.refresh();
      }
      return;
    }
    this.toServer(received);
  }

  private clientFault(error: ProxyError): void {
    if (error.code === "PROXY_MESSAGE_TOO_LARGE") {
      this.log(`${error.message}; stopping`);
      void this.stop("client_closed");
      return;
    }
    this.toClient(errorResponse(null, RPC_PARSE_ERROR, "parse error: the message is not JSON"));
  }

  private toServer(received: ReceivedMessage): void {
    // The server gets the message as the proxy parsed and judged it, not the client's
    // bytes: a text with duplicate keys (`"method":"ping","method":"tools/call"`) could
    // otherwise mean one thing here and another to a parser that keeps the first key.
    let raw: string;
    try {
      raw = JSON.stringify(received.message);
    } catch {
      const id = (received.message as JsonRpcMessage).id;
      if (messageKind(received.message) === "request") {
        this.toClient(
          errorResponse(
            id,
            RPC_INVALID_REQUEST,
            "airlock proxy: the message cannot be re-serialised (too deep)",
          ),
        );
      }
      return;
    }
    if (!this.upstream.send(received.message, raw)) {
      // The server reads slowly: stop reading the client until it catches up.
      this.client.pause();
      this.upstream.onceDrained(() => this.client.resume());
    }
  }

  // ---- server -> client -------------------------------------------------------------

  private fromServer(received: ReceivedMessage): void {
    if (this.stopping) return;
    const { message } = received;
    if (Array.isArray(message)) {
      // A batch: each element must itself be a message (nested arrays are not).
      for (const item of message) {
        if (Array.isArray(item)) {
          this.fromServer({ message: null, raw: "null" });
          return;
        }
        let raw: string;
        try {
          raw = JSON.stringify(item);
        } catch {
          this.fromServer({ message: null, raw: "null" });
          return;
        }
        this.fromServer({ message: item, raw });
      }
      return;
    }
    const kind = messageKind(message);
    const m = message as JsonRpcMessage;
    if (kind === "invalid") {
      void this.stop(
        "upstream_fault",
        new ProxyError(
          "PROXY_UPSTREAM_MALFORMED",
          "the server sent a message that is not JSON-RPC",
        ),
      );
      return;
    }
    if (kind === "response") {
      const key = idKey(m.id);
      const own = this.own.get(key);
      if (own) {
        this.own.delete(key);
        clearTimeout(own.timer);
        if (Object.hasOwn(m, "error")) {
          const error = m.error as { message?: unknown } | null;
          own.reject(
            new Error(`the server answered tools/list with an error: ${String(error?.message)}`),
          );
        } else {
          own.resolve(m.result);
        }
        return;
      }
      const request = this.pending.get(key);
      if (request) this.pending.delete(key);
      if (request?.method === "initialize") this.readInitialize(m.result);
      if (request?.method === "tools/list" && Object.hasOwn(m, "result")) {
        this.toClient(this.filterPage(m.id, m.result, request.cursor));
        return;
      }
      this.toClientRaw(received);
      return;
    }
    this.toClientRaw(received);
    if (kind === "notification" && m.method === "notifications/tools/list_changed") {
      this.refresh();
    }
  }

  private readInitialize(result: unknown): void {
    const capabilities = (result as { capabilities?: { tools?: unknown } } | undefined)
      ?.capabilities;
    this.serverHasTools =
      typeof capabilities === "object" && capabilities !== null
        ? capabilities.tools !== undefined
        : true;
  }

  /** Check one page the client asked for; only admitted tools reach it. */
  private filterPage(id: unknown, result: unknown, cursor: string | undefined): JsonRpcMessage {
    const tools = (result as { tools?: unknown } | null)?.tools;
    if (typeof result !== "object" || result === null || !Array.isArray(tools)) {
      this.audit({ event: "listing_refused", source: "client", fault: "page_not_listing" });
      return errorResponse(
        id,
        RPC_INTERNAL_ERROR,
        `${BLOCK_PREFIX} tools/list refused: the server's answer is not a listing`,
      );
    }
    const seen = (cursor !== undefined ? this.walks.get(cursor) : undefined) ?? new Set<string>();
    if (cursor !== undefined) this.walks.delete(cursor);
    let check: ListingCheck;
    try {
      check = this.options.guard.checkListing({ tools });
    } catch (error) {
      this.audit({ event: "listing_refused", source: "client", fault: "unreadable" });
      return errorResponse(
        id,
        RPC_INTERNAL_ERROR,
        `${BLOCK_PREFIX} tools/list refused: ${(error as Error).message}`,
      );
    }
    this.auditCheck(check, "client");
    const refusedAt = new Set(check.refused.map((r) => r.index));
    const kept: unknown[] = [];
    tools.forEach((tool, index) => {
      const name = (tool as { name?: unknown } | null)?.name;
      if (refusedAt.has(index) || typeof name !== "string") {
        if (typeof name === "string") this.admitted?.delete(name);
        return;
      }
      if (seen.has(name)) {
        // Listed on an earlier page too: a duplicate. The earlier copy is already shown,
        // so the name is closed to calls instead.
        this.admitted?.delete(name);
        this.audit({
          event: "tool_definition_check",
          source: "client",
          toolName: name,
          verdict: "duplicate",
          allowed: false,
        });
        return;
      }
      seen.add(name);
      this.admitted?.add(name);
      kept.push(tool);
    });
    const next = (result as { nextCursor?: unknown }).nextCursor;
    if (typeof next === "string" && next !== "") {
      this.walks.set(next, seen);
      // Listings a client never finished paging are forgotten, oldest first.
      if (this.walks.size > MAX_OPEN_WALKS) this.walks.delete(this.walks.keys().next().value!);
    }
    return { jsonrpc: "2.0", id, result: { ...(result as object), tools: kept } };
  }

  private toClient(message: JsonRpcMessage): void {
    let raw: string;
    try {
      raw = JSON.stringify(message);
    } catch {
      raw = JSON.stringify(
        errorResponse(
          message.id,
          RPC_INTERNAL_ERROR,
          `${BLOCK_PREFIX} the answer could not be serialised`,
        ),
      );
    }
    this.toClientRaw({ message, raw });
  }

  private toClientRaw(received: ReceivedMessage): void {
    if (!this.client.sendRaw(received.raw)) {
      // The client reads slowly (or a flood): stop reading the server until it drains.
      this.upstream.pause();
      this.client.onceDrained(() => this.upstream.resume());
    }
  }

  // ---- the proxy's own listing and the calls it holds ---------------------------------

  /** List the server (all pages) and replace the admitted set; calls wait meanwhile. */
  private refresh(): void {
    if (this.refreshing) {
      this.refreshAgain = true;
      return;
    }
    this.refreshing = this.listAndCheck().finally(() => {
      this.refreshing = null;
      if (this.refreshAgain && !this.stopping) {
        this.refreshAgain = false;
        this.refresh();
        return;
      }
      this.releaseCalls();
    });
  }

  private async listAndCheck(): Promise<void> {
    if (!this.serverHasTools) {
      this.admitted = new Set();
      return;
    }
    try {
      const collected = await collectToolPages(
        toolPageSource((params: { cursor?: string }) => this.request("tools/list", params)),
        { maxPages: this.options.maxPages ?? 100 },
      );
      const check = this.options.guard.checkListing({ tools: collected.tools });
      this.auditCheck(check, "proxy");
      this.admitted = new Set(check.admitted);
      if (!check.allowed) {
        const names = check.refused.map((r) => `${r.name ?? "?"} (${r.reason})`).join(", ");
        this.log(`refusing ${check.refused.length} tool(s): ${names}`);
      }
    } catch (error) {
      if (this.stopping) return;
      this.admitted = new Set();
      const fault = (error as { fault?: unknown }).fault ?? "unreadable";
      this.audit({
        event: "listing_refused",
        source: "proxy",
        fault,
        detail: (error as Error).message,
      });
      this.log(`tools/list refused, no tool can be called: ${(error as Error).message}`);
    }
  }

  private request(method: string, params: unknown): Promise<unknown> {
    const id = `${PROXY_ID_PREFIX}${this.nextOwnId++}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.own.delete(idKey(id));
        reject(new Error(`the server did not answer ${method} within ${this.listTimeout} ms`));
      }, this.listTimeout);
      timer.unref();
      this.own.set(idKey(id), { resolve, reject, timer });
      const message = { jsonrpc: "2.0", id, method, params };
      this.upstream.send(message, JSON.stringify(message));
    });
  }

  private get listTimeout(): number {
    return this.options.listTimeoutMs ?? 30_000;
  }

  /** Decide the held calls once the admitted set is known and no re-check is running. */
  private releaseCalls(): void {
    if (this.stopping || this.held.length === 0) return;
    if (this.refreshing) return;
    if (this.admitted === null) {
      // A client that calls before `notifications/initialized`: check now.
      this.refresh();
      return;
    }
    const calls = this.held;
    this.held = [];
    for (const call of calls) this.decideCall(call);
  }

  private decideCall(call: HeldCall): void {
    const m = call.received.message as JsonRpcMessage;
    const name = (m.params as { name?: unknown } | undefined)?.name;
    const allowed = typeof name === "string" && this.admitted?.has(name) === true;
    this.audit({
      event: "tool_call_check",
      toolName: typeof name === "string" ? name : null,
      allowed,
    });
    if (!allowed) {
      const shown = typeof name === "string" ? JSON.stringify(name) : "without a name";
      this.toClient({
        jsonrpc: "2.0",
        id: call.id,
        result: {
          content: [
            {
              type: "text",
              text: `${BLOCK_PREFIX} tool ${shown} is not admitted by the pins (unpinned, drifted or not listed); the call was not forwarded. Review it with \`airlock check\` and re-approve with \`airlock pin\`.`,
            },
          ],
          isError: true,
        },
      });
      return;
    }
    this.pending.set(idKey(call.id), { id: call.id, method: "tools/call", cursor: undefined });
    this.toServer(call.received);
  }

  // ---- stopping -----------------------------------------------------------------------

  stop(reason: PinProxyOutcome["reason"], error?: ProxyError): Promise<PinProxyOutcome> {
    if (this.stopping) return this.stopping;
    this.stopping = this.shutdown(reason, error);
    return this.stopping;
  }

  private async shutdown(
    reason: PinProxyOutcome["reason"],
    error?: ProxyError,
  ): Promise<PinProxyOutcome> {
    for (const own of this.own.values()) {
      clearTimeout(own.timer);
      own.reject(new Error("the proxy is stopping"));
    }
    this.own.clear();
    if (error) {
      this.log(`${error.message}; stopping`);
      this.audit({ event: "upstream_closed", code: error.code, detail: error.message });
    }
    if (reason !== "client_closed") {
      // Every request the client is still waiting on gets an answer.
      const why = error ? error.message : "the proxy is stopping";
      for (const request of this.pending.values()) {
        this.toClient(
          errorResponse(
            request.id,
            RPC_INTERNAL_ERROR,
            `airlock proxy: ${why}; the request was not answered`,
          ),
        );
      }
      for (const call of this.held) {
        this.toClient(
          errorResponse(
            call.id,
            RPC_INTERNAL_ERROR,
            `airlock proxy: ${why}; the call was not forwarded`,
          ),
        );
      }
      if (error) {
        this.toClient({
          jsonrpc: "2.0",
          method: "notifications/message",
          params: { level: "error", logger: "airlock-proxy", data: `airlock proxy: ${why}` },
        });
      }
    }
    this.pending.clear();
    this.held = [];
    await this.upstream.close({ force: reason === "upstream_fault" }).catch(() => {});
    await this.client.flush();
    const outcome: PinProxyOutcome = error ? { reason, error } : { reason };
    this.audit({ event: "proxy_stop", reason, ...(error ? { code: error.code } : {}) });
    this.resolveDone?.(outcome);
    return outcome;
  }

  // ---- audit ------------------------------------------------------------------------------

  private audit(record: Omit<AuditRecord, "time" | "server">): void {
    if (!this.options.audit) return;
    try {
      this.options.audit({
        time: new Date().toISOString(),
        server: this.options.server ?? null,
        ...record,
      } as AuditRecord);
    } catch (error) {
      this.log(`audit log write failed: ${(error as Error).message}`);
    }
  }

  private auditCheck(check: ListingCheck, source: "client" | "proxy"): void {
    if (!this.options.audit) return;
    for (const decision of check.decisions) {
      this.audit({ ...decision.auditEvent, source, detail: decision.detail });
    }
    for (const refused of check.refused) {
      if (refused.decision) continue;
      this.audit({
        event: "tool_definition_check",
        source,
        toolName: refused.name,
        verdict: refused.reason,
        allowed: false,
        detail: refused.detail,
      });
    }
  }
}
