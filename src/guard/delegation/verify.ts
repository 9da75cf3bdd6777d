/**
 * Verifying a delegation chain offline. The result explains itself: one entry per link
 * and one PASS/FAIL check per rule, so a person can see why a chain was refused.
 *
 * Rules (all must pass): the chain is 1 to `maxLength` well-formed links; every header is
 * `EdDSA` with the issuer's `kid`; every signature verifies under the issuer's key; the
 * first issuer is a trusted root; each audience is the next issuer; the last audience is
 * the agent (when given); each link's `prf` is its parent's digest (none on the root); no
 * link or `jti` repeats; each link only narrows its parent; every link is inside its time
 * window; no `jti` is revoked. A widening link makes the chain invalid; it is never
 * silently intersected.
 *
 * @module
 */
import { type KeyObject, timingSafeEqual } from "node:crypto";
import { compactVerify } from "jose";
import { assertGrant, covers } from "../capability.js";
import { didMethod } from "../did/did-key.js";
import { type DidResolver, methodResolver } from "../did/resolver.js";
import { type ChainFailureCode, DelegationInvalidError, DidError } from "./errors.js";
import {
  type DecodedLink,
  decodeLink,
  LINK_TYPE,
  type LinkClaims,
  LinkFormatError,
  MAX_CHAIN_LENGTH,
  readClaims,
} from "./link.js";

/** One rule's outcome. */
export interface DelegationCheck {
  /** The rule, e.g. `signature`, `trusted_root`, `attenuation`. */
  rule: string;
  result: "PASS" | "FAIL";
  /** On FAIL, the stable code of the failure. */
  code?: ChainFailureCode;
  /** What was checked and what was found. */
  detail: string;
}

/** What verification found about one link. Fields a malformed link lacks are `null`. */
export interface LinkVerification {
  index: number;
  issuer: string | null;
  audience: string | null;
  capabilities: string[];
  notBefore: number | null;
  expires: number | null;
  jti: string | null;
  kid: string | null;
  alg: string | null;
  /** Lowercase hex SHA-256 of the link text (null when it is not even a string). */
  digest: string | null;
  /** The `prf` claim: the digest the link says its parent has. */
  parent: string | null;
  signatureValid: boolean;
  status: "VALID" | "INVALID";
  checks: DelegationCheck[];
}

/** The verdict on a chain, shaped like a DID.is verification. */
export interface DelegationVerification {
  status: "VALID" | "INVALID";
  /** The first failed rule's code, when INVALID. */
  code?: ChainFailureCode;
  /** The first link's issuer. */
  root: string | null;
  /** The last link's audience (the agent the chain delegates to). */
  leaf: string | null;
  /** Whether `root` is one of the trusted roots. */
  trustedRoot: boolean;
  /** What the leaf may do: the last link's grants when VALID, `[]` otherwise. */
  effectiveCapabilities: string[];
  /** The latest `nbf` of the chain, epoch seconds. */
  notBefore: number | null;
  /** The earliest `exp` of the chain, epoch seconds: the chain is void from then on. */
  notAfter: number | null;
  /** The time the chain was judged at, epoch seconds. */
  checkedAt: number;
  links: LinkVerification[];
  /** Chain-level checks, in the order they are reported. */
  checks: DelegationCheck[];
}

/** Options of {@link verifyDelegation}. */
export interface VerifyDelegationOptions {
  /** DIDs a chain may start from. Required: with none, every chain is refused. */
  trustedRoots: readonly string[];
  /** The DID the chain must end at (the last audience). */
  agent?: string;
  /** The time to judge at (epoch seconds or a Date; default: now). */
  now?: number | Date;
  /** Clock skew tolerated on `nbf` and `exp`, in seconds (default 60, at most 3600). */
  skewSeconds?: number;
  /** Most links accepted (default 10, at most 64). */
  maxLength?: number;
  /** Revocation by `jti`: return true when revoked. If it throws, the chain is refused. */
  isRevoked?: (jti: string, claims: LinkClaims) => boolean | Promise<boolean>;
  /** Resolves issuer DIDs to keys (default: did:key only, offline). */
  resolver?: DidResolver;
  /** Remembers links whose signature verified (used only with the built-in did:key resolver). */
  signatureCache?: SignatureCache;
}

/**
 * A bounded set of link digests whose Ed25519 signature already verified under their
 * did:key issuer. Safe to share: a did:key names its key, so the verdict on the same bytes
 * never changes. Time, trust, chaining and revocation are always re-checked.
 *
 * @example
 * ```ts
 * import { SignatureCache, verifyDelegation } from "agent-airlock/guard";
 * const signatureCache = new SignatureCache(1000);
 * await verifyDelegation(chain, { trustedRoots: [root], signatureCache });
 * ```
 */
export class SignatureCache {
  readonly #limit: number;
  readonly #digests = new Set<string>();
  constructor(limit = 1024) {
    this.#limit = Math.max(1, Math.floor(limit));
  }
  /** Whether the link with this digest verified before. */
  has(digest: string): boolean {
    return this.#digests.has(digest);
  }
  /** Record a verified link. */
  add(digest: string): void {
    if (this.#digests.has(digest)) return;
    if (this.#digests.size >= this.#limit) {
      this.#digests.delete(this.#digests.values().next().value as string);
    }
    this.#digests.add(digest);
  }
  /** Forget everything. */
  clear(): void {
    this.#digests.clear();
  }
}

const DEFAULT_RESOLVER = methodResolver();

function epochSeconds(value: number | Date | undefined): number {
  if (value === undefined) return Math.floor(Date.now() / 1000);
  const s = value instanceof Date ? value.getTime() / 1000 : value;
  if (!Number.isFinite(s)) throw new TypeError("now must be a finite time");
  return Math.floor(s);
}

function boundedInt(value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value)) return fallback;
  return Math.min(max, Math.max(min, Math.floor(value)));
}

function sameDigest(a: string, b: string): boolean {
  const x = Buffer.from(a, "utf8");
  const y = Buffer.from(b, "utf8");
  return x.length === y.length && timingSafeEqual(x, y);
}

function pass(rule: string, detail: string): DelegationCheck {
  return { rule, result: "PASS", detail };
}
function fail(rule: string, code: ChainFailureCode, detail: string): DelegationCheck {
  return { rule, result: "FAIL", code, detail };
}

interface Working {
  view: LinkVerification;
  decoded?: DecodedLink;
  claims?: LinkClaims;
  capsValid: boolean;
}

function newView(index: number): LinkVerification {
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

function checkHeader(w: Working): boolean {
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

function checkKid(w: Working): boolean {
  const kid = w.view.kid;
  const iss = w.claims!.iss;
  const hash = kid === null ? -1 : kid.indexOf("#");
  if (kid === null || hash <= 0 || kid.slice(0, hash) !== iss || hash === kid.length - 1) {
    w.view.checks.push(
      fail(
        "kid",
        "DELEGATION_KEY_MISMATCH",
        `kid ${JSON.stringify(kid)} is not a key of the issuer ${iss}`,
      ),
    );
    return false;
  }
  w.view.checks.push(pass("kid", "kid names a key of the issuer"));
  return true;
}

async function resolveIssuer(w: Working, resolver: DidResolver): Promise<KeyObject | undefined> {
  try {
    const key = await resolver.resolveKey(w.claims!.iss);
    w.view.checks.push(pass("issuer_key", "issuer DID resolved to an Ed25519 key"));
    return key;
  } catch (err) {
    const why = err instanceof DidError ? `${err.code}: ${err.message}` : String(err);
    w.view.checks.push(fail("issuer_key", "DELEGATION_ISSUER_UNRESOLVABLE", why));
    return undefined;
  }
}

async function checkSignature(
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

function checkCapabilities(w: Working): void {
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

function checkTime(w: Working, now: number, skew: number): void {
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

function checkParent(w: Working, parent: Working | undefined): void {
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

function checkAttenuation(w: Working, parent: Working | undefined): void {
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

function checkAudience(w: Working, next: Working | undefined): void {
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

async function checkRevocation(
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

/** Chain-level rules, in report order, and the link-level rules each one gathers. */
const CHAIN_RULES: { rule: string; linkRules: string[]; passDetail: string }[] = [
  {
    rule: "format",
    linkRules: ["format", "header"],
    passDetail: "every link is a well-formed EdDSA delegation link",
  },
  {
    rule: "signatures",
    linkRules: ["kid", "issuer_key", "signature"],
    passDetail: "every signature verifies under its issuer's key",
  },
  {
    rule: "audience_chain",
    linkRules: ["audience_chain"],
    passDetail: "each audience is the next link's issuer",
  },
  {
    rule: "parent_digest",
    linkRules: ["parent_digest"],
    passDetail: "each link names its parent's digest",
  },
  { rule: "unique_links", linkRules: ["unique"], passDetail: "no link or jti repeats" },
  {
    rule: "attenuation",
    linkRules: ["capabilities", "attenuation"],
    passDetail: "each link only narrows its parent",
  },
  {
    rule: "time_window",
    linkRules: ["time_window"],
    passDetail: "every link is inside its time window",
  },
  { rule: "revocation", linkRules: ["revocation"], passDetail: "no link is revoked" },
];

/**
 * Verify a delegation chain (root first) offline. Never throws for a bad chain: the
 * result says `INVALID` with a `code` and every check. Work is bounded: at most
 * `maxLength` links, each at most 16 KiB, sizes checked before parsing.
 *
 * @example
 * ```ts
 * import { generateDelegationKey, issueDelegation, verifyDelegation } from "agent-airlock/guard";
 * const root = generateDelegationKey();
 * const agent = generateDelegationKey();
 * const { chain } = await issueDelegation({ issuer: root, audience: agent.did, capabilities: ["weather:*"], ttlSeconds: 600 });
 * const result = await verifyDelegation(chain, { trustedRoots: [root.did], agent: agent.did });
 * console.log(result.status, result.effectiveCapabilities); // "VALID" ["weather:*"]
 * ```
 */
export async function verifyDelegation(
  chain: unknown,
  options: VerifyDelegationOptions,
): Promise<DelegationVerification> {
  const now = epochSeconds(options.now);
  const skew = boundedInt(options.skewSeconds, 60, 0, 3600);
  const maxLength = boundedInt(options.maxLength, 10, 1, MAX_CHAIN_LENGTH);
  const result: DelegationVerification = {
    status: "INVALID",
    root: null,
    leaf: null,
    trustedRoot: false,
    effectiveCapabilities: [],
    notBefore: null,
    notAfter: null,
    checkedAt: now,
    links: [],
    checks: [],
  };
  const refuse = (code: ChainFailureCode, detail: string) => {
    result.checks.push(fail("length", code, detail));
    result.code = code;
    return result;
  };
  if (!Array.isArray(chain))
    return refuse("DELEGATION_MALFORMED", "a chain is an array of compact JWS links, root first");
  if (chain.length === 0) return refuse("DELEGATION_EMPTY", "the chain has no links");
  if (chain.length > maxLength)
    return refuse(
      "DELEGATION_TOO_LONG",
      `${chain.length} links; at most ${maxLength} are accepted`,
    );
  result.checks.push(pass("length", `${chain.length} link(s), at most ${maxLength}`));
  const items: unknown[] = Array.prototype.slice.call(chain, 0, maxLength);

  const resolver = options.resolver ?? DEFAULT_RESOLVER;
  const cache = options.resolver === undefined ? options.signatureCache : undefined;
  const work: Working[] = items.map((_item, index) => ({ view: newView(index), capsValid: false }));

  // Each link on its own: format, header, kid, key, signature, grants, time.
  for (let i = 0; i < work.length; i++) {
    const w = work[i]!;
    try {
      w.decoded = decodeLink(items[i]);
      w.view.digest = w.decoded.digest;
      w.claims = readClaims(w.decoded.claims);
      didMethod(w.claims.iss);
      didMethod(w.claims.aud);
      w.view.checks.push(pass("format", "compact JWS with well-typed claims"));
    } catch (err) {
      const tooLarge = err instanceof LinkFormatError && err.tooLarge;
      w.view.checks.push(
        fail(
          "format",
          tooLarge ? "DELEGATION_TOO_LARGE" : "DELEGATION_MALFORMED",
          (err as Error).message,
        ),
      );
      w.claims = undefined;
    }
    if (w.claims) {
      const c = w.claims;
      Object.assign(w.view, {
        issuer: c.iss,
        audience: c.aud,
        capabilities: [...c.cap],
        notBefore: c.nbf,
        expires: c.exp,
        jti: c.jti,
        parent: c.prf ?? null,
      });
    }
    if (!w.decoded) continue;
    const headerOk = checkHeader(w);
    if (!w.claims) continue;
    const kidOk = checkKid(w);
    const key = await resolveIssuer(w, resolver);
    if (key && headerOk && kidOk) await checkSignature(w, key, cache);
    else if (key)
      w.view.checks.push(
        fail(
          "signature",
          "DELEGATION_SIGNATURE_INVALID",
          "not verified: the header or kid is wrong",
        ),
      );
    checkCapabilities(w);
    checkTime(w, now, skew);
  }

  // Links against each other.
  const seenDigests = new Set<string>();
  const seenJtis = new Set<string>();
  for (let i = 0; i < work.length; i++) {
    const w = work[i]!;
    if (w.view.digest !== null) {
      const repeated =
        seenDigests.has(w.view.digest) || (w.claims !== undefined && seenJtis.has(w.claims.jti));
      w.view.checks.push(
        repeated
          ? fail(
              "unique",
              "DELEGATION_DUPLICATE_LINK",
              "this link, or its jti, already appears earlier in the chain",
            )
          : pass("unique", "first occurrence"),
      );
      seenDigests.add(w.view.digest);
      if (w.claims) seenJtis.add(w.claims.jti);
    }
    if (!w.claims) continue;
    checkParent(w, work[i - 1]);
    checkAttenuation(w, work[i - 1]);
    checkAudience(w, work[i + 1]);
    await checkRevocation(w, options.isRevoked);
  }

  for (const w of work) {
    w.view.status =
      w.claims !== undefined && w.view.checks.every((c) => c.result === "PASS")
        ? "VALID"
        : "INVALID";
    result.links.push(w.view);
  }
  const first = work[0]!;
  const last = work[work.length - 1]!;
  result.root = first.claims?.iss ?? null;
  result.leaf = last.claims?.aud ?? null;

  for (const { rule, linkRules, passDetail } of CHAIN_RULES) {
    const failed = work
      .flatMap((w) => w.view.checks.map((c) => ({ c, index: w.view.index })))
      .find(({ c }) => c.result === "FAIL" && linkRules.includes(c.rule));
    result.checks.push(
      failed
        ? fail(rule, failed.c.code!, `link ${failed.index}: ${failed.c.detail}`)
        : pass(rule, passDetail),
    );
  }
  // Trust and the agent come from the caller, so they are chain-level only.
  const roots = Array.isArray(options.trustedRoots)
    ? options.trustedRoots.filter((r): r is string => typeof r === "string" && r.length > 0)
    : [];
  result.trustedRoot = result.root !== null && roots.includes(result.root);
  result.checks.splice(
    3,
    0,
    roots.length === 0
      ? fail(
          "trusted_root",
          "DELEGATION_NO_TRUSTED_ROOTS",
          "no trusted roots configured: no chain can be trusted",
        )
      : result.trustedRoot
        ? pass("trusted_root", `${result.root} is a trusted root`)
        : fail(
            "trusted_root",
            "DELEGATION_UNTRUSTED_ROOT",
            `the first issuer ${result.root ?? "(unreadable)"} is not a trusted root`,
          ),
  );
  if (options.agent !== undefined) {
    result.checks.splice(
      5,
      0,
      result.leaf !== null && result.leaf === options.agent
        ? pass("agent", `the chain ends at ${options.agent}`)
        : fail(
            "agent",
            "DELEGATION_AGENT_MISMATCH",
            `the chain ends at ${result.leaf ?? "(unreadable)"}, not at the agent ${String(options.agent)}`,
          ),
    );
  }

  const firstFailure = result.checks.find((c) => c.result === "FAIL");
  const allLinksValid = result.links.every((l) => l.status === "VALID");
  if (firstFailure || !allLinksValid) {
    result.code = firstFailure?.code ?? "DELEGATION_MALFORMED";
    return result;
  }
  result.status = "VALID";
  result.effectiveCapabilities = [...last.claims!.cap];
  result.notBefore = Math.max(...work.map((w) => w.claims!.nbf));
  result.notAfter = Math.min(...work.map((w) => w.claims!.exp));
  return result;
}

/**
 * {@link verifyDelegation}, throwing when the chain is refused.
 *
 * @throws {DelegationInvalidError} with the first failed rule's code and the full result.
 * @example
 * ```ts
 * import { assertDelegation } from "agent-airlock/guard";
 * const { effectiveCapabilities } = await assertDelegation(chain, { trustedRoots: [rootDid], agent: agentDid });
 * ```
 */
export async function assertDelegation(
  chain: unknown,
  options: VerifyDelegationOptions,
): Promise<DelegationVerification> {
  const result = await verifyDelegation(chain, options);
  if (result.status !== "VALID")
    throw new DelegationInvalidError(result.code ?? "DELEGATION_MALFORMED", result);
  return result;
}
