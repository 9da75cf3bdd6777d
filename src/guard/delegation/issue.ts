/**
 * Issuing delegation links: the holder of a key hands some of its capabilities to an
 * audience, for a time window, optionally below the chain that delegated to it.
 *
 * @module
 */
import { randomUUID } from "node:crypto";
import { CompactSign } from "jose";
import { jcsCanonicalize } from "../../canonical/jcs.js";
import { assertGrant, covers } from "../capability.js";
import { didMethod } from "../did/did-key.js";
import type { DelegationKey } from "../did/keys.js";
import { DelegationError } from "./errors.js";
import {
  decodeLink,
  LINK_TYPE,
  type LinkClaims,
  LinkFormatError,
  linkDigest,
  MAX_CHAIN_LENGTH,
  MAX_JTI_LENGTH,
  MAX_LINK_CAPABILITIES,
  readClaims,
} from "./link.js";

/** What {@link issueDelegation} signs. */
export interface IssueDelegationOptions {
  /** The delegating key (its did:key becomes `iss`). */
  issuer: DelegationKey;
  /** The DID receiving the capabilities. */
  audience: string;
  /** Grants to hand on; below a parent, each must be covered by the parent's grants. */
  capabilities: readonly string[];
  /** Expiry as epoch seconds or a Date. Give this or `ttlSeconds`. */
  expires?: number | Date;
  /** Lifetime from `notBefore` in seconds. Give this or `expires`. */
  ttlSeconds?: number;
  /** Start of validity (default: now). */
  notBefore?: number | Date;
  /** The chain this link extends (root first). Its last audience must be `issuer.did`. */
  parent?: readonly string[];
  /** Unique id (default: a random UUID). */
  jti?: string;
  /** The clock, epoch seconds (default: the system clock). */
  now?: number | Date;
}

/** A freshly issued link and the chain it ends. */
export interface IssuedDelegation {
  /** The new link (compact JWS). */
  link: string;
  /** `parent` followed by `link`: hand this to the audience. */
  chain: string[];
  /** The new link's claims. */
  claims: LinkClaims;
  /** The new link's digest. */
  digest: string;
}

function seconds(value: number | Date, what: string): number {
  const s = value instanceof Date ? Math.floor(value.getTime() / 1000) : value;
  if (!Number.isSafeInteger(s) || s < 0) {
    throw new DelegationError("DELEGATION_ISSUE_INVALID", `${what} must be integer epoch seconds`);
  }
  return s;
}

function parentOf(parent: readonly string[], issuer: string): LinkClaims & { digest: string } {
  if (!Array.isArray(parent) || parent.length === 0) {
    throw new DelegationError("DELEGATION_ISSUE_INVALID", "parent must be a non-empty chain");
  }
  if (parent.length >= MAX_CHAIN_LENGTH) {
    throw new DelegationError(
      "DELEGATION_TOO_LONG",
      `a chain holds at most ${MAX_CHAIN_LENGTH} links`,
    );
  }
  const last = parent[parent.length - 1];
  let claims: LinkClaims;
  let digest: string;
  try {
    const decoded = decodeLink(last);
    claims = readClaims(decoded.claims);
    digest = decoded.digest;
  } catch (err) {
    if (err instanceof LinkFormatError) {
      throw new DelegationError("DELEGATION_MALFORMED", `the parent's last link: ${err.message}`);
    }
    throw err;
  }
  if (claims.aud !== issuer) {
    throw new DelegationError(
      "DELEGATION_AUDIENCE_MISMATCH",
      `the parent chain delegates to ${claims.aud}, not to the issuing key ${issuer}`,
    );
  }
  return { ...claims, digest };
}

/**
 * Sign a delegation link. The payload is serialised as RFC 8785 (JCS) JSON, so the same
 * claims always give the same bytes. Refuses (rather than issuing a link every verifier
 * would reject) a widening of the parent's grants or a window that is empty.
 *
 * @throws {DelegationError} `DELEGATION_ISSUE_INVALID`, `DELEGATION_ESCALATION`,
 * `DELEGATION_AUDIENCE_MISMATCH`, `DELEGATION_MALFORMED`, `DELEGATION_TOO_LONG`; a
 * `CapabilityError` for a malformed grant; a `DidError` for a malformed audience.
 * @example
 * ```ts
 * import { generateDelegationKey, issueDelegation } from "agent-airlock/guard";
 * const root = generateDelegationKey();
 * const agent = generateDelegationKey();
 * const { chain } = await issueDelegation({
 *   issuer: root, audience: agent.did, capabilities: ["weather:*"], ttlSeconds: 3600,
 * });
 * ```
 */
export async function issueDelegation(options: IssueDelegationOptions): Promise<IssuedDelegation> {
  const { issuer, audience, capabilities, parent } = options;
  didMethod(audience);
  if (!Array.isArray(capabilities) || capabilities.length === 0) {
    throw new DelegationError(
      "DELEGATION_ISSUE_INVALID",
      "capabilities must list at least one grant",
    );
  }
  if (capabilities.length > MAX_LINK_CAPABILITIES) {
    throw new DelegationError(
      "DELEGATION_ISSUE_INVALID",
      `a link carries at most ${MAX_LINK_CAPABILITIES} capabilities`,
    );
  }
  const cap = [...new Set(capabilities)];
  for (const grant of cap) assertGrant(grant);

  const now = seconds(options.now ?? new Date(), "now");
  const nbf = seconds(options.notBefore ?? now, "notBefore");
  let exp: number;
  if (options.expires !== undefined) exp = seconds(options.expires, "expires");
  else if (options.ttlSeconds !== undefined) exp = nbf + seconds(options.ttlSeconds, "ttlSeconds");
  else throw new DelegationError("DELEGATION_ISSUE_INVALID", "give expires or ttlSeconds");
  if (exp <= nbf)
    throw new DelegationError("DELEGATION_ISSUE_INVALID", "expires must be after notBefore");

  const jti = options.jti ?? randomUUID();
  if (
    typeof jti !== "string" ||
    jti.length === 0 ||
    jti.length > MAX_JTI_LENGTH ||
    !/^[!-~]+$/.test(jti)
  ) {
    throw new DelegationError(
      "DELEGATION_ISSUE_INVALID",
      `jti must be 1 to ${MAX_JTI_LENGTH} printable ASCII characters`,
    );
  }

  const claims: LinkClaims = { iss: issuer.did, aud: audience, cap, nbf, exp, iat: now, jti };
  if (parent !== undefined) {
    const above = parentOf(parent, issuer.did);
    for (const grant of cap) {
      if (!above.cap.some((held) => covers(held, grant))) {
        throw new DelegationError(
          "DELEGATION_ESCALATION",
          `${JSON.stringify(grant)} is not covered by the parent's grants ${JSON.stringify(above.cap)}`,
        );
      }
    }
    claims.prf = above.digest;
  }

  const payload = new TextEncoder().encode(jcsCanonicalize(claims));
  const link = await new CompactSign(payload)
    .setProtectedHeader({ alg: "EdDSA", kid: issuer.kid, typ: LINK_TYPE })
    .sign(issuer.privateKey);
  return { link, chain: [...(parent ?? []), link], claims, digest: linkDigest(link) };
}
