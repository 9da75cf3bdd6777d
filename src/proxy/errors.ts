import { AirlockError } from "../errors.js";

/** Codes of {@link ProxyError}. */
export type ProxyErrorCode =
  /** The real server could not be started (command not found, not executable...). */
  | "PROXY_UPSTREAM_SPAWN"
  /** The real server exited or closed its output while the proxy was running. */
  | "PROXY_UPSTREAM_EXITED"
  /** The real server sent something that is not JSON-RPC (malformed JSON, not an object). */
  | "PROXY_UPSTREAM_MALFORMED"
  /** A message from the real server was larger than the proxy's limit. */
  | "PROXY_MESSAGE_TOO_LARGE"
  /** The remote (Streamable HTTP) server failed. */
  | "PROXY_UPSTREAM_TRANSPORT";

/**
 * Why `airlock proxy` stopped serving: the real server died, misbehaved or could not be
 * reached. The proxy tells the client (an error response for every request still
 * waiting) before it stops.
 *
 * @example
 * ```ts
 * import { ProxyError } from "./errors.js";
 * const err = new ProxyError("PROXY_UPSTREAM_EXITED", "the server exited with code 1");
 * console.log(err.code); // "PROXY_UPSTREAM_EXITED"
 * ```
 */
export class ProxyError extends AirlockError {
  declare readonly code: ProxyErrorCode;
  constructor(code: ProxyErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}
