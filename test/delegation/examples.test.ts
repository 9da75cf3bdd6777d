import { execFileSync } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { DidisClient } from "../../src/guard/didis-client.js";
import { didisVerifier } from "../../src/guard/didis-verifier.js";
import { ToolGuardError } from "../../src/guard/errors.js";
import { localVerifier } from "../../src/guard/local-verifier.js";
import { createToolGuard } from "../../src/guard/tool-guard.js";
import { chainOf, NOW } from "./helpers.js";

describe("examples/delegation.ts", () => {
  it("runs and prints the verdicts", () => {
    const out = execFileSync(process.execPath, ["--import", "tsx", "examples/delegation.ts"], {
      encoding: "utf8",
    });
    expect(out).toContain("chain VALID: weather:forecast");
    expect(out).toContain("PASS signatures");
    expect(out).toContain("escalation refused: DELEGATION_ESCALATION");
    expect(out).toContain("local forecast: ALLOW");
    expect(out).toContain("local alerts: DENY");
    expect(out).toContain("service registered: true");
    expect(out).toContain("service forecast: ALLOW");
  });
});

describe("with the tool guard", () => {
  it("localVerifier: ALLOW for a granted capability, TOOL_NOT_AUTHORIZED otherwise", async () => {
    const { root, agent, chain } = await chainOf();
    const guard = createToolGuard({
      verifier: localVerifier({
        chains: [chain],
        trustedRoots: [root.did],
        clock: () => NOW * 1000,
      }),
      agent: agent.did,
      root: root.did,
      clock: () => NOW * 1000,
    });
    const ok = await guard.check({ tool: "forecast", capability: "weather:forecast" });
    expect(ok).toMatchObject({
      decision: "ALLOW",
      matchedCapability: "weather:forecast",
      expires: NOW + 1200,
    });
    const denied = await guard
      .check({ tool: "refund", capability: "payments:refund" })
      .catch((e) => e);
    expect(denied).toBeInstanceOf(ToolGuardError);
    expect(denied.code).toBe("TOOL_NOT_AUTHORIZED");
  });

  it("didisVerifier: a 429, a 500 or a wrong echo from the service is GUARD_UNAVAILABLE", async () => {
    const { root, agent } = await chainOf();
    const answers = [
      (res: import("node:http").ServerResponse) => {
        res.writeHead(429, { "retry-after": "5" });
        res.end();
      },
      (res: import("node:http").ServerResponse) => {
        res.writeHead(500);
        res.end();
      },
      (res: import("node:http").ServerResponse) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            agent: "did:key:z6MkSomeoneElse",
            tool: "weather:forecast",
            root: root.did,
            decision: "ALLOW",
            reason: "ok",
          }),
        );
      },
    ];
    let current = answers[0]!;
    const server = createServer((_req, res) => current(res));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const client = new DidisClient({
        baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      });
      for (const answer of answers) {
        current = answer;
        const guard = createToolGuard({
          verifier: didisVerifier(client),
          agent: agent.did,
          root: root.did,
        });
        const err = await guard
          .check({ tool: "forecast", capability: "weather:forecast" })
          .catch((e) => e);
        expect(err).toBeInstanceOf(ToolGuardError);
        expect(err.code).toBe("GUARD_UNAVAILABLE");
      }
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
