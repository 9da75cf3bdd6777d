/**
 * `airlock proxy` itself: a stdio MCP proxy that puts the pins between a client and a
 * real server, at the JSON-RPC message level. This file holds its life cycle and the
 * client-to-server half (requests in flight, held calls, what never reaches the server);
 * the server-to-client half is `server-messages.ts`, the proxy's own listings
 * `own-listing.ts`, the admitted names `admission.ts`.
 */
import { AIRLOCK_BLOCK, quoteName } from "../mcp/refusal.js";
import { ToolAdmission } from "./admission.js";
import { auditId, ProxyAuditor } from "./auditor.js";
import { CallDecisions } from "./call-decisions.js";
import type { ProxyError } from "./errors.js";
import {
  errorResponse,
  type JsonRpcId,
  type JsonRpcMessage,
  messageKind,
  RPC_INTERNAL_ERROR,
  RPC_INVALID_REQUEST,
  RPC_PARSE_ERROR,
} from "./json-rpc.js";
import { LineChannel, type ReceivedMessage } from "./line-channel.js";
import { DEFAULT_LIST_TIMEOUT_MS, DEFAULT_MAX_PAGES, OwnListing } from "./own-listing.js";
import {
  batchRefusal,
  reusedCallRefusal,
  reusedIdRefusal,
  unansweredRequest,
} from "./proxy-answers.js";
import { InFlightRequests } from "./request-ids.js";
import { ServerMessages } from "./server-messages.js";
import type {
  ClientRequest,
  HeldCall,
  InFlight,
  PinProxyOptions,
  PinProxyOutcome,
  RunningPinProxy,
} from "./types.js";
import type { Upstream } from "./upstream.js";

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

/** How long a proxy whose server could not start keeps answering the client with the reason. */
const START_FAILURE_GRACE_MS = 1_000;

/**
 * Run a stdio MCP proxy that enforces the pins in front of a real server.
 *
 * Every message is forwarded unchanged (client messages as the proxy parsed them, server
 * messages byte for byte), except:
 * - each `tools/list` page the server returns is checked and only admitted tools reach
 *   the client (a page that is not a listing becomes an error); a name refused in any
 *   listing the proxy sees is closed for the session;
 * - each `tools/call` is forwarded only when the tool was admitted by the latest listing
 *   the proxy checked; otherwise the client gets an error result starting
 *   `AIRLOCK_BLOCK:`. The proxy lists the server itself after `notifications/initialized`
 *   and again on every `notifications/tools/list_changed`, holding calls until that
 *   check is done. A `tools/call` sent as a notification (no id) is dropped;
 * - an answer reaches the client only when its id is exactly that of a request the server
 *   was sent and has not answered; a request whose id is, or reads as (`"3"` for `3`),
 *   the id of one in flight is refused;
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
  private readonly auditor: ProxyAuditor;
  /** Every request the server may answer, the client's and the proxy's own. */
  private readonly inFlight = new InFlightRequests<InFlight>();
  private readonly admission = new ToolAdmission();
  private readonly listing: OwnListing;
  private readonly fromServer: ServerMessages;
  private readonly calls: CallDecisions;
  private held: HeldCall[] = [];
  private stopping: Promise<PinProxyOutcome> | null = null;
  private resolveDone: ((outcome: PinProxyOutcome) => void) | undefined;

  constructor(options: PinProxyOptions) {
    this.options = options;
    this.upstream = options.upstream;
    this.log = options.log ?? ((line) => process.stderr.write(`airlock proxy: ${line}\n`));
    this.auditor = new ProxyAuditor(options.audit, options.server ?? null, this.log, {
      observe: options.observe === true,
    });
    this.client = new LineChannel(options.client.input, options.client.output, {
      name: "the client",
      maxMessageBytes: options.maxMessageBytes,
      keepReadingAfterMalformed: true,
    });
    const parts = {
      guard: options.guard,
      inFlight: this.inFlight,
      admission: this.admission,
      auditor: this.auditor,
      log: this.log,
      stopping: () => this.stopping !== null,
    };
    this.listing = new OwnListing({
      ...parts,
      upstream: this.upstream,
      maxPages: options.maxPages ?? DEFAULT_MAX_PAGES,
      listTimeoutMs: options.listTimeoutMs ?? DEFAULT_LIST_TIMEOUT_MS,
      settled: () => this.releaseCalls(),
    });
    this.fromServer = new ServerMessages({
      ...parts,
      listing: this.listing,
      toClient: (message) => this.toClient(message),
      toClientRaw: (received) => this.toClientRaw(received),
      fault: (error) => void this.stop("upstream_fault", error),
      observe: options.observe === true,
    });
    this.calls = new CallDecisions({
      admission: this.admission,
      auditor: this.auditor,
      gate: options.delegation,
      observe: options.observe === true,
      log: this.log,
      forward: (call) => this.forwardCall(call),
      answer: (call, message) => {
        this.inFlight.release(call.request.id);
        this.toClient(message);
      },
      hold: (call) => {
        this.held.push(call);
        this.releaseCalls();
      },
      listingBusy: () => this.listing.busy,
    });
  }

  run(): Promise<PinProxyOutcome> {
    const done = new Promise<PinProxyOutcome>((resolve) => {
      this.resolveDone = resolve;
    });
    const gate = this.options.delegation;
    this.auditor.record({
      event: "proxy_start",
      upstream: this.upstream.description,
      ...(gate && { agent: gate.agent, roots: [...gate.roots] }),
    });
    if (this.options.observe) {
      this.log("OBSERVE MODE: nothing is blocked; what would be refused is only logged");
    }
    this.upstream
      .start({
        message: (received) => this.fromServer.receive(received),
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
        (error: ProxyError) => this.answerStartFailure(error),
      );
    return done;
  }

  /**
   * The server never started: answer what the client asks meanwhile (its `initialize`,
   * usually) with the reason, then stop.
   */
  private answerStartFailure(error: ProxyError): void {
    this.client.start({
      message: ({ message }) => {
        if (messageKind(message) !== "request") return;
        const id = (message as JsonRpcMessage).id;
        this.toClient(errorResponse(id, RPC_INTERNAL_ERROR, `airlock proxy: ${error.message}`));
      },
      fault: () => {},
      end: () => void this.stop("upstream_closed", error),
    });
    setTimeout(() => void this.stop("upstream_closed", error), START_FAILURE_GRACE_MS);
  }

  // ---- client -> server -------------------------------------------------------------

  private fromClient(received: ReceivedMessage): void {
    if (this.stopping) return;
    const { message } = received;
    if (Array.isArray(message)) {
      // Batches would let a tools/call slip past per-message checks: refuse them whole.
      for (const item of message) {
        if (messageKind(item) !== "request") continue;
        this.toClient(batchRefusal((item as JsonRpcMessage).id));
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
    if (kind === "request") this.fromClientRequest(received, m);
    else if (kind === "notification") this.fromClientNotification(received, m);
    else this.toServer(received);
  }

  private fromClientRequest(received: ReceivedMessage, m: JsonRpcMessage): void {
    const method = m.method as string;
    const cursor = (m.params as { cursor?: unknown } | null | undefined)?.cursor;
    const request: ClientRequest = {
      from: "client",
      id: m.id as JsonRpcId,
      method,
      cursor: method === "tools/list" && typeof cursor === "string" ? cursor : undefined,
      sent: method !== "tools/call",
      reused: false,
    };
    const conflicts = this.inFlight.claim(request.id, request);
    if (conflicts.length > 0) {
      // Never sent; and the request in flight is marked, since the client may now take
      // its answer for this one's.
      for (const other of conflicts) if (other.from === "client") other.reused = true;
      this.auditor.record({
        event: "request_refused",
        id: auditId(request.id),
        method: request.method,
        verdict: "id_in_flight",
        reason: "a request with this id (or one that reads as it) is in flight",
      });
      this.toClient(reusedIdRefusal(request.id));
      return;
    }
    if (method === "tools/call") {
      this.held.push({ received, request });
      // Strict mode: a fresh listing before each call, so even a silent change is seen.
      if (this.options.relistBeforeEachCall && this.admission.known) this.listing.refresh();
      else this.releaseCalls();
      return;
    }
    if (!this.toServer(received)) this.inFlight.release(request.id);
  }

  private fromClientNotification(received: ReceivedMessage, m: JsonRpcMessage): void {
    if (m.method === "tools/call") {
      this.dropCallNotification(m);
      return;
    }
    if (m.method === "notifications/cancelled") {
      const requestId = (m.params as { requestId?: unknown } | null | undefined)?.requestId;
      const at = this.held.findIndex((call) => call.request.id === requestId);
      if (at !== -1) {
        // The server never saw a held call: its cancellation stays here.
        const [call] = this.held.splice(at, 1);
        this.inFlight.release(call!.request.id);
        return;
      }
      const waiting = this.calls.cancel(requestId);
      if (waiting !== undefined) {
        this.inFlight.release(waiting.request.id);
        return;
      }
    }
    this.toServer(received);
    if (m.method === "notifications/initialized") this.listing.refresh();
  }

  /**
   * A `tools/call` without an id is not MCP (a call is a request), and the proxy could
   * not answer a refusal to it: it never reaches the server, admitted tool or not.
   */
  private dropCallNotification(m: JsonRpcMessage): void {
    const name = (m.params as { name?: unknown } | null | undefined)?.name;
    const toolName = typeof name === "string" ? name : null;
    this.auditor.record({
      event: "tool_call_check",
      toolName,
      allowed: false,
      verdict: "notification",
      reason: "a tools/call without an id is not a request",
    });
    this.log(
      `dropped a tools/call sent as a notification (no id) for ${toolName === null ? "a tool without a name" : quoteName(toolName)}: a call must be a request`,
    );
  }

  private clientFault(error: ProxyError): void {
    if (error.code === "PROXY_MESSAGE_TOO_LARGE") {
      this.log(`${error.message}; stopping`);
      void this.stop("client_closed");
      return;
    }
    this.toClient(errorResponse(null, RPC_PARSE_ERROR, "parse error: the message is not JSON"));
  }

  /** Send a client message on; false when it could not be (and the client was answered). */
  private toServer(received: ReceivedMessage): boolean {
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
      return false;
    }
    if (!this.upstream.send(received.message, raw)) {
      // The server reads slowly: stop reading the client until it catches up.
      this.client.pause();
      this.upstream.onceDrained(() => this.client.resume());
    }
    return true;
  }

  // ---- to the client ----------------------------------------------------------------

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

  // ---- the calls the proxy holds ------------------------------------------------------

  /** Decide the held calls once the admitted set is known and no listing is running. */
  private releaseCalls(): void {
    if (this.stopping || this.held.length === 0) return;
    if (this.listing.busy) return;
    if (!this.admission.known) {
      // A client that calls before `notifications/initialized`: check now.
      this.listing.refresh();
      return;
    }
    const calls = this.held;
    this.held = [];
    for (const call of calls) this.decideCall(call);
  }

  private decideCall({ received, request }: HeldCall): void {
    const params = (received.message as JsonRpcMessage).params as { name?: unknown } | undefined;
    const toolName = typeof params?.name === "string" ? params.name : null;
    if (request.reused) {
      this.inFlight.release(request.id);
      this.auditor.record({
        event: "tool_call_check",
        toolName,
        allowed: false,
        verdict: "id_reused",
        reason: "the client sent another request with this call's id while it was waiting",
      });
      this.toClient(reusedCallRefusal(request.id));
      return;
    }
    this.calls.decide({ received, request }, toolName);
  }

  private forwardCall({ received, request }: HeldCall): void {
    request.sent = true;
    if (!this.toServer(received)) this.inFlight.release(request.id);
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
    const inFlight = this.inFlight.entries();
    this.inFlight.clear();
    const waiting = this.calls.drain();
    for (const request of inFlight) {
      if (request.from !== "proxy") continue;
      clearTimeout(request.timer);
      request.reject(new Error("the proxy is stopping"));
    }
    if (error) {
      this.log(`${error.message}; stopping`);
      this.auditor.record({ event: "upstream_closed", code: error.code, reason: error.message });
    }
    if (reason !== "client_closed") {
      // Every request the client is still waiting on gets an answer.
      const why = error ? error.message : "the proxy is stopping";
      for (const request of inFlight) {
        if (request.from === "client" && request.sent) {
          this.toClient(unansweredRequest(request.id, why, false));
        }
      }
      for (const call of [...this.held, ...waiting]) {
        this.toClient(unansweredRequest(call.request.id, why, true));
      }
      if (error) {
        this.toClient({
          jsonrpc: "2.0",
          method: "notifications/message",
          params: { level: "error", logger: "airlock-proxy", data: `airlock proxy: ${why}` },
        });
      }
    }
    this.held = [];
    await this.upstream.close({ force: reason === "upstream_fault" }).catch(() => {});
    await this.client.flush();
    const outcome: PinProxyOutcome = error ? { reason, error } : { reason };
    this.auditor.record({ event: "proxy_stop", reason, ...(error ? { code: error.code } : {}) });
    this.resolveDone?.(outcome);
    return outcome;
  }
}
