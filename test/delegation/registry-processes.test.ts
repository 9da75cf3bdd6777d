/**
 * The registry contract across real OS processes, for every kind several processes may
 * share (test/helpers/registry-kinds.ts): real `airlock delegate serve` processes and
 * real `airlock delegate revoke` runs on one store, driven over HTTP as in the hardening
 * campaign (shared/repro/hostile/delegate/serve-tests.mjs, modes revokerace and
 * twoservers). docs/threat-model.md cites these tests for what each registry guarantees
 * under concurrent writers.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { generateDelegationKey } from "../../src/guard/did/keys.js";
import { closeRegistryKinds, SHARED_REGISTRY_KINDS } from "../helpers/registry-kinds.js";
import { runAirlock, type ServeProcess, startServe, stopAll } from "../helpers/serve-process.js";
import { oneLinkChains } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "airlock-registry-processes-"));
afterAll(async () => {
  await closeRegistryKinds();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(stopAll);

interface Answer {
  status: number;
  body: { registered?: boolean; id?: string; decision?: string };
}

async function post(server: ServeProcess, path: string, body: unknown): Promise<Answer> {
  const res = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Answer["body"] };
}

const register = (server: ServeProcess, chain: string[], root: string) =>
  post(server, "/v1/agents/verify-delegation", { chain, trustedRoots: [root], register: true });

async function decision(server: ServeProcess, agent: string, root: string): Promise<string> {
  const q = new URLSearchParams({ agent, tool: "weather:forecast", root });
  const res = await fetch(`${server.url}/v1/agents/verify-tool?${q}`);
  return ((await res.json()) as Answer["body"]).decision ?? `HTTP ${res.status}`;
}

/** Run `fn` on every item, `width` at a time. */
async function pool<T, R>(items: readonly T[], width: number, fn: (item: T) => Promise<R>) {
  const results: R[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await fn(items[i]!);
      }
    }),
  );
  return results;
}

describe.each(SHARED_REGISTRY_KINDS)("$name registry shared by real processes", (kind) => {
  it("no revocation is lost: `delegate revoke` runs while two serve processes register chains, and both running servers and a restarted one deny every revoked chain", {
    timeout: 180_000,
  }, async () => {
    const store = await kind.fresh(dir);
    const root = generateDelegationKey();
    const victims = await oneLinkChains(root, 8);
    const others = await oneLinkChains(root, 600);
    const servers = [await startServe(store.target), await startServe(store.target)];
    for (const [i, v] of victims.entries()) {
      expect((await register(servers[i % 2]!, v.chain, root.did)).status).toBe(200);
    }
    for (const v of victims) {
      for (const server of servers) expect(await decision(server, v.agent, root.did)).toBe("ALLOW");
    }
    // Registrations through both processes keep the store written while each revoke runs.
    let revoking = true;
    let k = 0;
    const during: Answer[] = [];
    const writers = Promise.all(
      Array.from({ length: 8 }, async (_, w) => {
        while (revoking && k < others.length) {
          during.push(await register(servers[w % 2]!, others[k++]!.chain, root.did));
        }
      }),
    );
    const exits: (number | null)[] = [];
    for (const v of victims) {
      exits.push(
        (await runAirlock(["delegate", "revoke", v.jti, "--registry", store.target])).code,
      );
    }
    revoking = false;
    await writers;
    expect(exits).toEqual(Array(victims.length).fill(0));
    expect(during.length).toBeGreaterThan(0);
    expect(during.filter((r) => r.status !== 200 || r.body.registered !== true)).toEqual([]);
    for (const server of servers) {
      const running = await Promise.all(victims.map((v) => decision(server, v.agent, root.did)));
      expect(running).toEqual(Array(victims.length).fill("DENY"));
    }
    await Promise.all(servers.map((server) => server.stop()));
    const restarted = await startServe(store.target);
    const fresh = await Promise.all(victims.map((v) => decision(restarted, v.agent, root.did)));
    expect(fresh).toEqual(Array(victims.length).fill("DENY"));
    // Every registration answered `registered: true` meanwhile is stored.
    const registry = await store.open();
    const storedIds = new Set((await registry.list()).map((r) => r.id));
    await registry.close();
    expect(during.filter((r) => !storedIds.has(r.body.id!))).toEqual([]);
  });

  it("two serve processes: every `registered: true` is stored, none is 503, and the per-agent limit (64) holds exactly", {
    timeout: 180_000,
  }, async () => {
    const store = await kind.fresh(dir);
    const root = generateDelegationKey();
    const chains = await oneLinkChains(root, 150);
    const crowded = await oneLinkChains(root, 80, generateDelegationKey().did);
    const [a, b] = [await startServe(store.target), await startServe(store.target)];
    // Every chain is sent to both servers, in opposite orders.
    const [ra, rb] = await Promise.all([
      pool(chains, 12, (c) => register(a, c.chain, root.did)),
      pool([...chains].reverse(), 12, (c) => register(b, c.chain, root.did)),
    ]);
    const [ca, cb] = await Promise.all([
      pool(
        crowded.filter((_, i) => i % 2 === 0),
        8,
        (c) => register(a, c.chain, root.did),
      ),
      pool(
        crowded.filter((_, i) => i % 2 === 1),
        8,
        (c) => register(b, c.chain, root.did),
      ),
    ]);
    await a.stop();
    await b.stop();
    const statuses = [...ra, ...rb].map((r) => r.status);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect([...ra, ...rb].every((r) => r.body.registered === true)).toBe(true);
    const crowdStatuses = [...ca, ...cb].map((r) => r.status).sort();
    expect(crowdStatuses.filter((s) => s === 200)).toHaveLength(64);
    expect(crowdStatuses.filter((s) => s === 409)).toHaveLength(16);
    const registry = await store.open();
    const stored = await registry.list();
    const storedIds = new Set(stored.map((r) => r.id));
    for (const r of [...ra, ...rb]) expect(storedIds.has(r.body.id!)).toBe(true);
    expect(stored.filter((r) => r.agent !== crowded[0]!.agent)).toHaveLength(150);
    expect(await registry.chainsFor(crowded[0]!.agent)).toHaveLength(64);
    for (const r of [...ca, ...cb].filter((x) => x.status === 200)) {
      expect(storedIds.has(r.body.id!)).toBe(true);
    }
    await registry.close();
  });
});
