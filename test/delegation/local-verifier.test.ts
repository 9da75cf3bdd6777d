import { describe, expect, it } from "vitest";
import { CapabilityError } from "../../src/guard/capability.js";
import { issueDelegation } from "../../src/guard/delegation/issue.js";
import { generateDelegationKey } from "../../src/guard/did/keys.js";
import { localVerifier } from "../../src/guard/local-verifier.js";
import { createMemoryRegistry } from "../../src/guard/registry/memory.js";
import type { DelegationRegistry } from "../../src/guard/registry/registry.js";
import { chainOf, NOW } from "./helpers.js";

const clock = () => NOW * 1000;

describe("localVerifier", () => {
  it("ALLOWs a granted capability with the matched grant, expiry and root", async () => {
    const { root, agent, chain } = await chainOf(NOW, [
      ["weather:*"],
      ["weather:*"],
      ["weather:forecast", "weather:alerts:*"],
    ]);
    const v = localVerifier({ chains: [chain], trustedRoots: [root.did], clock });
    expect(
      await v.verifyTool({ agent: agent.did, capability: "weather:forecast", root: root.did }),
    ).toEqual({
      decision: "ALLOW",
      reason: expect.stringContaining("weather:forecast"),
      matchedCapability: "weather:forecast",
      expires: NOW + 1200,
      root: root.did,
    });
    const alerts = await v.verifyTool({
      agent: agent.did,
      capability: "weather:alerts:list",
      root: root.did,
    });
    expect(alerts.matchedCapability).toBe("weather:alerts:*");
  });

  it("DENYs a capability the chain does not grant", async () => {
    const { root, agent, chain } = await chainOf();
    const v = localVerifier({ chains: [chain], trustedRoots: [root.did], clock });
    for (const capability of [
      "weather",
      "payments:refund",
      "weather:alerts:list",
      "weatherx:forecast",
    ]) {
      expect((await v.verifyTool({ agent: agent.did, capability, root: root.did })).decision).toBe(
        "DENY",
      );
    }
  });

  it("DENYs a root it does not trust, even one the chain starts from", async () => {
    const { root, agent, chain } = await chainOf();
    const v = localVerifier({
      chains: [chain],
      trustedRoots: [generateDelegationKey().did],
      clock,
    });
    const r = await v.verifyTool({
      agent: agent.did,
      capability: "weather:forecast",
      root: root.did,
    });
    expect(r.decision).toBe("DENY");
    expect(r.reason).toContain("not one of this verifier's trusted roots");
  });

  it("DENYs another agent, an expired chain, and an agent with no chain", async () => {
    const { root, middle, agent, chain } = await chainOf();
    const v = localVerifier({ chains: [chain], trustedRoots: [root.did], clock });
    expect(
      (await v.verifyTool({ agent: middle.did, capability: "weather:forecast", root: root.did }))
        .decision,
    ).toBe("DENY");
    const late = localVerifier({
      chains: [chain],
      trustedRoots: [root.did],
      clock: () => (NOW + 5000) * 1000,
    });
    const r = await late.verifyTool({
      agent: agent.did,
      capability: "weather:forecast",
      root: root.did,
    });
    expect(r.decision).toBe("DENY");
    expect(r.reason).toContain("DELEGATION_EXPIRED");
  });

  it("with a registry: registered chains are used and registry revocations honoured", async () => {
    const { root, agent, chain, links } = await chainOf();
    const registry = createMemoryRegistry();
    const v = localVerifier({ registry, trustedRoots: [root.did], clock });
    const ask = () =>
      v.verifyTool({ agent: agent.did, capability: "weather:forecast", root: root.did });
    expect((await ask()).decision).toBe("DENY");
    await registry.register(chain);
    expect((await ask()).decision).toBe("ALLOW");
    await registry.revoke(links[0]!.claims.jti);
    const r = await ask();
    expect(r.decision).toBe("DENY");
    expect(r.reason).toContain("DELEGATION_REVOKED");
  });

  it("picks a valid chain among invalid ones", async () => {
    const good = await chainOf();
    const stale = await issueDelegation({
      issuer: good.deputy,
      audience: good.agent.did,
      capabilities: ["weather:forecast"],
      notBefore: NOW - 100,
      expires: NOW - 50,
      parent: good.chain.slice(0, 2),
      now: NOW,
    });
    const v = localVerifier({
      chains: [stale.chain, good.chain],
      trustedRoots: [good.root.did],
      clock,
      skewSeconds: 0,
    });
    expect(
      (
        await v.verifyTool({
          agent: good.agent.did,
          capability: "weather:forecast",
          root: good.root.did,
        })
      ).decision,
    ).toBe("ALLOW");
  });

  it("fails closed: a registry that throws makes verifyTool throw, never ALLOW", async () => {
    const { root, agent } = await chainOf();
    const broken = {
      chainsFor: async () => {
        throw new Error("database offline");
      },
      isRevoked: async () => false,
    } as unknown as DelegationRegistry;
    const v = localVerifier({ registry: broken, trustedRoots: [root.did], clock });
    await expect(
      v.verifyTool({ agent: agent.did, capability: "weather:forecast", root: root.did }),
    ).rejects.toThrow("database offline");
  });

  it("a revocation check that throws denies", async () => {
    const { root, agent, chain } = await chainOf();
    const v = localVerifier({
      chains: [chain],
      trustedRoots: [root.did],
      clock,
      isRevoked: () => {
        throw new Error("list unavailable");
      },
    });
    const r = await v.verifyTool({
      agent: agent.did,
      capability: "weather:forecast",
      root: root.did,
    });
    expect(r.decision).toBe("DENY");
    expect(r.reason).toContain("DELEGATION_REVOCATION_UNAVAILABLE");
  });

  it("refuses a wildcard or malformed request with GUARD_MISCONFIGURED", async () => {
    const { root, agent, chain } = await chainOf();
    const v = localVerifier({ chains: [chain], trustedRoots: [root.did], clock });
    await expect(
      v.verifyTool({ agent: agent.did, capability: "weather:*", root: root.did }),
    ).rejects.toBeInstanceOf(CapabilityError);
  });

  it("needs trusted roots and a source of chains", () => {
    expect(() => localVerifier({ chains: [] } as never)).toThrow(TypeError);
    expect(() => localVerifier({ trustedRoots: [] })).toThrow(TypeError);
  });

  it("does not keep a reference to the chains it was given", async () => {
    const { root, agent, chain } = await chainOf();
    const given = [...chain];
    const v = localVerifier({ chains: [given], trustedRoots: [root.did], clock });
    given.length = 0;
    expect(
      (await v.verifyTool({ agent: agent.did, capability: "weather:forecast", root: root.did }))
        .decision,
    ).toBe("ALLOW");
  });
});
