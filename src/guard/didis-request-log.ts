/**
 * One structured record per request of our DID.is-compatible service, for operators:
 * method, path, status, duration, and the error code of an error answer. What it leaves
 * out is the point: no query string, no header, no body, so neither a bearer token nor a
 * chain nor an agent's question ever reaches a log. `airlock delegate serve` writes each
 * record as a JSON line on stderr (`formatLogLine`).
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { performance } from "node:perf_hooks";
import { parseRequestTarget } from "./didis-http.js";

/** One answered (or abandoned) request, as `onRequest` receives it. */
export interface DidisRequestLog {
  /** The request method (at most 16 characters). */
  method: string;
  /** The request path without its query (at most 200 characters). */
  path: string;
  /** The status sent; 0 when the connection ended before an answer. */
  status: number;
  /** Milliseconds from the request to the end of its answer, to 0.1 ms. */
  durationMs: number;
  /**
   * For an error answer: the error code (`REGISTRY_UNAVAILABLE`, `REGISTRY_FULL`, ...) or,
   * when no coded error caused it, the problem type (`bad-request`, `unauthorized`,
   * `internal`, ...).
   */
  code?: string;
}

/** Receives one {@link DidisRequestLog} per request. An exception it throws is ignored. */
export type DidisRequestLogger = (entry: DidisRequestLog) => void;

/** What answering a request found out, for its log record. @internal */
export interface RequestOutcome {
  code?: string;
}

/**
 * Tell `logger` about `req` once its answer is over (sent, or the connection ended).
 * Never throws.
 *
 * @internal
 */
export function logWhenAnswered(
  logger: DidisRequestLogger,
  req: IncomingMessage,
  res: ServerResponse,
  outcome: RequestOutcome,
): void {
  const started = performance.now();
  res.once("close", () => {
    try {
      const path = parseRequestTarget(req.url)?.pathname ?? "<not a path>";
      logger({
        method: String(req.method ?? "").slice(0, 16),
        path: path.slice(0, 200),
        status: res.headersSent ? res.statusCode : 0,
        durationMs: Math.round((performance.now() - started) * 10) / 10,
        ...(outcome.code !== undefined && { code: outcome.code }),
      });
    } catch {
      // A logger that throws must not take the process with it.
    }
  });
}

/**
 * One log record as a JSON line: `{"time": ISO 8601, "event": ..., ...fields}`.
 *
 * @internal
 */
export function formatLogLine(event: string, fields: Record<string, unknown>): string {
  return `${JSON.stringify({ time: new Date().toISOString(), event, ...fields })}\n`;
}
