/**
 * Delegation end to end: keys, a two-link chain, offline verification with every check,
 * a refused escalation, and the same question asked of a DID.is-compatible service run
 * locally (what `airlock delegate serve` starts).
 *
 *   node --import tsx examples/delegation.ts
 *
 * In your code, import from "agent-airlock/guard".
 */
import {
  createMemoryRegistry,
  DelegationError,
  DidisClient,
  didisVerifier,
  generateDelegationKey,
  issueDelegation,
  localVerifier,
  startDidisServer,
  verifyDelegation,
} from "../src/guard/index.js";

const root = generateDelegationKey();
const team = generateDelegationKey();
const agent = generateDelegationKey();

const toTeam = await issueDelegation({
  issuer: root,
  audience: team.did,
  capabilities: ["weather:*"],
  ttlSeconds: 86_400,
});
const { chain } = await issueDelegation({
  issuer: team,
  audience: agent.did,
  capabilities: ["weather:forecast"],
  ttlSeconds: 3_600,
  parent: toTeam.chain,
});

const result = await verifyDelegation(chain, { trustedRoots: [root.did], agent: agent.did });
console.log(`chain ${result.status}: ${result.effectiveCapabilities.join(", ")}`);
for (const check of result.checks) console.log(`  ${check.result} ${check.rule}`);

// The team cannot hand on more than it holds.
try {
  await issueDelegation({
    issuer: team,
    audience: agent.did,
    capabilities: ["payments:refund"],
    ttlSeconds: 60,
    parent: toTeam.chain,
  });
} catch (err) {
  if (err instanceof DelegationError) console.log(`escalation refused: ${err.code}`);
}

// Offline: the embedded default verifier.
const local = localVerifier({ chains: [chain], trustedRoots: [root.did] });
const ask = { agent: agent.did, capability: "weather:forecast", root: root.did };
console.log(`local forecast: ${(await local.verifyTool(ask)).decision}`);
console.log(
  `local alerts: ${(await local.verifyTool({ ...ask, capability: "weather:alerts" })).decision}`,
);

// A service of your own on loopback, asked through the DID.is client.
const service = await startDidisServer({ registry: createMemoryRegistry(), port: 0 });
try {
  const client = new DidisClient({ baseUrl: service.url, timeoutMs: 5_000 });
  const registered = await client.verifyDelegation({
    chain,
    trustedRoots: [root.did],
    register: true,
  });
  console.log(`service registered: ${registered.registered}`);
  const remote = didisVerifier(client);
  console.log(`service forecast: ${(await remote.verifyTool(ask)).decision}`);
} finally {
  await service.close();
}
