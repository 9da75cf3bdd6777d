/**
 * The delegation link format: a compact JWS (RFC 7515) signed with EdDSA (Ed25519).
 *
 * Header (exactly these members): `{"alg":"EdDSA","kid":"<issuer did>#<fragment>","typ":"airlock-delegation+jwt"}`.
 * Payload: `iss`, `aud` (DIDs), `cap` (grants), `nbf`, `exp`, `iat` (integer epoch
 * seconds), `jti` (unique id) and, on every link but the root, `prf` (the digest of the
 * parent link). A link's digest is the lowercase hex SHA-256 of the ASCII bytes of its
 * compact serialisation. `docs/delegation.md` is the normative description.
 *
 * Decoding is bounded: sizes are checked before anything is base64-decoded or parsed.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { base64url } from "jose";
import { DelegationError } from "./errors.js";

/**
 * The JWS `typ` of a delegation link.
 *
 * @example
 * ```ts
 * import { decodeLink, LINK_TYPE } from "agent-airlock/guard";
 * decodeLink(link).header.typ === LINK_TYPE; // true for every link we issue
 * ```
 */
export const LINK_TYPE = "airlock-delegation+jwt";
/**
 * Largest link accepted, in characters of its compact serialisation (checked before decoding).
 *
 * @example
 * ```ts
 * import { MAX_LINK_LENGTH } from "agent-airlock/guard";
 * if (link.length > MAX_LINK_LENGTH) console.log("refused before parsing");
 * ```
 */
export const MAX_LINK_LENGTH = 16_384;
/**
 * Most capabilities one link may carry.
 *
 * @example
 * ```ts
 * import { MAX_LINK_CAPABILITIES } from "agent-airlock/guard";
 * console.log(MAX_LINK_CAPABILITIES); // 64
 * ```
 */
export const MAX_LINK_CAPABILITIES = 64;
/**
 * Longest `jti` accepted.
 *
 * @example
 * ```ts
 * import { MAX_JTI_LENGTH } from "agent-airlock/guard";
 * console.log(MAX_JTI_LENGTH); // 128
 * ```
 */
export const MAX_JTI_LENGTH = 128;
/**
 * Hard ceiling on chain length, whatever `maxLength` asks for.
 *
 * @example
 * ```ts
 * import { MAX_CHAIN_LENGTH, verifyDelegation } from "agent-airlock/guard";
 * await verifyDelegation(chain, { trustedRoots, maxLength: 1000 }); // still at most MAX_CHAIN_LENGTH links
 * ```
 */
export const MAX_CHAIN_LENGTH = 64;

/** The protected header of a link. */
export interface LinkHeader {
  alg: "EdDSA";
  kid: string;
  typ: typeof LINK_TYPE;
}

/** The payload (claims) of a link. */
export interface LinkClaims {
  /** The delegating DID (signs the link). */
  iss: string;
  /** The DID receiving the capabilities. */
  aud: string;
  /** The grants (`weather:*`, `weather:forecast`, `*`). */
  cap: string[];
  /** Not before, epoch seconds. */
  nbf: number;
  /** Expiry, epoch seconds (exclusive). */
  exp: number;
  /** Issued at, epoch seconds (informational). */
  iat?: number;
  /** Unique id of the link (revocation is by `jti`). */
  jti: string;
  /** Digest of the parent link; absent on the root link. */
  prf?: string;
}

/** A link taken apart, before any check of its meaning. */
export interface DecodedLink {
  /** The compact serialisation as given. */
  text: string;
  /** Lowercase hex SHA-256 of `text`. */
  digest: string;
  header: Record<string, unknown>;
  claims: Record<string, unknown>;
}

const COMPACT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The digest of a link: lowercase hex SHA-256 of its compact serialisation.
 *
 * @example
 * ```ts
 * import { linkDigest } from "agent-airlock/guard";
 * linkDigest("eyJ...header.eyJ...payload.signature"); // 64 hex characters
 * ```
 */
export function linkDigest(link: string): string {
  return createHash("sha256").update(link, "utf8").digest("hex");
}

/**
 * A link could not be decoded: code `DELEGATION_TOO_LARGE` (over the size limit, refused
 * before decoding) or `DELEGATION_MALFORMED`. Thrown by {@link decodeLink}; verification
 * turns it into a failed `format` check.
 *
 * @example
 * ```ts
 * import { decodeLink, LinkFormatError } from "agent-airlock/guard";
 * try { decodeLink("not a jws"); }
 * catch (err) { if (err instanceof LinkFormatError) console.log(err.code); } // "DELEGATION_MALFORMED"
 * ```
 */
export class LinkFormatError extends DelegationError {
  declare readonly code: "DELEGATION_MALFORMED" | "DELEGATION_TOO_LARGE";
  constructor(message: string, tooLarge = false) {
    super(tooLarge ? "DELEGATION_TOO_LARGE" : "DELEGATION_MALFORMED", message);
  }
  /** Whether the link was refused for its size alone. */
  get tooLarge(): boolean {
    return this.code === "DELEGATION_TOO_LARGE";
  }
}

function parseSegment(segment: string, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(utf8.decode(base64url.decode(segment)));
  } catch {
    throw new LinkFormatError(`the ${what} is not base64url-encoded UTF-8 JSON`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new LinkFormatError(`the ${what} is not a JSON object`);
  }
  return value as Record<string, unknown>;
}

/**
 * Take a link apart without checking its signature or meaning.
 *
 * @throws {LinkFormatError} when it is not a compact JWS of JSON objects within limits.
 * @example
 * ```ts
 * import { decodeLink } from "agent-airlock/guard";
 * const { claims } = decodeLink(chain[0]);
 * ```
 */
export function decodeLink(link: unknown): DecodedLink {
  if (typeof link !== "string") throw new LinkFormatError("a link must be a string");
  if (link.length > MAX_LINK_LENGTH) {
    throw new LinkFormatError(`a link is longer than ${MAX_LINK_LENGTH} characters`, true);
  }
  if (!COMPACT.test(link)) {
    throw new LinkFormatError("not a compact JWS (three base64url segments joined by '.')");
  }
  const [header, payload, signature] = link.split(".") as [string, string, string];
  // One spelling per link: unused trailing bits in a base64url segment would let the same
  // signed bytes travel under several texts, hence several digests.
  for (const segment of [header, payload, signature]) {
    let canonical: boolean;
    try {
      canonical = base64url.encode(base64url.decode(segment)) === segment;
    } catch {
      canonical = false;
    }
    if (!canonical) throw new LinkFormatError("a segment is not canonical base64url");
  }
  return {
    text: link,
    digest: linkDigest(link),
    header: parseSegment(header, "header"),
    claims: parseSegment(payload, "payload"),
  };
}

const JTI = /^[!-~]+$/;
const HEX64 = /^[0-9a-f]{64}$/;

function isEpochSeconds(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

/**
 * Check the claims' types and return them typed. Meaning (grants, times, chaining) is
 * checked by the verifier.
 *
 * @internal
 * @throws {LinkFormatError} when a claim is missing or of the wrong type.
 * @example
 * ```ts
 * const claims = readClaims(decodeLink(link).claims); // { iss, aud, cap, nbf, exp, jti, ... }
 * ```
 */
export function readClaims(claims: Record<string, unknown>): LinkClaims {
  const { iss, aud, cap, nbf, exp, iat, jti, prf } = claims;
  if (typeof iss !== "string" || iss.length === 0)
    throw new LinkFormatError("iss must be a DID string");
  if (typeof aud !== "string" || aud.length === 0)
    throw new LinkFormatError("aud must be a DID string");
  if (!Array.isArray(cap) || cap.length === 0 || cap.length > MAX_LINK_CAPABILITIES) {
    throw new LinkFormatError(`cap must be an array of 1 to ${MAX_LINK_CAPABILITIES} grants`);
  }
  if (!cap.every((c) => typeof c === "string")) throw new LinkFormatError("cap must hold strings");
  if (!isEpochSeconds(nbf)) throw new LinkFormatError("nbf must be integer epoch seconds");
  if (!isEpochSeconds(exp)) throw new LinkFormatError("exp must be integer epoch seconds");
  if (exp <= nbf) throw new LinkFormatError("exp must be after nbf");
  if (iat !== undefined && !isEpochSeconds(iat))
    throw new LinkFormatError("iat must be integer epoch seconds");
  if (typeof jti !== "string" || jti.length > MAX_JTI_LENGTH || !JTI.test(jti)) {
    throw new LinkFormatError(`jti must be 1 to ${MAX_JTI_LENGTH} printable ASCII characters`);
  }
  if (prf !== undefined && (typeof prf !== "string" || !HEX64.test(prf))) {
    throw new LinkFormatError("prf must be a lowercase hex SHA-256 digest");
  }
  const out: LinkClaims = { iss, aud, cap: [...cap], nbf, exp, jti };
  if (iat !== undefined) out.iat = iat;
  if (prf !== undefined) out.prf = prf;
  return out;
}
