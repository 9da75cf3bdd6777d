/**
 * The connection limits of `startDidisServer`: how long a caller may take to send its
 * headers and its whole request, how long an idle keep-alive connection stays, and how
 * many connections are held at once. The service answers small JSON requests in
 * milliseconds, so a connection that is slower than these is a stalled or hostile client,
 * and holding it only costs memory and file descriptors (a slowloris attack). Also how long
 * a graceful shutdown waits for the requests in flight.
 *
 * @module
 */
import { DelegationError } from "./delegation/errors.js";

/** Connection limits of {@link startDidisServer}. */
export interface DidisServerLimits {
  /**
   * Milliseconds a caller has to send the request headers; then 408 and the connection
   * closes (default {@link DEFAULT_HEADERS_TIMEOUT_MS}, 5,000; 100 to 600,000).
   */
  headersTimeoutMs?: number;
  /**
   * Milliseconds a caller has to send the whole request, body included (default
   * {@link DEFAULT_REQUEST_TIMEOUT_MS}, 10,000, or `headersTimeoutMs` when that is longer;
   * at least `headersTimeoutMs`, at most 3,600,000).
   */
  requestTimeoutMs?: number;
  /**
   * Milliseconds an idle keep-alive connection is kept after an answer (default
   * {@link DEFAULT_KEEP_ALIVE_TIMEOUT_MS}, 5,000; 1 to 600,000).
   */
  keepAliveTimeoutMs?: number;
  /**
   * Most connections held at once; more are closed as they arrive (default
   * {@link DEFAULT_MAX_CONNECTIONS}, 1,024; 1 to 1,000,000). Keep it below the process's
   * file-descriptor limit, so the registry can still open its files.
   */
  maxConnections?: number;
  /**
   * Milliseconds `close()` waits for the requests in flight to be answered after it stops
   * accepting connections; then the rest are cut (default
   * {@link DEFAULT_SHUTDOWN_TIMEOUT_MS}, 10,000; 0 to 600,000).
   */
  shutdownTimeoutMs?: number;
}

/**
 * Default for `headersTimeoutMs` of {@link startDidisServer}.
 *
 * @example
 * ```ts
 * import { DEFAULT_HEADERS_TIMEOUT_MS } from "agent-airlock/guard";
 * console.log(DEFAULT_HEADERS_TIMEOUT_MS); // 5000
 * ```
 */
export const DEFAULT_HEADERS_TIMEOUT_MS = 5000;
/**
 * Default for `requestTimeoutMs` of {@link startDidisServer}.
 *
 * @example
 * ```ts
 * import { DEFAULT_REQUEST_TIMEOUT_MS } from "agent-airlock/guard";
 * console.log(DEFAULT_REQUEST_TIMEOUT_MS); // 10000
 * ```
 */
export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
/**
 * Default for `keepAliveTimeoutMs` of {@link startDidisServer}.
 *
 * @example
 * ```ts
 * import { DEFAULT_KEEP_ALIVE_TIMEOUT_MS } from "agent-airlock/guard";
 * console.log(DEFAULT_KEEP_ALIVE_TIMEOUT_MS); // 5000
 * ```
 */
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 5000;
/**
 * Default for `maxConnections` of {@link startDidisServer}.
 *
 * @example
 * ```ts
 * import { DEFAULT_MAX_CONNECTIONS, startDidisServer } from "agent-airlock/guard";
 * await startDidisServer({ registry, maxConnections: DEFAULT_MAX_CONNECTIONS / 4 });
 * ```
 */
export const DEFAULT_MAX_CONNECTIONS = 1024;

/**
 * Default for `shutdownTimeoutMs` of {@link startDidisServer}.
 *
 * @example
 * ```ts
 * import { DEFAULT_SHUTDOWN_TIMEOUT_MS } from "agent-airlock/guard";
 * console.log(DEFAULT_SHUTDOWN_TIMEOUT_MS); // 10000
 * ```
 */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;

/** The limits, validated and defaulted, plus how often Node checks the timeouts. */
export interface ServerLimitSettings {
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  readonly maxConnections: number;
  readonly shutdownTimeoutMs: number;
  readonly checkIntervalMs: number;
}

function readWhole(value: unknown, name: string, fallback: number, min: number, max: number) {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new DelegationError(
      "DIDIS_SERVER_MISCONFIGURED",
      `${name} must be a whole number from ${min} to ${max}; got ${String(value).slice(0, 40)}`,
    );
  }
  return value;
}

/**
 * Read the limits of `options`, refusing bad ones.
 *
 * @internal
 * @throws {DelegationError} `DIDIS_SERVER_MISCONFIGURED` for a value out of range, or a
 * `requestTimeoutMs` shorter than `headersTimeoutMs`.
 */
export function readServerLimits(options: DidisServerLimits): ServerLimitSettings {
  const headersTimeoutMs = readWhole(
    options.headersTimeoutMs,
    "headersTimeoutMs",
    DEFAULT_HEADERS_TIMEOUT_MS,
    100,
    600_000,
  );
  const requestTimeoutMs = readWhole(
    options.requestTimeoutMs,
    "requestTimeoutMs",
    Math.max(DEFAULT_REQUEST_TIMEOUT_MS, headersTimeoutMs),
    headersTimeoutMs,
    3_600_000,
  );
  return Object.freeze({
    headersTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs: readWhole(
      options.keepAliveTimeoutMs,
      "keepAliveTimeoutMs",
      DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
      1,
      600_000,
    ),
    maxConnections: readWhole(
      options.maxConnections,
      "maxConnections",
      DEFAULT_MAX_CONNECTIONS,
      1,
      1_000_000,
    ),
    shutdownTimeoutMs: readWhole(
      options.shutdownTimeoutMs,
      "shutdownTimeoutMs",
      DEFAULT_SHUTDOWN_TIMEOUT_MS,
      0,
      600_000,
    ),
    // A tenth of the shortest timeout, at most a second: a connection outlives its
    // timeout by at most that.
    checkIntervalMs: Math.max(10, Math.min(1000, Math.floor(headersTimeoutMs / 10))),
  });
}
