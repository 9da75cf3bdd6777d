/**
 * Bearer-token authentication for the DID.is-compatible service (`airlock delegate
 * serve`): which requests may use it, and which addresses it may listen on without it.
 *
 * @module
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { isIP } from "node:net";
import { DelegationError } from "./delegation/errors.js";

/** RFC 6750 `b64token`, at least 16 characters (a guessable token protects nothing). */
const TOKEN = /^[A-Za-z0-9\-._~+/]{16,512}=*$/;
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

function misconfigured(message: string): DelegationError {
  return new DelegationError("DIDIS_SERVER_MISCONFIGURED", message);
}

const digest = (text: string) => createHash("sha256").update(text, "utf8").digest();

/**
 * A check of `Authorization` headers against `tokens`: true only for `Bearer <token>` with
 * one of them. Tokens are compared as SHA-256 digests in constant time, so neither a
 * token's content nor its length shows in the timing.
 *
 * @throws {DelegationError} `DIDIS_SERVER_MISCONFIGURED` when `tokens` is empty or holds
 *   something that is not a bearer token of 16 to 512 characters.
 * @example
 * ```ts
 * import { bearerAuthenticator } from "./didis-auth.js";
 * const allowed = bearerAuthenticator(["kq3V0m8yF2cJt7Lx9aPz"]);
 * console.log(allowed("Bearer kq3V0m8yF2cJt7Lx9aPz"), allowed(undefined)); // true false
 * ```
 */
export function bearerAuthenticator(
  tokens: readonly string[],
): (authorization: string | undefined) => boolean {
  if (!Array.isArray(tokens) || tokens.length === 0) {
    throw misconfigured("tokens must be a non-empty list of bearer tokens");
  }
  const digests = tokens.map((token) => {
    if (typeof token !== "string" || !TOKEN.test(token)) {
      throw misconfigured(
        "each token must be 16 to 512 characters of letters, digits and -._~+/ (for example the output of `openssl rand -base64 32`)",
      );
    }
    return digest(token);
  });
  return (authorization) => {
    const presented =
      typeof authorization === "string" ? BEARER.exec(authorization)?.[1] : undefined;
    if (presented === undefined) return false;
    const candidate = digest(presented);
    let match = false;
    // Every token is compared, so the position of a match does not show either.
    for (const known of digests) match = timingSafeEqual(candidate, known) || match;
    return match;
  };
}

/**
 * True for an address only this machine can reach: `localhost`, `127.0.0.0/8`, `::1`.
 *
 * @example
 * ```ts
 * import { isLoopbackHost } from "./didis-auth.js";
 * console.log(isLoopbackHost("127.0.0.1"), isLoopbackHost("0.0.0.0")); // true false
 * ```
 */
export function isLoopbackHost(host: string): boolean {
  if (host === "localhost") return true;
  const bare = host.replace(/^\[(.*)\]$/, "$1");
  if (isIP(bare) === 4) return bare.startsWith("127.");
  if (isIP(bare) === 6) return bare === "::1" || bare === "0:0:0:0:0:0:0:1";
  return false;
}
