import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { RegistryError } from "../../src/guard/delegation/errors.js";
import { openFileRegistry } from "../../src/guard/registry/file.js";
import { createMemoryRegistry } from "../../src/guard/registry/memory.js";
import type { DelegationRegistry } from "../../src/guard/registry/registry.js";
import { openSqliteRegistry } from "../../src/guard/registry/sqlite.js";
import { chainOf, NOW } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "airlock-registry-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Limits = import("../../src/guard/registry/registry.js").RegistryLimits;
const kinds: [string, (limits?: Limits) => Promise<DelegationRegistry>][] = [
  ["memory", async (limits) => createMemoryRegistry({ maxChainsPerAgent: 2, ...limits })],
  [
    "file",
    async (limits) =>
      openFileRegistry(join(dir, `r-${Math.random()}.json`), { maxChainsPerAgent: 2, ...limits }),
  ],
  [
    "sqlite",
    async (limits) =>
      openSqliteRegistry(join(dir, `r-${Math.random()}.db`), { maxChainsPerAgent: 2, ...limits }),
  ],
];

describe.each(kinds)("%s registry", (_name, open) => {
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

  it("sees revocations another process wrote, and never overwrites them", async () => {
    const path = join(dir, "shared.json");
    const server = await openFileRegistry(path);
    const { agent, chain, links } = await chainOf();
    await server.register(chain);
    const cli = await openFileRegistry(path);
    await cli.revoke(links[1]!.claims.jti);
    await cli.close();
    expect(await server.isRevoked(links[1]!.claims.jti)).toBe(true);
    // The server's next write keeps the revocation it did not make itself.
    const other = await chainOf();
    await server.register(other.chain);
    const reread = JSON.parse(readFileSync(path, "utf8"));
    expect(reread.revoked).toEqual([links[1]!.claims.jti]);
    expect(reread.chains).toHaveLength(2);
    expect((await server.chainsFor(agent.did))[0]!.chain).toEqual(chain);
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
