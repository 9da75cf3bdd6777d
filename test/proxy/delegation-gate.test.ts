import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  DidisClient,
  didisVerifier,
  generateDelegationKey,
  issueDelegation,
  localVerifier,
  ToolGuardError,
} from "../../src/guard/index.js";
import { createDelegationGate } from "../../src/proxy/delegation-gate.js";

// The proxy's delegation step on real signed chains and the real verifiers.

const root = generateDelegationKey();
const otherRoot = generateDelegationKey();
const agent = generateDelegationKey();

async function chainFrom(issuer = root, capabilities = ["fs:read:*", "echo"]) {
  return (await issueDelegation({ issuer, audience: agent.did, capabilities, ttlSeconds: 600 }))
    .chain;
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

describe("createDelegationGate", () => {
  it("allows what the chain grants (via the capability table), refuses the rest with TOOL_NOT_AUTHORIZED", async () => {
    const gate = createDelegationGate({
      verifier: localVerifier({ chains: [await chainFrom()], trustedRoots: [root.did] }),
      agent: agent.did,
      roots: [root.did],
      capabilities: { read_file: "fs:read:file", write_file: "fs:write:file" },
    });
    expect(gate.capabilityOf("read_file")).toBe("fs:read:file");
    expect(gate.capabilityOf("echo")).toBe("echo");
    // A tool named like an Object.prototype member is not in the table.
    expect(gate.capabilityOf("constructor")).toBe("constructor");
    const read = await gate.check("read_file");
    expect(read).toMatchObject({ allowed: true, capability: "fs:read:file", root: root.did });
    expect(await gate.check("read_file")).toMatchObject({ allowed: true, cached: true });
    expect(await gate.check("echo")).toMatchObject({ allowed: true, capability: "echo" });
    const write = await gate.check("write_file");
    expect(write).toMatchObject({
      allowed: false,
      code: "TOOL_NOT_AUTHORIZED",
      capability: "fs:write:file",
    });
    expect(write.allowed === false && write.reason).toMatch(/not authorized for "fs:write:file"/);
  });

  it("asks each trusted root in turn: a chain from the second one grants", async () => {
    const gate = createDelegationGate({
      verifier: localVerifier({
        chains: [await chainFrom(otherRoot, ["echo"])],
        trustedRoots: [root.did, otherRoot.did],
      }),
      agent: agent.did,
      roots: [root.did, otherRoot.did],
    });
    expect(await gate.check("echo")).toMatchObject({ allowed: true, root: otherRoot.did });
    const refused = await gate.check("add");
    expect(refused).toMatchObject({ allowed: false, code: "TOOL_NOT_AUTHORIZED" });
    expect(refused.allowed === false && refused.reason).toMatch(/^no trusted root grants "add"/);
  });

  it("fails closed with GUARD_UNAVAILABLE when the service cannot be reached or answers nonsense", async () => {
    const nonsense = createServer((_req, res) => {
      res.setHeader("content-type", "application/json");
      res.end('{"decision":"MAYBE"}');
    });
    servers.push(nonsense);
    await new Promise<void>((r) => nonsense.listen(0, "127.0.0.1", r));
    const { port } = nonsense.address() as AddressInfo;
    for (const baseUrl of ["http://127.0.0.1:1", `http://127.0.0.1:${port}`]) {
      const gate = createDelegationGate({
        verifier: didisVerifier(new DidisClient({ baseUrl, timeoutMs: 2_000 })),
        agent: agent.did,
        roots: [root.did],
      });
      const answer = await gate.check("echo");
      expect(answer, baseUrl).toMatchObject({ allowed: false, code: "GUARD_UNAVAILABLE" });
    }
  });

  it("refuses a tool name the guard cannot check with GUARD_MISCONFIGURED, asking no verifier", async () => {
    const gate = createDelegationGate({
      verifier: localVerifier({ chains: [await chainFrom()], trustedRoots: [root.did] }),
      agent: agent.did,
      roots: [root.did],
    });
    expect(await gate.check("two words")).toMatchObject({
      allowed: false,
      code: "GUARD_MISCONFIGURED",
    });
  });

  it("refuses bad settings up front with GUARD_MISCONFIGURED", async () => {
    const verifier = localVerifier({ chains: [], trustedRoots: [root.did] });
    const bad = [
      { verifier, agent: "agent-7", roots: [root.did] },
      { verifier, agent: agent.did, roots: [] },
      { verifier, agent: agent.did, roots: ["did:key:zNotAKey"] },
      { verifier, agent: agent.did, roots: [root.did], capabilities: { read: "fs:*" } },
      { verifier, agent: agent.did, roots: [root.did], capabilities: { read: 7 } },
      { verifier, agent: agent.did, roots: [root.did], capabilities: { "a b": "x" } },
    ];
    for (const options of bad) {
      let caught: unknown;
      try {
        createDelegationGate(options as never);
      } catch (error) {
        caught = error;
      }
      expect(caught, JSON.stringify(options.capabilities ?? options.roots)).toBeInstanceOf(
        ToolGuardError,
      );
      expect((caught as ToolGuardError).code).toBe("GUARD_MISCONFIGURED");
    }
  });

  it("does not keep a reference to the caller's table", async () => {
    const table: Record<string, string> = { read_file: "fs:read:file" };
    const gate = createDelegationGate({
      verifier: localVerifier({ chains: [await chainFrom()], trustedRoots: [root.did] }),
      agent: agent.did,
      roots: [root.did],
      capabilities: table,
    });
    table.read_file = "fs:write:file";
    expect(gate.capabilityOf("read_file")).toBe("fs:read:file");
    expect(Object.isFrozen(table)).toBe(false);
  });
});
