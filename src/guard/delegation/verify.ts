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
import { didMethod } from "../did/did-key.js";
import { methodResolver } from "../did/resolver.js";
import { type ChainFailureCode, DelegationInvalidError } from "./errors.js";
import { decodeLink, LinkFormatError, MAX_CHAIN_LENGTH, readClaims } from "./link.js";
import {
  checkAttenuation,
  checkAudience,
  checkCapabilities,
  checkHeader,
  checkKid,
  checkParent,
  checkRevocation,
  checkSignature,
  checkTime,
  fail,
  newView,
  pass,
  resolveIssuer,
  type Working,
} from "./link-checks.js";
import type { DelegationVerification, VerifyDelegationOptions } from "./result.js";

export type {
  DelegationCheck,
  DelegationVerification,
  LinkVerification,
  VerifyDelegationOptions,
} from "./result.js";
export { SignatureCache } from "./signature-cache.js";

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
  // Copy the links once, reading nothing twice: a proxy or getter cannot change the chain
  // between checks, and one that throws is a malformed chain, not a crash.
  let items: unknown[];
  try {
    if (!Array.isArray(chain)) {
      return refuse("DELEGATION_MALFORMED", "a chain is an array of compact JWS links, root first");
    }
    const length = chain.length;
    if (length === 0) return refuse("DELEGATION_EMPTY", "the chain has no links");
    if (length > maxLength) {
      return refuse("DELEGATION_TOO_LONG", `${length} links; at most ${maxLength} are accepted`);
    }
    items = Array.from({ length }, (_, i) => chain[i] as unknown);
  } catch {
    return refuse("DELEGATION_MALFORMED", "the chain could not be read");
  }
  result.checks.push(pass("length", `${items.length} link(s), at most ${maxLength}`));

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
    const issuer = await resolveIssuer(w, resolver);
    const kidOk = checkKid(w, issuer.found?.ids);
    w.view.checks.push(issuer.check);
    const key = issuer.found?.key;
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
