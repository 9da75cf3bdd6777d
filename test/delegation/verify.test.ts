import { describe, expect, it } from "vitest";
import { DelegationInvalidError } from "../../src/guard/delegation/errors.js";
import { issueDelegation } from "../../src/guard/delegation/issue.js";
import { LINK_TYPE, linkDigest } from "../../src/guard/delegation/link.js";
import {
  assertDelegation,
  SignatureCache,
  verifyDelegation,
} from "../../src/guard/delegation/verify.js";
import { generateDelegationKey } from "../../src/guard/did/keys.js";
import { didKeyResolver, methodResolver } from "../../src/guard/did/resolver.js";
import { chainOf, claimsFor, NOW, signRaw } from "./helpers.js";

function failed(result: { checks: { rule: string; result: string }[] }) {
  return result.checks.filter((c) => c.result === "FAIL").map((c) => c.rule);
}

describe("verifyDelegation: a valid chain", () => {
  it("reports VALID with root, leaf, effective capabilities, notAfter and every check PASS", async () => {
    const { root, agent, chain, links } = await chainOf();
    const r = await verifyDelegation(chain, {
      trustedRoots: [root.did],
      agent: agent.did,
      now: NOW,
    });
    expect(r.status).toBe("VALID");
    expect(r.code).toBeUndefined();
    expect(r.root).toBe(root.did);
    expect(r.leaf).toBe(agent.did);
    expect(r.trustedRoot).toBe(true);
    expect(r.effectiveCapabilities).toEqual(["weather:forecast"]);
    expect(r.notAfter).toBe(NOW + 1200);
    expect(r.notBefore).toBe(NOW - 60);
    expect(r.checks.map((c) => c.rule)).toEqual([
      "length",
      "format",
      "signatures",
      "trusted_root",
      "audience_chain",
      "agent",
      "parent_digest",
      "unique_links",
      "attenuation",
      "time_window",
      "revocation",
    ]);
    expect(r.checks.every((c) => c.result === "PASS")).toBe(true);
    expect(r.links).toHaveLength(3);
    const [l0, l1, l2] = r.links;
    expect(l0).toMatchObject({
      index: 0,
      issuer: root.did,
      alg: "EdDSA",
      signatureValid: true,
      status: "VALID",
      parent: null,
      kid: root.kid,
    });
    expect(l1?.parent).toBe(links[0]!.digest);
    expect(l2?.parent).toBe(l1?.digest);
    expect(l2?.digest).toBe(linkDigest(chain[2]!));
    expect(l2?.jti).toBe(links[2]!.claims.jti);
  });

  it("does not mutate the chain or options it is given", async () => {
    const { root, agent, chain } = await chainOf();
    const copy = [...chain];
    const roots = Object.freeze([root.did]);
    await verifyDelegation(Object.freeze(chain), {
      trustedRoots: roots,
      agent: agent.did,
      now: NOW,
    });
    expect(chain).toEqual(copy);
  });

  it("accepts a Date for now and honours the skew", async () => {
    const { root, chain } = await chainOf();
    const late = new Date((NOW + 1200 + 30) * 1000);
    expect(
      (await verifyDelegation(chain, { trustedRoots: [root.did], now: late, skewSeconds: 60 }))
        .status,
    ).toBe("VALID");
    expect(
      (await verifyDelegation(chain, { trustedRoots: [root.did], now: late, skewSeconds: 0 })).code,
    ).toBe("DELEGATION_EXPIRED");
  });

  it("uses a signature cache without changing any verdict", async () => {
    const { root, agent, chain } = await chainOf();
    const signatureCache = new SignatureCache(8);
    const a = await verifyDelegation(chain, {
      trustedRoots: [root.did],
      agent: agent.did,
      now: NOW,
      signatureCache,
    });
    const b = await verifyDelegation(chain, {
      trustedRoots: [root.did],
      agent: agent.did,
      now: NOW,
      signatureCache,
    });
    expect(b).toEqual(a);
    expect(signatureCache.has(linkDigest(chain[0]!))).toBe(true);
    // Trust and time are still re-checked with a warm cache.
    expect(
      (await verifyDelegation(chain, { trustedRoots: [agent.did], now: NOW, signatureCache })).code,
    ).toBe("DELEGATION_UNTRUSTED_ROOT");
    expect(
      (
        await verifyDelegation(chain, {
          trustedRoots: [root.did],
          now: NOW + 99999,
          signatureCache,
        })
      ).code,
    ).toBe("DELEGATION_EXPIRED");
  });
});

describe("verifyDelegation: the fail-closed matrix", () => {
  it("bad signature", async () => {
    const { root, agent, chain } = await chainOf();
    const [h, p, s] = chain[1]!.split(".") as [string, string, string];
    const flipped = `${s.slice(0, 10)}${s[10] === "A" ? "B" : "A"}${s.slice(11)}`;
    const bad = [chain[0]!, `${h}.${p}.${flipped}`, chain[2]!];
    const r = await verifyDelegation(bad, { trustedRoots: [root.did], agent: agent.did, now: NOW });
    expect(r.status).toBe("INVALID");
    expect(r.code).toBe("DELEGATION_SIGNATURE_INVALID");
    expect(r.links[1]?.signatureValid).toBe(false);
    expect(r.effectiveCapabilities).toEqual([]);
  });

  it("tampered payload (capabilities widened after signing)", async () => {
    const { root, agent, chain } = await chainOf();
    const [h, , s] = chain[2]!.split(".") as [string, string, string];
    const decoded = JSON.parse(Buffer.from(chain[2]!.split(".")[1]!, "base64url").toString());
    decoded.cap = ["weather:*"];
    const p = Buffer.from(JSON.stringify(decoded)).toString("base64url");
    const r = await verifyDelegation([chain[0]!, chain[1]!, `${h}.${p}.${s}`], {
      trustedRoots: [root.did],
      agent: agent.did,
      now: NOW,
    });
    expect(r.code).toBe("DELEGATION_SIGNATURE_INVALID");
  });

  it("wrong key for kid: a link signed by another key than its issuer's", async () => {
    const root = generateDelegationKey();
    const mallory = generateDelegationKey();
    const agent = generateDelegationKey();
    const link = await signRaw(mallory, claimsFor(root, agent.did), {
      alg: "EdDSA",
      kid: root.kid,
      typ: LINK_TYPE,
    });
    const r = await verifyDelegation([link], {
      trustedRoots: [root.did],
      agent: agent.did,
      now: NOW,
    });
    expect(r.code).toBe("DELEGATION_SIGNATURE_INVALID");
    expect(r.links[0]?.signatureValid).toBe(false);
  });

  it("kid naming another DID than the issuer", async () => {
    const root = generateDelegationKey();
    const other = generateDelegationKey();
    const agent = generateDelegationKey();
    const link = await signRaw(root, claimsFor(root, agent.did), {
      alg: "EdDSA",
      kid: other.kid,
      typ: LINK_TYPE,
    });
    const r = await verifyDelegation([link], { trustedRoots: [root.did], now: NOW });
    expect(r.code).toBe("DELEGATION_KEY_MISMATCH");
  });

  it("a root-signed link whose kid fragment names another key is DELEGATION_KEY_MISMATCH (did:key has one key)", async () => {
    const root = generateDelegationKey();
    const attacker = generateDelegationKey();
    const agent = generateDelegationKey();
    // Signed by the root itself: a genuine signature, with a kid that lies about the key.
    const forged = await signRaw(root, claimsFor(root, agent.did), {
      alg: "EdDSA",
      kid: `${root.did}#${attacker.did.slice("did:key:".length)}`,
      typ: LINK_TYPE,
    });
    for (const resolver of [
      undefined,
      methodResolver(),
      { resolveKey: didKeyResolver.resolveKey },
    ]) {
      const r = await verifyDelegation([forged], {
        trustedRoots: [root.did],
        agent: agent.did,
        now: NOW,
        ...(resolver !== undefined && { resolver }),
      });
      expect(r.status).toBe("INVALID");
      expect(r.code).toBe("DELEGATION_KEY_MISMATCH");
      expect(r.links[0]?.checks.find((c) => c.rule === "kid")?.detail).toContain(
        "names another key",
      );
    }
    // The same claims under the key's own kid verify: only the kid was wrong.
    const honest = await signRaw(root, claimsFor(root, agent.did));
    expect((await verifyDelegation([honest], { trustedRoots: [root.did], now: NOW })).status).toBe(
      "VALID",
    );
  });

  it("a resolver that names its key's method ids has the kid checked against them", async () => {
    const key = generateDelegationKey();
    const agent = generateDelegationKey();
    const did = "did:web:example.com";
    const resolver = methodResolver({
      web: {
        resolveKey: () => key.publicKey,
        resolveMethod: () => ({ key: key.publicKey, ids: [`${did}#key-1`] }),
      },
    });
    const sign = (kid: string) =>
      signRaw(
        key,
        { ...claimsFor(key, agent.did), iss: did },
        { alg: "EdDSA", kid, typ: LINK_TYPE },
      );
    const ok = await verifyDelegation([await sign(`${did}#key-1`)], {
      trustedRoots: [did],
      now: NOW,
      resolver,
    });
    expect(ok.status).toBe("VALID");
    const other = await verifyDelegation([await sign(`${did}#key-2`)], {
      trustedRoots: [did],
      now: NOW,
      resolver,
    });
    expect(other.code).toBe("DELEGATION_KEY_MISMATCH");
    // Ids that are not the DID's own are a resolver failure, not a pass.
    const lying = methodResolver({
      web: {
        resolveKey: () => key.publicKey,
        resolveMethod: () => ({ key: key.publicKey, ids: ["did:web:evil#key-1"] }),
      },
    });
    const refused = await verifyDelegation([await sign(`${did}#key-1`)], {
      trustedRoots: [did],
      now: NOW,
      resolver: lying,
    });
    expect(refused.code).toBe("DELEGATION_ISSUER_UNRESOLVABLE");
  });

  it("expired", async () => {
    const { root, chain } = await chainOf();
    const r = await verifyDelegation(chain, {
      trustedRoots: [root.did],
      now: NOW + 1200 + 61,
      skewSeconds: 60,
    });
    expect(r.code).toBe("DELEGATION_EXPIRED");
    expect(r.links[2]?.checks.find((c) => c.rule === "time_window")?.result).toBe("FAIL");
    expect(r.links[0]?.status).toBe("VALID");
  });

  it("not yet valid", async () => {
    const { root, chain } = await chainOf();
    const r = await verifyDelegation(chain, {
      trustedRoots: [root.did],
      now: NOW - 60 - 61,
      skewSeconds: 60,
    });
    expect(r.code).toBe("DELEGATION_NOT_YET_VALID");
  });

  it("untrusted root", async () => {
    const { middle, chain } = await chainOf();
    const r = await verifyDelegation(chain, { trustedRoots: [middle.did], now: NOW });
    expect(r.code).toBe("DELEGATION_UNTRUSTED_ROOT");
    expect(r.trustedRoot).toBe(false);
  });

  it("no trusted roots", async () => {
    const { chain } = await chainOf();
    expect((await verifyDelegation(chain, { trustedRoots: [], now: NOW })).code).toBe(
      "DELEGATION_NO_TRUSTED_ROOTS",
    );
    // A caller that forgets the option entirely is refused too.
    const r = await verifyDelegation(chain, {} as never);
    expect(r.code).toBe("DELEGATION_NO_TRUSTED_ROOTS");
  });

  it("misaligned audience/issuer", async () => {
    const a = await chainOf();
    const b = await chainOf();
    // a's first link delegates to a.middle, but the next link is issued by b.middle.
    const r = await verifyDelegation([a.chain[0]!, b.chain[1]!], {
      trustedRoots: [a.root.did],
      now: NOW,
    });
    expect(failed(r)).toContain("audience_chain");
    expect(r.code).toBe("DELEGATION_AUDIENCE_MISMATCH");
  });

  it("escalated capability (a widening link is invalid, not intersected)", async () => {
    const root = generateDelegationKey();
    const middle = generateDelegationKey();
    const agent = generateDelegationKey();
    const one = await issueDelegation({
      issuer: root,
      audience: middle.did,
      capabilities: ["weather:alerts:*"],
      notBefore: NOW - 60,
      expires: NOW + 600,
      now: NOW,
    });
    const wide = await signRaw(
      middle,
      claimsFor(middle, agent.did, { cap: ["weather:*"], prf: one.digest }),
    );
    const r = await verifyDelegation([one.link, wide], {
      trustedRoots: [root.did],
      agent: agent.did,
      now: NOW,
    });
    expect(r.code).toBe("DELEGATION_ESCALATION");
    expect(r.effectiveCapabilities).toEqual([]);
    // Mixed: one covered grant and one widening grant is still refused as a whole.
    const mixed = await signRaw(
      middle,
      claimsFor(middle, agent.did, {
        cap: ["weather:alerts:list", "payments:refund"],
        prf: one.digest,
      }),
    );
    const m = await verifyDelegation([one.link, mixed], { trustedRoots: [root.did], now: NOW });
    expect(m.code).toBe("DELEGATION_ESCALATION");
    expect(m.effectiveCapabilities).toEqual([]);
  });

  it("malformed grant inside a signed link", async () => {
    const root = generateDelegationKey();
    const link = await signRaw(
      root,
      claimsFor(root, generateDelegationKey().did, { cap: ["weather:fore*"] }),
    );
    const r = await verifyDelegation([link], { trustedRoots: [root.did], now: NOW });
    expect(r.code).toBe("DELEGATION_CAPABILITY_INVALID");
  });

  it("parent digest mismatch", async () => {
    const root = generateDelegationKey();
    const middle = generateDelegationKey();
    const one = await issueDelegation({
      issuer: root,
      audience: middle.did,
      capabilities: ["weather:*"],
      notBefore: NOW - 60,
      expires: NOW + 600,
      now: NOW,
    });
    const orphan = await signRaw(
      middle,
      claimsFor(middle, generateDelegationKey().did, { prf: "0".repeat(64) }),
    );
    const r = await verifyDelegation([one.link, orphan], { trustedRoots: [root.did], now: NOW });
    expect(r.code).toBe("DELEGATION_PARENT_MISMATCH");
    const missing = await signRaw(middle, claimsFor(middle, generateDelegationKey().did));
    expect(
      (await verifyDelegation([one.link, missing], { trustedRoots: [root.did], now: NOW })).code,
    ).toBe("DELEGATION_PARENT_MISMATCH");
    const rootWithParent = await signRaw(root, claimsFor(root, middle.did, { prf: one.digest }));
    expect(
      (await verifyDelegation([rootWithParent], { trustedRoots: [root.did], now: NOW })).code,
    ).toBe("DELEGATION_PARENT_MISMATCH");
  });

  it("revoked", async () => {
    const { root, chain, links } = await chainOf();
    const revoked = new Set([links[1]!.claims.jti]);
    const r = await verifyDelegation(chain, {
      trustedRoots: [root.did],
      now: NOW,
      isRevoked: (jti) => revoked.has(jti),
    });
    expect(r.code).toBe("DELEGATION_REVOKED");
    expect(r.links[1]?.status).toBe("INVALID");
  });

  it("revocation check that throws or answers nonsense refuses the chain", async () => {
    const { root, chain } = await chainOf();
    const r = await verifyDelegation(chain, {
      trustedRoots: [root.did],
      now: NOW,
      isRevoked: async () => {
        throw new Error("revocation list offline");
      },
    });
    expect(r.code).toBe("DELEGATION_REVOCATION_UNAVAILABLE");
    const odd = await verifyDelegation(chain, {
      trustedRoots: [root.did],
      now: NOW,
      isRevoked: () => "no" as never,
    });
    expect(odd.code).toBe("DELEGATION_REVOCATION_UNAVAILABLE");
  });

  it("chain too long", async () => {
    const { root, chain } = await chainOf();
    const r = await verifyDelegation(chain, { trustedRoots: [root.did], now: NOW, maxLength: 2 });
    expect(r.code).toBe("DELEGATION_TOO_LONG");
    expect(r.links).toEqual([]);
    // maxLength can never exceed the hard ceiling of 64, and huge arrays are refused before parsing.
    const huge = new Array(1_000_000).fill("x");
    expect((await verifyDelegation(huge, { trustedRoots: [root.did], maxLength: 1e9 })).code).toBe(
      "DELEGATION_TOO_LONG",
    );
  });

  it("empty chain", async () => {
    expect((await verifyDelegation([], { trustedRoots: ["did:key:x"] })).code).toBe(
      "DELEGATION_EMPTY",
    );
  });

  it("unknown DID method", async () => {
    const key = generateDelegationKey();
    const link = await signRaw(
      key,
      { ...claimsFor(key, "did:key:z6Mkx"), iss: "did:web:example.com" },
      { alg: "EdDSA", kid: "did:web:example.com#key-1", typ: LINK_TYPE },
    );
    const r = await verifyDelegation([link], { trustedRoots: ["did:web:example.com"], now: NOW });
    expect(r.code).toBe("DELEGATION_ISSUER_UNRESOLVABLE");
    expect(r.links[0]?.checks.find((c) => c.rule === "issuer_key")?.detail).toContain(
      "DID_METHOD_UNSUPPORTED",
    );
  });

  it("a plugged-in resolver makes another method work, and a failing one refuses", async () => {
    const key = generateDelegationKey();
    const agent = generateDelegationKey();
    const did = "did:web:example.com";
    const link = await signRaw(
      key,
      { ...claimsFor(key, agent.did), iss: did },
      { alg: "EdDSA", kid: `${did}#key-1`, typ: LINK_TYPE },
    );
    const ok = await verifyDelegation([link], {
      trustedRoots: [did],
      now: NOW,
      resolver: methodResolver({ web: { resolveKey: () => key.publicKey } }),
    });
    expect(ok.status).toBe("VALID");
    const broken = await verifyDelegation([link], {
      trustedRoots: [did],
      now: NOW,
      resolver: methodResolver({
        web: {
          resolveKey: () => {
            throw new Error("offline");
          },
        },
      }),
    });
    expect(broken.code).toBe("DELEGATION_ISSUER_UNRESOLVABLE");
    expect(broken.links[0]?.checks.find((c) => c.rule === "issuer_key")?.detail).toContain(
      "DID_RESOLUTION_FAILED",
    );
  });

  it("malformed JWS", async () => {
    const roots = { trustedRoots: ["did:key:z6Mkx"], now: NOW };
    for (const bad of [
      "",
      "a.b",
      "a.b.c.d",
      "not a jws",
      "eyJhbGciOiJFZERTQSJ9.e30.!!",
      42,
      null,
      { link: "x" },
    ]) {
      const r = await verifyDelegation([bad], roots);
      expect(r.status).toBe("INVALID");
      expect(r.code).toBe("DELEGATION_MALFORMED");
    }
    expect((await verifyDelegation("a.b.c", roots)).code).toBe("DELEGATION_MALFORMED");
    expect((await verifyDelegation({ length: 1, 0: "a.b.c" }, roots)).code).toBe(
      "DELEGATION_MALFORMED",
    );
  });

  it("a link with the wrong alg, typ or extra header members", async () => {
    const root = generateDelegationKey();
    const claims = claimsFor(root, generateDelegationKey().did);
    const cases = [
      { alg: "EdDSA", kid: root.kid, typ: "JWT" },
      { alg: "EdDSA", kid: root.kid },
      { alg: "EdDSA", kid: root.kid, typ: LINK_TYPE, jwk: { kty: "OKP" } },
    ];
    for (const header of cases) {
      const link = await signRaw(root, claims, header);
      expect((await verifyDelegation([link], { trustedRoots: [root.did], now: NOW })).code).toBe(
        "DELEGATION_ALG_UNSUPPORTED",
      );
    }
    // alg "none": an unsigned link is refused.
    const none = `${Buffer.from(JSON.stringify({ alg: "none", kid: root.kid, typ: LINK_TYPE })).toString("base64url")}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}.AAAA`;
    const r = await verifyDelegation([none], { trustedRoots: [root.did], now: NOW });
    expect(r.code).toBe("DELEGATION_ALG_UNSUPPORTED");
    expect(r.links[0]?.signatureValid).toBe(false);
  });

  it("missing or ill-typed claims", async () => {
    const root = generateDelegationKey();
    const agent = generateDelegationKey().did;
    const cases: Record<string, unknown>[] = [
      { cap: [] },
      { cap: "weather:*" },
      { exp: NOW - 100, nbf: NOW },
      { exp: "soon" },
      { nbf: 1.5 },
      { jti: "" },
      { jti: "has space" },
      { prf: "ABC" },
      { aud: "not-a-did" },
      { aud: 7 },
    ];
    for (const extra of cases) {
      const link = await signRaw(root, claimsFor(root, agent, extra));
      const r = await verifyDelegation([link], { trustedRoots: [root.did], now: NOW });
      expect(r.code, JSON.stringify(extra)).toBe("DELEGATION_MALFORMED");
    }
  });

  it("a link over the size limit is refused before parsing", async () => {
    const huge = `${"a".repeat(20_000)}.b.c`;
    const r = await verifyDelegation([huge], { trustedRoots: ["did:key:z6Mkx"], now: NOW });
    expect(r.code).toBe("DELEGATION_TOO_LARGE");
  });

  it("duplicate link", async () => {
    const root = generateDelegationKey();
    const one = await issueDelegation({
      issuer: root,
      audience: root.did,
      capabilities: ["weather:*"],
      notBefore: NOW - 60,
      expires: NOW + 600,
      now: NOW,
    });
    const r = await verifyDelegation([one.link, one.link], { trustedRoots: [root.did], now: NOW });
    expect(failed(r)).toContain("unique_links");
    expect(r.status).toBe("INVALID");
    // A second link reusing the jti of the first is a duplicate too.
    const again = await signRaw(
      root,
      claimsFor(root, root.did, { jti: one.claims.jti, prf: one.digest }),
    );
    const j = await verifyDelegation([one.link, again], { trustedRoots: [root.did], now: NOW });
    expect(j.code).toBe("DELEGATION_DUPLICATE_LINK");
  });

  it("agent mismatch", async () => {
    const { root, middle, chain } = await chainOf();
    const r = await verifyDelegation(chain, {
      trustedRoots: [root.did],
      agent: middle.did,
      now: NOW,
    });
    expect(r.code).toBe("DELEGATION_AGENT_MISMATCH");
  });

  it("hostile payloads: deep nesting, __proto__ keys, lone surrogates", async () => {
    const root = generateDelegationKey();
    const agent = generateDelegationKey().did;
    const deepText = JSON.stringify(claimsFor(root, agent)).replace(
      /}$/,
      `,"x":${"[".repeat(3000)}${"]".repeat(3000)}}`,
    );
    const deep = await signRaw(root, deepText);
    expect((await verifyDelegation([deep], { trustedRoots: [root.did], now: NOW })).status).toBe(
      "VALID",
    );
    const proto = JSON.parse(
      `{"__proto__":{"cap":["*"]},"iss":"${root.did}","aud":"${agent}","nbf":${NOW - 1},"exp":${NOW + 100},"jti":"p1","cap":["weather:x"]}`,
    );
    const link = await signRaw(root, proto);
    const r = await verifyDelegation([link], { trustedRoots: [root.did], now: NOW });
    expect(r.effectiveCapabilities).toEqual(["weather:x"]);
    expect(({} as Record<string, unknown>).cap).toBeUndefined();
    const lone = await signRaw(root, JSON.stringify(claimsFor(root, agent, { jti: "\ud800" })));
    expect((await verifyDelegation([lone], { trustedRoots: [root.did], now: NOW })).code).toBe(
      "DELEGATION_MALFORMED",
    );
  });
});

describe("assertDelegation", () => {
  it("throws DelegationInvalidError carrying the result", async () => {
    const { chain } = await chainOf();
    const err = await assertDelegation(chain, { trustedRoots: ["did:key:z6Mkx"], now: NOW }).catch(
      (e) => e,
    );
    expect(err).toBeInstanceOf(DelegationInvalidError);
    expect(err.code).toBe("DELEGATION_UNTRUSTED_ROOT");
    expect(err.verification.status).toBe("INVALID");
  });
  it("returns the result for a valid chain", async () => {
    const { root, chain } = await chainOf();
    expect((await assertDelegation(chain, { trustedRoots: [root.did], now: NOW })).status).toBe(
      "VALID",
    );
  });
});

describe("verifyDelegation: hostile containers", () => {
  it("a chain that contains itself, a throwing getter or a proxy is malformed, never a crash", async () => {
    const cyclic: unknown[] = [];
    cyclic.push(cyclic);
    expect((await verifyDelegation(cyclic, { trustedRoots: ["did:key:z6Mkx"] })).code).toBe(
      "DELEGATION_MALFORMED",
    );
    const getter = [1];
    Object.defineProperty(getter, 0, {
      get() {
        throw new Error("boom");
      },
    });
    expect((await verifyDelegation(getter, { trustedRoots: ["did:key:z6Mkx"] })).code).toBe(
      "DELEGATION_MALFORMED",
    );
    const proxy = new Proxy([], {
      get() {
        throw new Error("boom");
      },
    });
    expect((await verifyDelegation(proxy, { trustedRoots: ["did:key:z6Mkx"] })).code).toBe(
      "DELEGATION_MALFORMED",
    );
  });

  it("reads each link once: a getter cannot swap a link between checks", async () => {
    const { root, agent, chain } = await chainOf();
    let reads = 0;
    const sneaky = [...chain];
    Object.defineProperty(sneaky, 2, {
      get() {
        reads++;
        return reads === 1 ? chain[2] : "swapped";
      },
    });
    const r = await verifyDelegation(sneaky, {
      trustedRoots: [root.did],
      agent: agent.did,
      now: NOW,
    });
    expect(r.status).toBe("VALID");
    expect(reads).toBe(1);
  });
});

describe("verifyDelegation: properties", () => {
  it("any single-character change to any link of a valid chain makes it INVALID", async () => {
    const fc = (await import("fast-check")).default;
    const { root, agent, chain } = await chainOf();
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.";
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 2 }),
        fc.nat(),
        fc.constantFrom(...alphabet),
        async (which, at, ch) => {
          const link = chain[which]!;
          const pos = at % link.length;
          if (link[pos] === ch) return;
          const mutated = [...chain];
          mutated[which] = `${link.slice(0, pos)}${ch}${link.slice(pos + 1)}`;
          const r = await verifyDelegation(mutated, {
            trustedRoots: [root.did],
            agent: agent.did,
            now: NOW,
          });
          // Even a change in the unused trailing bits of a segment is refused: one
          // spelling per link, so one digest per link.
          expect(r.status).toBe("INVALID");
        },
      ),
      { numRuns: 400 },
    );
  });

  it("never throws and never answers VALID for arbitrary JSON", async () => {
    const fc = (await import("fast-check")).default;
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (value) => {
        const r = await verifyDelegation(value, { trustedRoots: ["did:key:z6Mkx"] });
        expect(r.status).toBe("INVALID");
        expect(r.effectiveCapabilities).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});

describe("verifyDelegation: one spelling per link", () => {
  it("refuses a signature re-encoded with stray trailing bits", async () => {
    const { root, agent, chain } = await chainOf();
    const leaf = chain[2]!;
    const last = leaf[leaf.length - 1]!;
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    // 64 signature bytes leave 4 unused bits in the last character: flip the lowest one.
    const twin = alphabet[alphabet.indexOf(last) ^ 1]!;
    const variant = [...chain.slice(0, 2), `${leaf.slice(0, -1)}${twin}`];
    expect(Buffer.from(variant[2]!.split(".")[2]!, "base64url")).toEqual(
      Buffer.from(leaf.split(".")[2]!, "base64url"),
    );
    const r = await verifyDelegation(variant, {
      trustedRoots: [root.did],
      agent: agent.did,
      now: NOW,
    });
    expect(r.code).toBe("DELEGATION_MALFORMED");
  });
});

describe("decodeLink", () => {
  it("throws LinkFormatError, an AirlockError with a stable code", async () => {
    const { decodeLink, LinkFormatError } = await import("../../src/guard/delegation/link.js");
    const { AirlockError } = await import("../../src/errors.js");
    for (const [input, code] of [
      ["not a jws", "DELEGATION_MALFORMED"],
      [`${"a".repeat(20_000)}.b.c`, "DELEGATION_TOO_LARGE"],
      [7, "DELEGATION_MALFORMED"],
    ] as const) {
      const err = (() => {
        try {
          decodeLink(input);
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(LinkFormatError);
      expect(err).toBeInstanceOf(AirlockError);
      expect((err as InstanceType<typeof LinkFormatError>).code).toBe(code);
    }
  });
});

describe("verifyDelegation: attenuation property", () => {
  it("a two-link chain is VALID exactly when every child grant is covered by a parent grant", async () => {
    const fc = (await import("fast-check")).default;
    const { covers } = await import("../../src/guard/capability.js");
    const root = generateDelegationKey();
    const middle = generateDelegationKey();
    const agent = generateDelegationKey();
    const segment = fc.constantFrom("weather", "alerts", "list", "maps");
    const grant = fc.oneof(
      fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => s.join(":")),
      fc.array(segment, { minLength: 0, maxLength: 2 }).map((s) => [...s, "*"].join(":")),
    );
    const grantSet = fc.uniqueArray(grant, { minLength: 1, maxLength: 3 });
    await fc.assert(
      fc.asyncProperty(grantSet, grantSet, async (parentCaps, childCaps) => {
        const one = await signRaw(root, claimsFor(root, middle.did, { cap: parentCaps }));
        const two = await signRaw(
          middle,
          claimsFor(middle, agent.did, { cap: childCaps, prf: linkDigest(one) }),
        );
        const r = await verifyDelegation([one, two], {
          trustedRoots: [root.did],
          agent: agent.did,
          now: NOW,
        });
        const narrows = childCaps.every((c) => parentCaps.some((p) => covers(p, c)));
        expect(r.status).toBe(narrows ? "VALID" : "INVALID");
        if (!narrows) expect(r.code).toBe("DELEGATION_ESCALATION");
        else expect(r.effectiveCapabilities).toEqual(childCaps);
      }),
      { numRuns: 150 },
    );
  });
});
