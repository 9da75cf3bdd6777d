import { describe, expect, it, vi } from "vitest";
import { issueDelegation } from "../../src/guard/delegation/issue.js";
import { generateDelegationKey } from "../../src/guard/did/keys.js";
import { ToolGuardError } from "../../src/guard/errors.js";
import { localVerifier } from "../../src/guard/local-verifier.js";
import { createMemoryRegistry } from "../../src/guard/registry/memory.js";
import { createToolGuard } from "../../src/guard/tool-guard.js";

const T0 = 1_800_000_000; // epoch seconds

/** root -> team (weather:*) -> agent (weather:forecast), the agent's link valid for `ttl` s. */
async function chainSetup(ttl = 10) {
  const root = generateDelegationKey();
  const team = generateDelegationKey();
  const agent = generateDelegationKey();
  const stranger = generateDelegationKey();
  const top = await issueDelegation({
    issuer: root,
    audience: team.did,
    capabilities: ["weather:*"],
    ttlSeconds: 3600,
    now: T0,
    notBefore: T0,
  });
  const leaf = await issueDelegation({
    issuer: team,
    audience: agent.did,
    capabilities: ["weather:forecast"],
    ttlSeconds: ttl,
    parent: top.chain,
    now: T0,
    notBefore: T0,
  });
  let nowMs = T0 * 1000;
  const clock = () => nowMs;
  return {
    root,
    agent,
    stranger,
    leaf,
    clock,
    advance: (ms: number) => {
      nowMs += ms;
    },
  };
}

const call = { tool: "weather_forecast", capability: "weather:forecast" };

describe("tool guard with the real localVerifier and signed chains", () => {
  it("allows a capability the chain grants and refuses others", async () => {
    const { root, agent, leaf, clock } = await chainSetup(3600);
    const verifier = localVerifier({ chains: [leaf.chain], trustedRoots: [root.did], clock });
    const guard = createToolGuard({ verifier, agent: agent.did, root: root.did, clock });
    const allowed = await guard.check(call);
    expect(allowed).toMatchObject({ decision: "ALLOW", matchedCapability: "weather:forecast" });
    expect(allowed.expires).toBe(T0 + 3600);
    await expect(
      guard.check({ tool: "weather_alerts", capability: "weather:alerts" }),
    ).rejects.toMatchObject({
      code: "TOOL_NOT_AUTHORIZED",
    });
    await expect(
      guard.check({ tool: "refund", capability: "payments:refund" }),
    ).rejects.toMatchObject({
      code: "TOOL_NOT_AUTHORIZED",
    });
  });

  it("caches the ALLOW only until the delegation expires (10 s), not for 30 s", async () => {
    const { root, agent, leaf, clock, advance } = await chainSetup(10);
    const inner = localVerifier({
      chains: [leaf.chain],
      trustedRoots: [root.did],
      clock,
      skewSeconds: 0,
    });
    const verifier = { verifyTool: vi.fn(inner.verifyTool) };
    const handler = vi.fn(() => "forecast");
    const guard = createToolGuard({ verifier, agent: agent.did, root: root.did, clock });
    const forecast = guard.wrap(call, handler);
    expect(await forecast()).toBe("forecast");
    advance(9_999);
    expect(await forecast()).toBe("forecast");
    expect(verifier.verifyTool).toHaveBeenCalledTimes(1);
    advance(1); // the delegation's expiry, 20 s before the 30 s cache would end
    const late = await forecast().catch((e: unknown) => e);
    expect(late).toBeInstanceOf(ToolGuardError);
    expect((late as ToolGuardError).code).toBe("TOOL_NOT_AUTHORIZED");
    expect(verifier.verifyTool).toHaveBeenCalledTimes(2);
    expect(handler).toHaveBeenCalledTimes(2);
  });

  it("two agents never share a cached ALLOW", async () => {
    const { root, agent, stranger, leaf, clock } = await chainSetup(3600);
    const verifier = localVerifier({ chains: [leaf.chain], trustedRoots: [root.did], clock });
    const mine = createToolGuard({ verifier, agent: agent.did, root: root.did, clock });
    const theirs = createToolGuard({ verifier, agent: stranger.did, root: root.did, clock });
    await mine.check(call);
    await expect(theirs.check(call)).rejects.toMatchObject({ code: "TOOL_NOT_AUTHORIZED" });
  });

  it("refuses under a root the verifier does not trust", async () => {
    const { root, agent, stranger, leaf, clock } = await chainSetup(3600);
    const verifier = localVerifier({ chains: [leaf.chain], trustedRoots: [root.did], clock });
    const guard = createToolGuard({ verifier, agent: agent.did, root: stranger.did, clock });
    await expect(guard.check(call)).rejects.toMatchObject({ code: "TOOL_NOT_AUTHORIZED" });
  });

  it("a revocation in the registry refuses once the cached ALLOW is cleared", async () => {
    const { root, agent, leaf, clock } = await chainSetup(3600);
    const registry = createMemoryRegistry();
    await registry.register(leaf.chain);
    const verifier = localVerifier({ registry, trustedRoots: [root.did], clock });
    const guard = createToolGuard({ verifier, agent: agent.did, root: root.did, clock });
    await guard.check(call);
    await registry.revoke(leaf.claims.jti);
    // Within allowCacheSeconds the cached ALLOW stands (documented); clearCache drops it.
    expect((await guard.check(call)).cached).toBe(true);
    guard.clearCache();
    await expect(guard.check(call)).rejects.toMatchObject({ code: "TOOL_NOT_AUTHORIZED" });
  });
});
