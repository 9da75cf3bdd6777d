/**
 * Local verification of a 3-link delegation chain, against its floor: three bare Ed25519
 * signature verifications with node:crypto over the same links, measured in the same run.
 */
import { verify as ed25519Verify } from "node:crypto";
import { compactVerify } from "jose";
import { issueDelegation } from "../src/guard/delegation/issue.js";
import { SignatureCache, verifyDelegation } from "../src/guard/delegation/verify.js";
import { generateDelegationKey } from "../src/guard/did/keys.js";
import { localVerifier } from "../src/guard/local-verifier.js";
import { formatNs, formatRatio, measure, measureAsync, table } from "./lib/measure.js";

/** More rounds than the default: the machines here are shared and noisy. */
const R = { rounds: 9, roundMs: 30 };
const PASSES = 7;

export const title = "Delegation: verifying a 3-link chain locally";

export async function run(): Promise<string> {
  const root = generateDelegationKey();
  const team = generateDelegationKey();
  const deputy = generateDelegationKey();
  const agent = generateDelegationKey();
  const one = await issueDelegation({
    issuer: root,
    audience: team.did,
    capabilities: ["weather:*", "maps:*"],
    ttlSeconds: 3600,
  });
  const two = await issueDelegation({
    issuer: team,
    audience: deputy.did,
    capabilities: ["weather:*"],
    ttlSeconds: 3600,
    parent: one.chain,
  });
  const three = await issueDelegation({
    issuer: deputy,
    audience: agent.did,
    capabilities: ["weather:forecast"],
    ttlSeconds: 3600,
    parent: two.chain,
  });
  const chain = three.chain;
  const keys = [root, team, deputy].map((k) => k.publicKey);
  const inputs = chain.map((link) => {
    const [h, p, s] = link.split(".") as [string, string, string];
    return { data: Buffer.from(`${h}.${p}`), sig: Buffer.from(s, "base64url") };
  });

  const verifier = localVerifier({ chains: [chain], trustedRoots: [root.did] });
  const uncachedVerifier = localVerifier({
    chains: [chain],
    trustedRoots: [root.did],
    signatureCache: false,
  });
  const question = { agent: agent.did, capability: "weather:forecast", root: root.did };
  const options = { trustedRoots: [root.did], agent: agent.did };
  const signatureCache = new SignatureCache();
  const ops: [string, () => Promise<unknown> | unknown][] = [
    [
      "baseline: 3 x node:crypto Ed25519 verify",
      () => {
        for (let i = 0; i < 3; i++) {
          if (!ed25519Verify(null, inputs[i]!.data, keys[i]!, inputs[i]!.sig))
            throw new Error("bad");
        }
      },
    ],
    [
      "3 x jose compactVerify (EdDSA)",
      async () => {
        for (let i = 0; i < 3; i++)
          await compactVerify(chain[i]!, keys[i]!, { algorithms: ["EdDSA"] });
      },
    ],
    [
      "verifyDelegation, every check, no cache",
      async () => {
        const r = await verifyDelegation(chain, options);
        if (r.status !== "VALID") throw new Error(r.code);
      },
    ],
    [
      "verifyDelegation with a warm SignatureCache",
      async () => {
        const r = await verifyDelegation(chain, { ...options, signatureCache });
        if (r.status !== "VALID") throw new Error(r.code);
      },
    ],
    [
      "localVerifier.verifyTool, no signature cache",
      async () => {
        const r = await uncachedVerifier.verifyTool(question);
        if (r.decision !== "ALLOW") throw new Error(r.reason);
      },
    ],
    [
      "localVerifier.verifyTool (default: signature cache)",
      async () => {
        const r = await verifier.verifyTool(question);
        if (r.decision !== "ALLOW") throw new Error(r.reason);
      },
    ],
  ];

  // The machine is shared: interleave passes and report the median of per-pass ratios,
  // each against the baseline measured just before it.
  const medians: number[][] = ops.map(() => []);
  const ratios: number[][] = ops.map(() => []);
  for (let pass = 0; pass < PASSES; pass++) {
    let base = 0;
    for (const [i, [, fn]] of ops.entries()) {
      const m = i === 0 ? measure(fn as () => unknown, R) : await measureAsync(async () => fn(), R);
      if (i === 0) base = m.median;
      medians[i]!.push(m.median);
      ratios[i]!.push(m.median / base);
    }
  }
  const mid = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  const rows = ops.map(([name], i) => [
    name,
    formatNs(mid(medians[i]!)),
    formatRatio(mid(ratios[i]!)),
  ]);
  return `${table(
    [
      "operation (3-link chain)",
      "median",
      "vs 3 bare Ed25519 verifies (median of 7 interleaved passes)",
    ],
    rows,
  )}

Inputs: one 3-link chain (root -> team -> deputy -> agent, Ed25519 did:key links) issued at
the start of the run; every row verifies those same links, and every ratio is to the
baseline measured just before it in the same pass of this run. "Warm" means the cache
already holds the three links' signature verdicts (the first call filled it).

The floor of verifying a chain is its signatures: \`verifyDelegation\` does those three
verifications (through jose) plus decoding, claim and grant checks, chaining, trust and
time, and reports every check. The signature cache remembers links whose did:key signature
verified (a did:key names its key, so the verdict on the same bytes cannot change); trust,
time, attenuation and revocation are still checked on every call. The machine is shared
with other jobs: differences under about 0.5x between rows are noise.`;
}
