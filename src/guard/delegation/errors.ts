/**
 * Errors of delegation: DIDs and keys, issuing and verifying chains, registries and the
 * DID.is client. Every one is a {@link DelegationError} (an `AirlockError`) with a stable
 * `code`; switch on `code`, never on the message. `docs/delegation.md` lists them all.
 *
 * @module
 */
import { AirlockError } from "../../errors.js";

/**
 * Why a chain is refused. These codes appear both on {@link DelegationInvalidError} and in
 * the `code` of each failed check of a verification result.
 */
export type ChainFailureCode =
  /** Not an array of compact JWS strings, or a link that does not decode. */
  | "DELEGATION_MALFORMED"
  /** A link or the whole chain is larger than the size limits (checked before parsing). */
  | "DELEGATION_TOO_LARGE"
  /** The chain has no links. */
  | "DELEGATION_EMPTY"
  /** More links than `maxLength`. */
  | "DELEGATION_TOO_LONG"
  /** A header `alg` other than `EdDSA`, or an unexpected `typ` or `crit`. */
  | "DELEGATION_ALG_UNSUPPORTED"
  /** The header `kid` does not name the payload's issuer. */
  | "DELEGATION_KEY_MISMATCH"
  /** The signature does not verify under the issuer's key. */
  | "DELEGATION_SIGNATURE_INVALID"
  /** A link's `exp` is in the past (beyond the allowed skew). */
  | "DELEGATION_EXPIRED"
  /** A link's `nbf` is in the future (beyond the allowed skew). */
  | "DELEGATION_NOT_YET_VALID"
  /** No trusted roots were configured: nothing can be trusted. */
  | "DELEGATION_NO_TRUSTED_ROOTS"
  /** The first issuer is not a trusted root. */
  | "DELEGATION_UNTRUSTED_ROOT"
  /** A link's audience is not the next link's issuer. */
  | "DELEGATION_AUDIENCE_MISMATCH"
  /** The last audience is not the agent asked about. */
  | "DELEGATION_AGENT_MISMATCH"
  /** A link grants something its parent does not cover. */
  | "DELEGATION_ESCALATION"
  /** A capability in a link is not a well-formed grant. */
  | "DELEGATION_CAPABILITY_INVALID"
  /** A link's `prf` is not the digest of its parent (or a root link has one). */
  | "DELEGATION_PARENT_MISMATCH"
  /** The same link (or the same `jti`) appears twice. */
  | "DELEGATION_DUPLICATE_LINK"
  /** A link's `jti` is revoked. */
  | "DELEGATION_REVOKED"
  /** The revocation check threw: the chain cannot be shown to be unrevoked. */
  | "DELEGATION_REVOCATION_UNAVAILABLE"
  /** The issuer's DID could not be resolved to a key (unknown method, bad did:key...). */
  | "DELEGATION_ISSUER_UNRESOLVABLE";

/** Every code a {@link DelegationError} may carry. */
export type DelegationErrorCode =
  | ChainFailureCode
  /** A DID is not syntactically valid, or a did:key is not an Ed25519 did:key. */
  | "DID_INVALID"
  /** No resolver is configured for the DID method (we never fetch by default). */
  | "DID_METHOD_UNSUPPORTED"
  /** A plugged-in resolver failed. */
  | "DID_RESOLUTION_FAILED"
  /** A JWK is not an Ed25519 (OKP, crv Ed25519) key of the expected kind. */
  | "KEY_INVALID"
  /** `issueDelegation` was given something it cannot sign (bad window, no capabilities...). */
  | "DELEGATION_ISSUE_INVALID"
  /** A registry file or database holds something that is not a registry. */
  | "REGISTRY_INVALID"
  /** A registry could not be read or written. */
  | "REGISTRY_IO"
  /** A registry limit was reached (chains per agent). */
  | "REGISTRY_FULL"
  /**
   * The registry's store cannot be used: its driver (`better-sqlite3`, `pg`) is not
   * installed, or its database cannot be reached (connection refused or lost, no
   * connection within the timeout, a server shutting down). Every question is refused.
   */
  | "REGISTRY_UNAVAILABLE"
  /**
   * Another process held the registry (its lock file, or SQLite's write lock) for longer
   * than the registry waits, or a PostgreSQL statement timed out or kept failing to
   * serialize; nothing was changed. Retry, or see which process holds it.
   */
  | "REGISTRY_BUSY"
  /**
   * A registry was given an unusable option (a timeout or pool size out of range, a bad
   * connection), or its database refused it (login, database name, privileges, a schema
   * behind this release with `migrate: false`).
   */
  | "REGISTRY_MISCONFIGURED"
  /** The DID.is service could not be reached (network failure or abort). */
  | "DIDIS_UNAVAILABLE"
  /** The DID.is service did not answer within the timeout. */
  | "DIDIS_TIMEOUT"
  /** The DID.is service answered 429; see `retryAfter`. */
  | "DIDIS_RATE_LIMITED"
  /** The DID.is service answered another non-2xx status; see `status` and `problem`. */
  | "DIDIS_HTTP_ERROR"
  /** The DID.is service answered 2xx with a body we cannot trust (malformed, wrong echo). */
  | "DIDIS_BAD_RESPONSE"
  /**
   * Our own service (`startDidisServer`) was given unusable options: a bad token list, or
   * an address other machines can reach with no tokens to check.
   */
  | "DIDIS_SERVER_MISCONFIGURED";

/**
 * Base class of every delegation error.
 *
 * @example
 * ```ts
 * import { DelegationError, publicKeyFromDid } from "agent-airlock/guard";
 * try { publicKeyFromDid("did:web:example.com"); }
 * catch (err) { if (err instanceof DelegationError) console.log(err.code); } // "DID_METHOD_UNSUPPORTED"
 * ```
 */
export class DelegationError extends AirlockError {
  declare readonly code: DelegationErrorCode;
  constructor(code: DelegationErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

/**
 * A DID or key could not be used. Codes `DID_INVALID`, `DID_METHOD_UNSUPPORTED`,
 * `DID_RESOLUTION_FAILED`, `KEY_INVALID`.
 *
 * @example
 * ```ts
 * import { DidError, publicKeyFromDid } from "agent-airlock/guard";
 * try { publicKeyFromDid("did:key:zNotAKey"); }
 * catch (err) { if (err instanceof DidError) console.log(err.code); } // "DID_INVALID"
 * ```
 */
export class DidError extends DelegationError {
  declare readonly code:
    | "DID_INVALID"
    | "DID_METHOD_UNSUPPORTED"
    | "DID_RESOLUTION_FAILED"
    | "KEY_INVALID";
}

/**
 * A chain was refused by {@link assertDelegation}. `code` is the first failed rule;
 * `verification` has every check, for people and audit logs.
 *
 * @example
 * ```ts
 * import { DelegationInvalidError, assertDelegation } from "agent-airlock/guard";
 * try { await assertDelegation([], { trustedRoots: [] }); }
 * catch (err) { if (err instanceof DelegationInvalidError) console.log(err.code); }
 * ```
 */
export class DelegationInvalidError extends DelegationError {
  declare readonly code: ChainFailureCode;
  /** The full verification result. */
  readonly verification: import("./result.js").DelegationVerification;
  constructor(code: ChainFailureCode, verification: import("./result.js").DelegationVerification) {
    const failed = verification.checks.find((c) => c.result === "FAIL");
    super(code, `delegation chain refused (${code}): ${failed?.detail ?? "invalid"}`);
    this.verification = verification;
  }
}

/**
 * A registry could not be opened, read or written, or refused a chain. Codes
 * `REGISTRY_INVALID`, `REGISTRY_IO`, `REGISTRY_FULL`, `REGISTRY_UNAVAILABLE`,
 * `REGISTRY_BUSY`, `REGISTRY_MISCONFIGURED`,
 * `DELEGATION_MALFORMED`, `DELEGATION_TOO_LARGE`, `DELEGATION_EMPTY`, `DELEGATION_TOO_LONG`.
 *
 * @example
 * ```ts
 * import { RegistryError, openFileRegistry } from "agent-airlock/guard";
 * try { await openFileRegistry("/no/such/dir/registry.json"); }
 * catch (err) { if (err instanceof RegistryError) console.log(err.code); }
 * ```
 */
export class RegistryError extends DelegationError {}

/** An RFC 9457 problem document as the service sent it (fields we could read). */
export interface ProblemDetails {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  instance?: string;
  [extension: string]: unknown;
}

/**
 * The DID.is service could not give a trustworthy answer. Codes `DIDIS_UNAVAILABLE`,
 * `DIDIS_TIMEOUT`, `DIDIS_RATE_LIMITED`, `DIDIS_HTTP_ERROR`, `DIDIS_BAD_RESPONSE`. The tool
 * guard maps every one of them to `GUARD_UNAVAILABLE` and refuses.
 *
 * @example
 * ```ts
 * import { DidisClient, DidisError } from "agent-airlock/guard";
 * const client = new DidisClient({ baseUrl: "http://127.0.0.1:9", timeoutMs: 500 });
 * try { await client.verifyTool({ agent: "did:key:z...", tool: "weather:forecast", root: "did:key:z..." }); }
 * catch (err) { if (err instanceof DidisError) console.log(err.code, err.status, err.retryAfter); }
 * ```
 */
export class DidisError extends DelegationError {
  declare readonly code:
    | "DIDIS_UNAVAILABLE"
    | "DIDIS_TIMEOUT"
    | "DIDIS_RATE_LIMITED"
    | "DIDIS_HTTP_ERROR"
    | "DIDIS_BAD_RESPONSE";
  /** HTTP status, when the service answered. */
  readonly status: number | undefined;
  /** Seconds to wait before retrying (from `Retry-After`), when the service said. */
  readonly retryAfter: number | undefined;
  /** The RFC 9457 problem document, when the service sent one. */
  readonly problem: ProblemDetails | undefined;
  constructor(
    code: DidisError["code"],
    message: string,
    extra: {
      status?: number;
      retryAfter?: number;
      problem?: ProblemDetails;
      cause?: unknown;
    } = {},
  ) {
    super(code, message, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.status = extra.status;
    this.retryAfter = extra.retryAfter;
    this.problem = extra.problem;
  }
}
