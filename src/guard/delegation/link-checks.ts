/**
 * The checks verification runs on each link, alone and against its neighbours. Each
 * appends a PASS or FAIL to the link's `checks`; `verifyDelegation` sequences them and
 * gathers them into chain-level checks.
 *
 * @module
 */
import { type KeyObject, timingSafeEqual } from "node:crypto";
import { compactVerify } from "jose";
import { assertGrant, covers } from "../capability.js";
import type { DidResolver, VerificationMethodKey } from "../did/resolver.js";
import { type ChainFailureCode, DidError } from "./errors.js";
import { type DecodedLink, LINK_TYPE, type LinkClaims } from "./link.js";
import type { DelegationCheck, LinkVerification, VerifyDelegationOptions } from "./result.js";
import type { SignatureCache } from "./signature-cache.js";

function sameDigest(a: string, b: string): boolean {
  const x = Buffer.from(a, "utf8");
  const y = Buffer.from(b, "utf8");
  return x.length === y.length && timingSafeEqual(x, y);
}

export function pass(rule: string, detail: string): DelegationCheck {
  return { rule, result: "PASS", detail };
}
export function fail(rule: string, code: ChainFailureCode, detail: string): DelegationCheck {
  return { rule, result: "FAIL", code, detail };
}

export interface Working {
  view: LinkVerification;
  decoded?: DecodedLink;
  claims?: LinkClaims;
  capsValid: boolean;
}

export function newView(index: number): LinkVerification {
  return {
    index,
    issuer: null,
    audience: null,
    capabilities: [],
    notBefore: null,
    expires: null,
    jti: null,
    kid: null,
    alg: null,
    digest: null,
    parent: null,
    signatureValid: false,
    status: "INVALID",
    checks: [],
  };
}

const HEADER_MEMBERS = new Set(["alg", "kid", "typ"]);

export function checkHeader(w: Working): boolean {
  const header = w.decoded!.header;
  const { alg, kid, typ } = header;
  w.view.alg = typeof alg === "string" ? alg : null;
  w.view.kid = typeof kid === "string" ? kid : null;
  const extra = Object.keys(header).filter((k) => !HEADER_MEMBERS.has(k));
  if (alg !== "EdDSA" || typ !== LINK_TYPE || extra.length > 0) {
    w.view.checks.push(
      fail(
        "header",
        "DELEGATION_ALG_UNSUPPORTED",
        `expected {alg:"EdDSA", kid, typ:"${LINK_TYPE}"} and nothing else; got alg ${JSON.stringify(alg)}, typ ${JSON.stringify(typ)}${extra.length ? `, extra ${extra.slice(0, 5).join(", ")}` : ""}`,
      ),
    );
    return false;
  }
  w.view.checks.push(pass("header", "EdDSA, delegation link type"));
  return true;
}

/**
 * The `kid` names a key of the issuer: `<iss>#<fragment>`; for a did:key, its one
 * verification method `<iss>#<multibase>`; and one of the method ids the resolver found,
 * when it gives them (`ids`).
 */
export function checkKid(w: Working, ids: readonly string[] | undefined): boolean {
  const kid = w.view.kid;
  const iss = w.claims!.iss;
  const hash = kid === null ? -1 : kid.indexOf("#");
  let why: string | undefined;
  if (kid === null || hash <= 0 || kid.slice(0, hash) !== iss || hash === kid.length - 1) {
    why = `kid ${JSON.stringify(kid)} is not a key of the issuer ${iss}`;
  } else if (iss.startsWith("did:key:") && kid.slice(hash + 1) !== iss.slice("did:key:".length)) {
    why = `kid ${JSON.stringify(kid)} names another key: the one key of ${iss} is ${iss}#${iss.slice("did:key:".length)}`;
  } else if (ids !== undefined && !ids.includes(kid)) {
    why = `kid ${JSON.stringify(kid)} is not a verification method of ${iss} (it publishes its key as ${ids.slice(0, 4).join(", ") || "no id"})`;
  }
  if (why !== undefined) {
    w.view.checks.push(fail("kid", "DELEGATION_KEY_MISMATCH", why));
    return false;
  }
  w.view.checks.push(pass("kid", "kid names a key of the issuer"));
  return true;
}

/** The issuer's key and method ids, or the failed `issuer_key` check. */
export async function resolveIssuer(
  w: Working,
  resolver: DidResolver,
): Promise<{ found?: VerificationMethodKey; check: DelegationCheck }> {
  try {
    const iss = w.claims!.iss;
    const found =
      resolver.resolveMethod === undefined
        ? { key: await resolver.resolveKey(iss) }
        : await resolver.resolveMethod(iss);
    if (found.ids !== undefined && !Array.isArray(found.ids)) {
      throw new DidError("DID_RESOLUTION_FAILED", "the resolver gave ids that are not a list");
    }
    return { found, check: pass("issuer_key", "issuer DID resolved to an Ed25519 key") };
  } catch (err) {
    const why = err instanceof DidError ? `${err.code}: ${err.message}` : String(err);
    return { check: fail("issuer_key", "DELEGATION_ISSUER_UNRESOLVABLE", why) };
  }
}

export async function checkSignature(
  w: Working,
  key: KeyObject,
  cache: SignatureCache | undefined,
): Promise<void> {
  const digest = w.decoded!.digest;
  let valid = cache?.has(digest) ?? false;
  if (!valid) {
    try {
      await compactVerify(w.decoded!.text, key, { algorithms: ["EdDSA"] });
      valid = true;
      cache?.add(digest);
    } catch {
      valid = false;
    }
  }
  w.view.signatureValid = valid;
  w.view.checks.push(
    valid
      ? pass("signature", "Ed25519 signature verifies under the issuer's key")
      : fail(
          "signature",
          "DELEGATION_SIGNATURE_INVALID",
          "the signature does not verify under the issuer's key",
        ),
  );
}

export function checkCapabilities(w: Working): void {
  for (const grant of w.claims!.cap) {
    try {
      assertGrant(grant);
    } catch (err) {
      w.view.checks.push(
        fail("capabilities", "DELEGATION_CAPABILITY_INVALID", (err as Error).message),
      );
      return;
    }
  }
  if (new Set(w.claims!.cap).size !== w.claims!.cap.length) {
    w.view.checks.push(
      fail("capabilities", "DELEGATION_CAPABILITY_INVALID", "a grant is listed twice"),
    );
    return;
  }
  w.capsValid = true;
  w.view.checks.push(pass("capabilities", `${w.claims!.cap.length} well-formed grant(s)`));
}

export function checkTime(w: Working, now: number, skew: number): void {
  const { nbf, exp } = w.claims!;
  if (nbf > now + skew) {
    w.view.checks.push(
      fail(
        "time_window",
        "DELEGATION_NOT_YET_VALID",
        `not valid before ${nbf} (now ${now}, skew ${skew}s)`,
      ),
    );
  } else if (exp + skew <= now) {
    w.view.checks.push(
      fail("time_window", "DELEGATION_EXPIRED", `expired at ${exp} (now ${now}, skew ${skew}s)`),
    );
  } else {
    w.view.checks.push(pass("time_window", `valid from ${nbf} until ${exp}`));
  }
}

export function checkParent(w: Working, parent: Working | undefined): void {
  const prf = w.claims!.prf;
  if (!parent) {
    w.view.checks.push(
      prf === undefined
        ? pass("parent_digest", "root link: no parent")
        : fail(
            "parent_digest",
            "DELEGATION_PARENT_MISMATCH",
            "the first link names a parent (prf): a chain's root cannot",
          ),
    );
    return;
  }
  const expected = parent.view.digest;
  if (prf === undefined || expected === null || !sameDigest(prf, expected)) {
    w.view.checks.push(
      fail(
        "parent_digest",
        "DELEGATION_PARENT_MISMATCH",
        `prf ${JSON.stringify(prf ?? null)} is not the digest of link ${parent.view.index} (${expected})`,
      ),
    );
    return;
  }
  w.view.checks.push(pass("parent_digest", `prf is the digest of link ${parent.view.index}`));
}

export function checkAttenuation(w: Working, parent: Working | undefined): void {
  if (!parent) return;
  if (!w.capsValid || !parent.capsValid || !parent.claims) {
    w.view.checks.push(
      fail(
        "attenuation",
        "DELEGATION_ESCALATION",
        "cannot show this link narrows its parent: a grant is unreadable",
      ),
    );
    return;
  }
  const widened = w.claims!.cap.filter((g) => !parent.claims!.cap.some((held) => covers(held, g)));
  if (widened.length > 0) {
    w.view.checks.push(
      fail(
        "attenuation",
        "DELEGATION_ESCALATION",
        `grants ${JSON.stringify(widened)} that link ${parent.view.index} does not hold ${JSON.stringify(parent.claims.cap)}`,
      ),
    );
    return;
  }
  w.view.checks.push(pass("attenuation", `only narrows link ${parent.view.index}`));
}

export function checkAudience(w: Working, next: Working | undefined): void {
  if (!next) return;
  if (!next.claims || next.claims.iss !== w.claims!.aud) {
    w.view.checks.push(
      fail(
        "audience_chain",
        "DELEGATION_AUDIENCE_MISMATCH",
        `audience ${w.claims!.aud} is not the issuer of link ${next.view.index} (${next.claims?.iss ?? "unreadable"})`,
      ),
    );
    return;
  }
  w.view.checks.push(pass("audience_chain", `audience issues link ${next.view.index}`));
}

export async function checkRevocation(
  w: Working,
  isRevoked: VerifyDelegationOptions["isRevoked"],
): Promise<void> {
  if (!isRevoked) {
    w.view.checks.push(pass("revocation", "no revocation list configured"));
    return;
  }
  try {
    const revoked = await isRevoked(w.claims!.jti, { ...w.claims!, cap: [...w.claims!.cap] });
    w.view.checks.push(
      revoked === false
        ? pass("revocation", "not revoked")
        : revoked === true
          ? fail(
              "revocation",
              "DELEGATION_REVOKED",
              `jti ${JSON.stringify(w.claims!.jti)} is revoked`,
            )
          : fail(
              "revocation",
              "DELEGATION_REVOCATION_UNAVAILABLE",
              "the revocation check did not answer true or false",
            ),
    );
  } catch (err) {
    w.view.checks.push(
      fail(
        "revocation",
        "DELEGATION_REVOCATION_UNAVAILABLE",
        `the revocation check failed: ${(err as Error)?.message ?? String(err)}`,
      ),
    );
  }
}
