/**
 * What of the server's messages reaches the client, in `airlock proxy`.
 *
 * Notifications and the server's own requests pass as received. An answer reaches the
 * client only when its id is exactly (same type, same value) that of a request the server
 * was sent and has not answered yet: anything else (an id of another type, an answer to
 * a call the proxy still holds, to a request already answered or never asked) is dropped
 * and audited, since some client could take it for the answer to a request it is
 * waiting on or about to send. A `tools/list` answer is filtered to the admitted tools;
 * an answer that could be read as the answer to another request (the client reused its
 * id, or the text names `id` twice at its top level) is replaced by an error. A listing
 * inside an answer that does not reach the client is judged too: what the pins refuse
 * in it is closed for the session.
 */
import { hasTopLevelDuplicate } from "../lib/json-duplicate-key.js";
import { AIRLOCK_BLOCK } from "../mcp/refusal.js";
import type { ListingCheck } from "../pins/types.js";
import type { ToolAdmission } from "./admission.js";
import { auditId, type ProxyAuditor } from "./auditor.js";
import { ProxyError } from "./errors.js";
import {
  errorResponse,
  type JsonRpcId,
  type JsonRpcMessage,
  messageKind,
  RPC_INTERNAL_ERROR,
} from "./json-rpc.js";
import type { ReceivedMessage } from "./line-channel.js";
import type { OwnListing } from "./own-listing.js";
import { type WithheldReason, withheldAnswer } from "./proxy-answers.js";
import type { InFlightRequests } from "./request-ids.js";
import type { ClientRequest, InFlight, ListingJudge, OwnRequest } from "./types.js";

/** What {@link ServerMessages} works with: the running proxy's parts. */
export interface ServerMessagesContext {
  guard: ListingJudge;
  inFlight: InFlightRequests<InFlight>;
  admission: ToolAdmission;
  listing: OwnListing;
  auditor: ProxyAuditor;
  log(line: string): void;
  toClient(message: JsonRpcMessage): void;
  toClientRaw(received: ReceivedMessage): void;
  /** The server broke the protocol: the proxy stops. */
  fault(error: ProxyError): void;
  /** True once the proxy is stopping: nothing more reaches the client then. */
  stopping(): boolean;
  /** Observe mode: a listing reaches the client whole (its refusals are only audited). */
  observe: boolean;
}

/**
 * The server-to-client half of a running proxy.
 *
 * @example
 * ```ts
 * import { ServerMessages } from "./server-messages.js";
 * const fromServer = new ServerMessages(context); // context: the proxy's parts
 * fromServer.receive({ message: { jsonrpc: "2.0", id: "3", result: {} }, raw: '{"jsonrpc":"2.0","id":"3","result":{}}' });
 * // dropped and audited unless a request with id "3" (a string) is in flight
 * ```
 */
export class ServerMessages {
  private readonly context: ServerMessagesContext;
  private toldDropped = false;

  constructor(context: ServerMessagesContext) {
    this.context = context;
  }

  receive(received: ReceivedMessage): void {
    if (this.context.stopping()) return;
    const { message } = received;
    if (Array.isArray(message)) {
      this.receiveBatch(message);
      return;
    }
    const kind = messageKind(message);
    const m = message as JsonRpcMessage;
    if (kind === "invalid") {
      this.context.fault(
        new ProxyError(
          "PROXY_UPSTREAM_MALFORMED",
          "the server sent a message that is not JSON-RPC",
        ),
      );
      return;
    }
    if (kind === "response") {
      this.receiveAnswer(received, m);
      return;
    }
    this.context.toClientRaw(received);
    if (kind === "notification" && m.method === "notifications/tools/list_changed") {
      this.context.listing.refresh();
    }
  }

  /** A batch: each element must itself be a message (nested arrays are not). */
  private receiveBatch(items: unknown[]): void {
    for (const item of items) {
      let raw: string | undefined;
      try {
        raw = Array.isArray(item) ? undefined : JSON.stringify(item);
      } catch {
        raw = undefined;
      }
      // Each element goes on as the proxy parsed it: its own text is gone.
      this.receive(raw === undefined ? { message: null, raw: "null" } : { message: item, raw });
      if (raw === undefined) return;
    }
  }

  private receiveAnswer(received: ReceivedMessage, m: JsonRpcMessage): void {
    const request = this.context.inFlight.get(m.id);
    if (request === undefined || (request.from === "client" && !request.sent)) {
      this.drop(m, request === undefined ? "unsolicited" : "not_forwarded");
      return;
    }
    this.context.inFlight.release(m.id as JsonRpcId);
    if (request.from === "proxy") {
      settleOwn(request, m);
      return;
    }
    if (request.method === "tools/list" && Object.hasOwn(m, "result")) {
      this.context.toClient(this.filterPage(request.id, m.result, request.cursor));
      return;
    }
    const withheld: WithheldReason | undefined = request.reused
      ? "id_reused"
      : hasTopLevelDuplicate(received.raw, "id")
        ? "duplicate_id"
        : undefined;
    if (withheld !== undefined) {
      this.withhold(request, m, withheld);
      return;
    }
    if (request.method === "initialize") this.readInitialize(m.result);
    this.context.toClientRaw(received);
  }

  private drop(m: JsonRpcMessage, reason: "unsolicited" | "not_forwarded"): void {
    this.context.auditor.record({
      event: "response_dropped",
      id: auditId(m.id),
      verdict: reason,
      reason:
        reason === "unsolicited"
          ? "it answers no request the server was sent and has not answered"
          : "it answers a call the proxy had not forwarded",
    });
    if (!this.toldDropped) {
      this.toldDropped = true;
      this.context.log(
        `dropped an answer from the server with id ${JSON.stringify(auditId(m.id))}: it answers no request the server was sent and has not answered (later ones are only audited)`,
      );
    }
    this.closeRefusedIn(m.result);
  }

  private withhold(request: ClientRequest, m: JsonRpcMessage, reason: WithheldReason): void {
    this.context.auditor.record({
      event: "response_dropped",
      id: auditId(request.id),
      method: request.method,
      verdict: reason,
      reason:
        reason === "id_reused"
          ? "the client sent another request with the same id while this one was waiting"
          : "the answer names its id twice",
    });
    this.context.toClient(withheldAnswer(request.id, request.method, reason));
    this.closeRefusedIn(m.result);
  }

  /**
   * An answer that does not reach the client may still carry a listing (a hostile
   * server's answer to a request it guessed): what the pins refuse in it is closed too,
   * since the server has shown it would serve that definition.
   */
  private closeRefusedIn(result: unknown): void {
    const tools = (result as { tools?: unknown } | null | undefined)?.tools;
    if (!Array.isArray(tools)) return;
    let check: ListingCheck;
    try {
      check = this.context.guard.checkListing({ tools });
    } catch {
      return;
    }
    this.context.auditor.listingCheck(check, "dropped");
    this.context.admission.closeRefused(check);
  }

  private readInitialize(result: unknown): void {
    const capabilities = (result as { capabilities?: { tools?: unknown } } | undefined)
      ?.capabilities;
    this.context.listing.serverHasTools =
      typeof capabilities === "object" && capabilities !== null
        ? capabilities.tools !== undefined
        : true;
  }

  /** Check one page the client asked for; only admitted tools reach it (all of them in observe mode). */
  private filterPage(id: JsonRpcId, result: unknown, cursor: string | undefined): JsonRpcMessage {
    const { auditor } = this.context;
    const tools = (result as { tools?: unknown } | null)?.tools;
    if (typeof result !== "object" || result === null || !Array.isArray(tools)) {
      auditor.record({
        event: "listing_refused",
        source: "client",
        verdict: "page_not_listing",
        reason: "the server's answer is not a listing",
      });
      return errorResponse(
        id,
        RPC_INTERNAL_ERROR,
        `${AIRLOCK_BLOCK} tools/list refused: the server's answer is not a listing`,
      );
    }
    let check: ListingCheck;
    try {
      check = this.context.guard.checkListing({ tools });
    } catch (error) {
      auditor.record({
        event: "listing_refused",
        source: "client",
        verdict: "unreadable",
        reason: (error as Error).message,
      });
      return errorResponse(
        id,
        RPC_INTERNAL_ERROR,
        `${AIRLOCK_BLOCK} tools/list refused: ${(error as Error).message}`,
      );
    }
    auditor.listingCheck(check, "client");
    const next = (result as { nextCursor?: unknown }).nextCursor;
    const page = this.context.admission.admitPage(tools, check, cursor, next);
    const withheld = [
      ...page.duplicates.map((toolName) => ({
        toolName,
        verdict: "duplicate",
        reason: "listed again on a later page of the same listing",
      })),
      ...page.closed.map((toolName) => ({
        toolName,
        verdict: "closed",
        reason: "refused by an earlier listing: closed for the session",
      })),
    ];
    for (const record of withheld) {
      auditor.record({
        event: "tool_definition_check",
        source: "client",
        ...record,
        allowed: false,
        enforced: !this.context.observe,
      });
    }
    // Observe mode: the client gets the page as the server sent it.
    const shown = this.context.observe ? tools : page.kept;
    return { jsonrpc: "2.0", id, result: { ...(result as object), tools: shown } };
  }
}

function settleOwn(request: OwnRequest, m: JsonRpcMessage): void {
  clearTimeout(request.timer);
  if (Object.hasOwn(m, "error")) {
    const error = m.error as { message?: unknown } | null;
    request.reject(
      new Error(`the server answered ${request.method} with an error: ${String(error?.message)}`),
    );
  } else {
    request.resolve(m.result);
  }
}
