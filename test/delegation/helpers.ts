import canonicalize from "canonicalize";
import { CompactSign } from "jose";
import { issueDelegation } from "../../src/guard/delegation/issue.js";
import { LINK_TYPE, linkDigest } from "../../src/guard/delegation/link.js";
import type { DelegationKey } from "../../src/guard/did/keys.js";
import { generateDelegationKey } from "../../src/guard/did/keys.js";

export const NOW = 1_800_000_000;

/** Sign any header and claims as a compact JWS: for links the issuer API refuses to make. */
export async function signRaw(
  key: DelegationKey,
  claims: Record<string, unknown> | string,
  header: Record<string, unknown> = { alg: "EdDSA", kid: key.kid, typ: LINK_TYPE },
): Promise<string> {
  return new CompactSign(
    new TextEncoder().encode(
      typeof claims === "string" ? claims : (canonicalize(claims) as string),
    ),
  )
    .setProtectedHeader(header as { alg: string })
    .sign(key.privateKey);
}

/** root -> middle -> agent, returning all keys and the chain. */
export async function chainOf(
  now = NOW,
  caps: [string[], string[], string[]] = [["weather:*"], ["weather:*"], ["weather:forecast"]],
) {
  const root = generateDelegationKey();
  const middle = generateDelegationKey();
  const deputy = generateDelegationKey();
  const agent = generateDelegationKey();
  const one = await issueDelegation({
    issuer: root,
    audience: middle.did,
    capabilities: caps[0],
    notBefore: now - 60,
    expires: now + 3600,
    now,
  });
  const two = await issueDelegation({
    issuer: middle,
    audience: deputy.did,
    capabilities: caps[1],
    notBefore: now - 60,
    expires: now + 2400,
    parent: one.chain,
    now,
  });
  const three = await issueDelegation({
    issuer: deputy,
    audience: agent.did,
    capabilities: caps[2],
    notBefore: now - 60,
    expires: now + 1200,
    parent: two.chain,
    now,
  });
  return { root, middle, deputy, agent, chain: three.chain, links: [one, two, three] };
}

export function claimsFor(
  issuer: DelegationKey,
  audience: string,
  extra: Record<string, unknown> = {},
) {
  return {
    iss: issuer.did,
    aud: audience,
    cap: ["weather:*"],
    nbf: NOW - 60,
    exp: NOW + 600,
    iat: NOW - 60,
    jti: `j-${Math.random().toString(36).slice(2)}`,
    ...extra,
  };
}

export { linkDigest };

/**
 * `count` one-link chains from `root`, valid for a day from now: to `audience` when given
 * (each with its own grant, so each is a distinct chain), else each to a fresh agent.
 */
export async function oneLinkChains(root: DelegationKey, count: number, audience?: string) {
  const out: { agent: string; jti: string; chain: string[] }[] = [];
  for (let i = 0; i < count; i++) {
    const agent = audience ?? generateDelegationKey().did;
    const jti = `link-${i}-${Math.random().toString(36).slice(2, 10)}`;
    const { chain } = await issueDelegation({
      issuer: root,
      audience: agent,
      capabilities: [audience === undefined ? "weather:*" : `weather:c${i}`],
      ttlSeconds: 86_400,
      jti,
    });
    out.push({ agent, jti, chain });
  }
  return out;
}
