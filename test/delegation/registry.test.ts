/**
 * The registry contract, run against every kind in test/helpers/registry-kinds.ts (add a
 * kind there to hold it to the same rules), then what is particular to the file and
 * SQLite registries. The same contract across real processes is in
 * registry-processes.test.ts.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { RegistryError } from "../../src/guard/delegation/errors.js";
import { generateDelegationKey } from "../../src/guard/did/keys.js";
import { openFileRegistry } from "../../src/guard/registry/file.js";
import type { RegistryLimits } from "../../src/guard/registry/registry.js";
import { openSqliteRegistry } from "../../src/guard/registry/sqlite.js";
import { endedPid, idleProcess } from "../helpers/process.js";
import {
  closeRegistryKinds,
  REGISTRY_KINDS,
  SHARED_REGISTRY_KINDS,
} from "../helpers/registry-kinds.js";
import { chainOf, NOW, oneLinkChains } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "airlock-registry-"));
afterAll(async () => {
  await closeRegistryKinds();
  rmSync(dir, { recursive: true, force: true });
});

describe.each(REGISTRY_KINDS)("$name registry: the contract", (kind) => {
  const open = async (limits?: RegistryLimits) =>
    (await kind.fresh(dir)).open({ maxChainsPerAgent: 2, ...limits });

  it("registers idempotently, lists per agent, unregisters", async () => {
    const registry = await open();
    const { root, agent, chain, links } = await chainOf();
    const record = await registry.register(chain);
    expect(record).toMatchObject({ agent: agent.did, root: root.did, id: links[2]!.digest, chain });
    expect(await registry.register(chain)).toMatchObject({ id: record.id });
    expect(await registry.chainsFor(agent.did)).toHaveLength(1);
    expect(await registry.chainsFor("did:key:z6Mknobody")).toEqual([]);
    expect(await registry.list()).toHaveLength(1);
    expect(await registry.unregister(record.id)).toBe(true);
    expect(await registry.unregister(record.id)).toBe(false);
    expect(await registry.chainsFor(agent.did)).toEqual([]);
    await registry.close();
  });

  it("returns copies: mutating a result does not change the registry", async () => {
    const registry = await open();
    const { agent, chain } = await chainOf();
    const input = [...chain];
    await registry.register(input);
    input.push("x");
    const [got] = await registry.chainsFor(agent.did);
    got!.chain.length = 0;
    expect((await registry.chainsFor(agent.did))[0]!.chain).toEqual(chain);
    await registry.close();
  });

  it("revokes by jti", async () => {
    const registry = await open();
    expect(await registry.isRevoked("j1")).toBe(false);
    await registry.revoke("j1");
    await registry.revoke("j1");
    expect(await registry.isRevoked("j1")).toBe(true);
    await expect(registry.revoke("")).rejects.toBeInstanceOf(RegistryError);
    await registry.close();
  });

  it("caps chains per agent with REGISTRY_FULL", async () => {
    const registry = await open();
    const a = await chainOf();
    const { issueDelegation } = await import("../../src/guard/delegation/issue.js");
    const extra = async () =>
      (
        await issueDelegation({
          issuer: a.deputy,
          audience: a.agent.did,
          capabilities: ["weather:forecast"],
          ttlSeconds: 60,
          parent: a.chain.slice(0, 2),
        })
      ).chain;
    await registry.register(await extra());
    await registry.register(await extra());
    await expect(registry.register(await extra())).rejects.toMatchObject({ code: "REGISTRY_FULL" });
    await registry.close();
  });

  it("drops expired chains before refusing with REGISTRY_FULL, per agent and in total", async () => {
    let nowMs = NOW * 1000;
    const registry = await open({ maxChains: 3, clock: () => nowMs });
    const a = await chainOf();
    const { issueDelegation } = await import("../../src/guard/delegation/issue.js");
    const link = async (ttl: number) =>
      (
        await issueDelegation({
          issuer: a.deputy,
          audience: a.agent.did,
          capabilities: ["weather:forecast"],
          notBefore: NOW - 10,
          expires: NOW + ttl,
          parent: a.chain.slice(0, 2),
          now: NOW,
        })
      ).chain;
    const short = await registry.register(await link(60));
    await registry.register(await link(600));
    nowMs = (NOW + 120) * 1000;
    // The agent is full, but one of its chains has expired: it makes room.
    await registry.register(await link(700));
    const ids = (await registry.chainsFor(a.agent.did)).map((r) => r.id);
    expect(ids).toHaveLength(2);
    expect(ids).not.toContain(short.id);
    await expect(registry.register(await link(800))).rejects.toMatchObject({
      code: "REGISTRY_FULL",
    });
    // In total: a third agent's chain fits, a fourth does not until something expires.
    const b = await chainOf();
    await registry.register(b.chain);
    const c = await chainOf();
    await expect(registry.register(c.chain)).rejects.toMatchObject({ code: "REGISTRY_FULL" });
    nowMs = (NOW + 1300) * 1000; // b's chain (notAfter NOW + 1200) has expired
    await registry.register(c.chain);
    await registry.close();
  });

  it("refuses things that are not chains", async () => {
    const registry = await open();
    await expect(registry.register([] as string[])).rejects.toMatchObject({
      code: "DELEGATION_EMPTY",
    });
    await expect(registry.register(["nope"])).rejects.toMatchObject({
      code: "DELEGATION_MALFORMED",
    });
    await expect(registry.register("a.b.c" as never)).rejects.toMatchObject({
      code: "DELEGATION_MALFORMED",
    });
    await expect(registry.register(new Array(65).fill("a.b.c"))).rejects.toMatchObject({
      code: "DELEGATION_TOO_LONG",
    });
    await registry.close();
  });
});

describe.each(SHARED_REGISTRY_KINDS)("$name registry: two handles on one store", (kind) => {
  it("a revocation made through one handle is seen by the other's next read and kept by its next write", async () => {
    const store = await kind.fresh(dir);
    const server = await store.open();
    const { agent, chain, links } = await chainOf();
    await server.register(chain);
    const cli = await store.open();
    await cli.revoke(links[1]!.claims.jti);
    await cli.close();
    expect(await server.isRevoked(links[1]!.claims.jti)).toBe(true);
    // The server's next write keeps the revocation it did not make itself.
    const other = await chainOf();
    await server.register(other.chain);
    await server.close();
    const fresh = await store.open();
    expect(await fresh.isRevoked(links[1]!.claims.jti)).toBe(true);
    expect(await fresh.list()).toHaveLength(2);
    expect((await fresh.chainsFor(agent.did))[0]!.chain).toEqual(chain);
    await fresh.close();
  });

  it("concurrent registrations and revocations through two handles lose nothing, and the per-agent limit holds exactly", async () => {
    const store = await kind.fresh(dir);
    const limits = { maxChainsPerAgent: 4 };
    const [a, b] = [await store.open(limits), await store.open(limits)];
    const root = generateDelegationKey();
    const spread = await oneLinkChains(root, 24);
    const crowded = await oneLinkChains(root, 10, generateDelegationKey().did);
    const outcome = (p: Promise<unknown>) =>
      p.then(
        () => "stored",
        (err: RegistryError) => err.code,
      );
    const results = await Promise.all([
      ...spread.map((c, i) => outcome((i % 2 ? a : b).register(c.chain))),
      ...crowded.map((c, i) => outcome((i % 2 ? b : a).register(c.chain))),
      ...spread.slice(0, 6).map((c, i) => outcome((i % 2 ? a : b).revoke(c.jti))),
    ]);
    await a.close();
    await b.close();
    const fresh = await store.open(limits);
    expect(results.slice(0, 24)).toEqual(Array(24).fill("stored"));
    expect((await fresh.list()).length).toBe(24 + 4);
    // Exactly as many chains of the crowded agent were confirmed as are kept: 4.
    const crowdedResults = results.slice(24, 34);
    expect(crowdedResults.filter((r) => r === "stored")).toHaveLength(4);
    expect(crowdedResults.filter((r) => r === "REGISTRY_FULL")).toHaveLength(6);
    expect(await fresh.chainsFor(crowded[0]!.agent)).toHaveLength(4);
    for (const c of spread.slice(0, 6)) expect(await fresh.isRevoked(c.jti)).toBe(true);
    await fresh.close();
  });
});

describe("file registry persistence", () => {
  it("survives a reopen, writes 0600 atomically with a versioned format", async () => {
    const path = join(dir, "persist.json");
    const first = await openFileRegistry(path);
    const { agent, chain } = await chainOf();
    await first.register(chain);
    await first.revoke("gone");
    await first.close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const data = JSON.parse(readFileSync(path, "utf8"));
    expect(data.version).toBe(1);
    expect(data.revoked).toEqual(["gone"]);
    const second = await openFileRegistry(path);
    expect((await second.chainsFor(agent.did))[0]!.chain).toEqual(chain);
    expect(await second.isRevoked("gone")).toBe(true);
  });

  it("refuses a file that is not a registry instead of starting empty", async () => {
    for (const [i, body] of [
      "not json",
      "[]",
      '{"version":2,"chains":[],"revoked":[]}',
      '{"version":1,"chains":[{"chain":["x"],"registeredAt":1}],"revoked":[]}',
      '{"version":1}',
    ].entries()) {
      const path = join(dir, `bad-${i}.json`);
      writeFileSync(path, body);
      await expect(openFileRegistry(path)).rejects.toMatchObject({ code: "REGISTRY_INVALID" });
    }
  });

  it("a registry in a directory that does not exist fails with REGISTRY_IO", async () => {
    await expect(openFileRegistry(join(dir, "no", "such", "dir", "r.json"))).rejects.toMatchObject({
      code: "REGISTRY_IO",
    });
  });

  it("a failed write does not leave the chain registered in memory", async () => {
    const { mkdirSync } = await import("node:fs");
    mkdirSync(join(dir, "vanishing"));
    const registry = await openFileRegistry(join(dir, "vanishing", "r.json"));
    // The directory disappears: the atomic write cannot even create its temporary file.
    rmSync(join(dir, "vanishing"), { recursive: true });
    const { chain, agent } = await chainOf();
    await expect(registry.register(chain)).rejects.toMatchObject({ code: "REGISTRY_IO" });
    expect(await registry.chainsFor(agent.did)).toEqual([]);
  });

  it("a path that turns into something unreadable fails closed with REGISTRY_IO", async () => {
    const { mkdirSync } = await import("node:fs");
    const path = join(dir, "blocked.json");
    const registry = await openFileRegistry(path);
    rmSync(path);
    mkdirSync(path);
    await expect(registry.chainsFor("did:key:z6Mkx")).rejects.toMatchObject({
      code: "REGISTRY_IO",
    });
    await expect(registry.isRevoked("j")).rejects.toMatchObject({ code: "REGISTRY_IO" });
  });

  it("a file corrupted while open makes reads fail closed, not empty", async () => {
    const path = join(dir, "corrupted.json");
    const registry = await openFileRegistry(path);
    await registry.revoke("j1");
    writeFileSync(path, "{ not json");
    await expect(registry.isRevoked("j1")).rejects.toMatchObject({ code: "REGISTRY_INVALID" });
    // And keeps failing: a half-loaded state is never used.
    await expect(registry.isRevoked("j1")).rejects.toMatchObject({ code: "REGISTRY_INVALID" });
    // A chain entry that is not a chain fails the reload after the old state was cleared.
    writeFileSync(
      path,
      JSON.stringify({ version: 1, chains: [{ chain: ["x"], registeredAt: 1 }], revoked: [] }),
    );
    await expect(registry.isRevoked("j1")).rejects.toMatchObject({ code: "REGISTRY_INVALID" });
    await expect(registry.isRevoked("j1")).rejects.toMatchObject({ code: "REGISTRY_INVALID" });
    // Once the file is valid again, it is what counts.
    writeFileSync(path, JSON.stringify({ version: 1, chains: [], revoked: ["j1"] }));
    expect(await registry.isRevoked("j1")).toBe(true);
  });

  it("concurrent operations on one registry do not lose each other", async () => {
    const path = join(dir, "concurrent.json");
    const registry = await openFileRegistry(path);
    const chains = await Promise.all([chainOf(), chainOf(), chainOf(), chainOf()]);
    await Promise.all([
      ...chains.map((c) => registry.register(c.chain)),
      registry.revoke("a"),
      registry.revoke("b"),
    ]);
    const reopened = await openFileRegistry(path);
    expect(await reopened.list()).toHaveLength(4);
    expect(await reopened.isRevoked("a")).toBe(true);
    expect(await reopened.isRevoked("b")).toBe(true);
  });
});

describe("file registry: the shared atomic write (src/lib/atomic-write.ts)", () => {
  it("writes through a symbolic link: the link stays a link and its target is the registry", async () => {
    const { lstatSync, mkdirSync, symlinkSync } = await import("node:fs");
    mkdirSync(join(dir, "linked"));
    const target = join(dir, "linked", "real.json");
    const link = join(dir, "linked", "link.json");
    writeFileSync(target, '{"version":1,"chains":[],"revoked":[]}\n', { mode: 0o600 });
    symlinkSync(target, link);
    const registry = await openFileRegistry(link);
    await registry.revoke("j1");
    await registry.close();
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(JSON.parse(readFileSync(target, "utf8")).revoked).toEqual(["j1"]);
  });

  it("a link to a missing file is refused with REGISTRY_IO and nothing is created", async () => {
    const { mkdirSync, readdirSync, symlinkSync } = await import("node:fs");
    mkdirSync(join(dir, "dangling"));
    symlinkSync(join(dir, "dangling", "nowhere.json"), join(dir, "dangling", "r.json"));
    await expect(openFileRegistry(join(dir, "dangling", "r.json"))).rejects.toMatchObject({
      code: "REGISTRY_IO",
      message: expect.stringContaining("missing file"),
    });
    expect(readdirSync(join(dir, "dangling"))).toEqual(["r.json"]);
  });

  it("keeps the mode its owner gave the file (a new one is 0600)", async () => {
    const { chmodSync } = await import("node:fs");
    const path = join(dir, "mode.json");
    const registry = await openFileRegistry(path);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    chmodSync(path, 0o640);
    await registry.revoke("j1");
    await registry.close();
    expect(statSync(path).mode & 0o777).toBe(0o640);
  });

  it("removes the temporary file a killed writer left, at the next change; a live writer's stays", async () => {
    const { mkdirSync, readdirSync } = await import("node:fs");
    mkdirSync(join(dir, "debris"));
    const path = join(dir, "debris", "r.json");
    const registry = await openFileRegistry(path);
    const started: ChildProcess[] = [];
    const live = idleProcess(started);
    try {
      const left = `r.json.airlock-${await endedPid()}-0123456789ab.tmp`;
      const running = `r.json.airlock-${live.pid}-0123456789ab.tmp`;
      writeFileSync(join(dir, "debris", left), "{");
      writeFileSync(join(dir, "debris", running), "{");
      await registry.revoke("j1");
      expect(readdirSync(join(dir, "debris")).sort()).toEqual([running, "r.json"].sort());
    } finally {
      live.kill("SIGKILL");
      await registry.close();
    }
  });
});

describe("sqlite registry persistence", () => {
  it("survives a reopen", async () => {
    const path = join(dir, "persist.db");
    const first = await openSqliteRegistry(path);
    const { agent, chain } = await chainOf();
    await first.register(chain);
    await first.revoke("gone");
    await first.close();
    const second = await openSqliteRegistry(path);
    expect((await second.chainsFor(agent.did))[0]!.chain).toEqual(chain);
    expect(await second.isRevoked("gone")).toBe(true);
    await second.close();
  });

  it("a database that cannot be opened fails with REGISTRY_IO", async () => {
    await expect(openSqliteRegistry(join(dir, "no", "such", "x.db"))).rejects.toMatchObject({
      code: "REGISTRY_IO",
    });
  });
});
