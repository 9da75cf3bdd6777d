/**
 * Several real `airlock delegate serve` processes on one real PostgreSQL database, as
 * behind a load balancer: they give the same answers, a revocation made with the CLI or
 * through any handle on the database is honoured by every instance on its next request,
 * and when the database stops under load every affected answer fails closed (503 from
 * the service, GUARD_UNAVAILABLE in a real tool guard), `/readyz` says so while `/healthz`
 * stays 200, and service resumes once the database is back. The registration and
 * revocation races on PostgreSQL run in registry-processes.test.ts.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, expect, it } from "vitest";
import { generateDelegationKey } from "../../src/guard/did/keys.js";
import { createDidisGuard } from "../../src/guard/didis.js";
import { DidisClient } from "../../src/guard/didis-client.js";
import { openPostgresRegistry } from "../../src/guard/registry/postgres.js";
import { describePostgres, sharedPostgres, stopSharedPostgres } from "../helpers/postgres.js";
import { runAirlock, type ServeProcess, startServe, stopAll } from "../helpers/serve-process.js";
import { oneLinkChains } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "airlock-serve-postgres-"));
afterEach(stopAll);
afterAll(async () => {
  await stopSharedPostgres();
  rmSync(dir, { recursive: true, force: true });
});

/** A registration: 200 when registered, else the status and what the body says. */
async function register(server: ServeProcess, chain: string[], root: string): Promise<string> {
  const res = await fetch(`${server.url}/v1/agents/verify-delegation`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ chain, trustedRoots: [root], register: true }),
  });
  const body = (await res.json()) as { registered?: boolean; code?: string };
  return res.status === 200 && body.registered ? "registered" : `${res.status} ${body.code}`;
}

/** The decision, or `HTTP <status> <problem type>` for an error answer. */
async function decision(server: ServeProcess, agent: string, root: string): Promise<string> {
  const q = new URLSearchParams({ agent, tool: "weather:forecast", root });
  const res = await fetch(`${server.url}/v1/agents/verify-tool?${q}`);
  const body = (await res.json()) as { decision?: string; type?: string };
  return res.ok ? body.decision! : `HTTP ${res.status} ${body.type?.split("/").pop()}`;
}

const status = async (server: ServeProcess, path: string) =>
  (await fetch(server.url + path)).status;

describePostgres("delegate serve: several instances on one PostgreSQL database", () => {
  it("two instances give the same answers, and a revocation by the CLI or by another handle is honoured by both on the next request", {
    timeout: 120_000,
  }, async () => {
    const url = await (await sharedPostgres()).createDatabase();
    const root = generateDelegationKey();
    const chains = await oneLinkChains(root, 6);
    const [a, b] = [await startServe(url), await startServe(url)];
    expect([await status(a, "/readyz"), await status(b, "/readyz")]).toEqual([200, 200]);
    // Registered through one instance, seen by the other.
    for (const [i, c] of chains.entries()) {
      expect(await register(i % 2 ? a : b, c.chain, root.did)).toBe("registered");
    }
    for (const c of chains) {
      expect([await decision(a, c.agent, root.did), await decision(b, c.agent, root.did)]).toEqual([
        "ALLOW",
        "ALLOW",
      ]);
    }
    const byCli = await runAirlock(["delegate", "revoke", chains[0]!.jti, "--registry", url]);
    expect(byCli.code).toBe(0);
    const handle = await openPostgresRegistry(url);
    await handle.revoke(chains[1]!.jti);
    await handle.close();
    for (const server of [a, b]) {
      expect(await decision(server, chains[0]!.agent, root.did)).toBe("DENY");
      expect(await decision(server, chains[1]!.agent, root.did)).toBe("DENY");
      expect(await decision(server, chains[2]!.agent, root.did)).toBe("ALLOW");
    }
    // verify --registry against the database honours it too.
    const file = join(dir, "revoked.chain.json");
    writeFileSync(file, JSON.stringify({ chain: chains[0]!.chain }));
    const args = ["delegate", "verify", file, "--root", root.did, "--registry", url];
    const verified = await runAirlock([...args, "--output", "json"]);
    expect(verified.code).toBe(1);
    expect(JSON.parse(verified.stdout).code).toBe("DELEGATION_REVOKED");
  });

  it("the database stopped under load: every answer is ALLOW or 503 (GUARD_UNAVAILABLE in the guard), never DENY or 500; /readyz 503, /healthz 200, revoke exits 2; all resumes when it is back", {
    timeout: 240_000,
  }, async () => {
    const server = await sharedPostgres();
    const url = await server.createDatabase();
    const root = generateDelegationKey();
    const chains = await oneLinkChains(root, 8);
    const [a, b] = [await startServe(url), await startServe(url)];
    for (const c of chains) expect(await register(a, c.chain, root.did)).toBe("registered");
    const guards = [a, b].map(
      (s) => (agent: string) =>
        createDidisGuard({
          client: new DidisClient({ baseUrl: s.url, timeoutMs: 15_000 }),
          agent,
          root: root.did,
          allowCacheSeconds: 0,
        }),
    );
    const answers: string[] = [];
    const guarded: string[] = [];
    let load = true;
    let sent = 0;
    // Registrations run through the stop too: each either is stored or says it is not.
    const fresh = await oneLinkChains(root, 400);
    const registrations: { id: string; answer: string }[] = [];
    const registering = (async () => {
      for (const c of fresh) {
        if (!load) break;
        registrations.push({ id: c.chain.at(-1)!, answer: await register(a, c.chain, root.did) });
      }
    })();
    const workers = Array.from({ length: 6 }, async (_, w) => {
      while (load && sent < 4000) {
        const c = chains[sent++ % chains.length]!;
        const instance = w % 2 ? a : b;
        if (w < 4) answers.push(await decision(instance, c.agent, root.did));
        else {
          const guard = guards[w % 2]!(c.agent);
          guarded.push(
            await guard.check({ tool: "weather_forecast", capability: "weather:forecast" }).then(
              () => "ALLOW",
              (err: { code?: string }) => err.code ?? "?",
            ),
          );
        }
      }
    });
    while (answers.length < 40) await new Promise((r) => setTimeout(r, 20));
    await server.stop();
    const atStop = answers.length;
    try {
      while (answers.length < atStop + 40) await new Promise((r) => setTimeout(r, 20));
      expect([await status(a, "/healthz"), await status(b, "/healthz")]).toEqual([200, 200]);
      expect([await status(a, "/readyz"), await status(b, "/readyz")]).toEqual([503, 503]);
      // The revocation check cannot be made: the chain is not shown valid, and not stored.
      expect(await register(b, (await oneLinkChains(root, 1))[0]!.chain, root.did)).toBe(
        "200 DELEGATION_REVOCATION_UNAVAILABLE",
      );
      const revoke = await runAirlock([
        "delegate",
        "revoke",
        chains[0]!.jti,
        "--registry",
        url,
        "--output",
        "json",
      ]);
      expect(revoke.code).toBe(2);
      expect(JSON.parse(revoke.stdout).error.code).toBe("REGISTRY_UNAVAILABLE");
      expect(revoke.stdout + revoke.stderr).not.toMatch(/password/i);
    } finally {
      load = false;
      await Promise.all([...workers, registering]);
      await server.start();
    }
    const allowed = new Set(["ALLOW", "HTTP 503 registry-unavailable"]);
    expect(answers.filter((x) => !allowed.has(x))).toEqual([]);
    expect(answers).toContain("ALLOW");
    expect(answers.slice(atStop)).toContain("HTTP 503 registry-unavailable");
    expect(guarded.filter((x) => x !== "ALLOW" && x !== "GUARD_UNAVAILABLE")).toEqual([]);
    expect(guarded).toContain("GUARD_UNAVAILABLE");
    const registrationAnswers = new Set(registrations.map((r) => r.answer));
    for (const answer of registrationAnswers) {
      expect(["registered", "200 DELEGATION_REVOCATION_UNAVAILABLE", "503 undefined"]).toContain(
        answer,
      );
    }
    // Back: both instances become ready again and answer as before, without a restart.
    for (const instance of [a, b]) {
      for (let i = 0; i < 120 && (await status(instance, "/readyz")) !== 200; i++) {
        await new Promise((r) => setTimeout(r, 250));
      }
      expect(await status(instance, "/readyz")).toBe(200);
      for (const c of chains) expect(await decision(instance, c.agent, root.did)).toBe("ALLOW");
    }
    expect(await register(b, (await oneLinkChains(root, 1))[0]!.chain, root.did)).toBe(
      "registered",
    );
    // Every chain the service said it registered is stored.
    const handle = await openPostgresRegistry(url);
    const stored = new Set((await handle.list()).map((r) => r.chain.at(-1)));
    await handle.close();
    const confirmed = registrations.filter((r) => r.answer === "registered");
    expect(confirmed.length).toBeGreaterThan(0);
    for (const r of confirmed) expect(stored.has(r.id)).toBe(true);
    expect(a.alive() && b.alive()).toBe(true);
  });
});
