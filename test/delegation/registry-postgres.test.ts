/**
 * What is particular to the PostgreSQL registry, on a real scratch server
 * (test/helpers/postgres.ts): the versioned migrations, its options, and failing closed
 * when the database is down, then working again once it is back. The shared contract
 * runs in registry.test.ts; real `serve` processes on it in registry-processes.test.ts
 * and serve-postgres.test.ts.
 */
import pg from "pg";
import { afterAll, expect, it } from "vitest";
import { openPostgresRegistry } from "../../src/guard/registry/postgres.js";
import {
  POSTGRES_MIGRATIONS,
  POSTGRES_SCHEMA_VERSION,
} from "../../src/guard/registry/postgres-schema.js";
import { describePostgres, sharedPostgres, stopSharedPostgres } from "../helpers/postgres.js";
import { chainOf } from "./helpers.js";

afterAll(stopSharedPostgres);

async function sql(url: string, text: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows as Record<string, unknown>[];
  } finally {
    await client.end();
  }
}

describePostgres("PostgreSQL registry: schema migrations", () => {
  it("a new database gets the schema once, recorded by version; reopening changes nothing", async () => {
    const url = await (await sharedPostgres()).createDatabase();
    const first = await openPostgresRegistry(url);
    await first.revoke("j1");
    await first.close();
    const second = await openPostgresRegistry(url);
    expect(await second.isRevoked("j1")).toBe(true);
    await second.close();
    const rows = await sql(url, "SELECT version, name FROM airlock_schema_migrations");
    expect(rows).toEqual([{ version: POSTGRES_SCHEMA_VERSION, name: "chains and revocations" }]);
  });

  it("instances starting at once on an empty database apply each migration exactly once", {
    timeout: 60_000,
  }, async () => {
    const url = await (await sharedPostgres()).createDatabase();
    const registries = await Promise.all(
      Array.from({ length: 6 }, () => openPostgresRegistry(url, { poolSize: 1 })),
    );
    await Promise.all(registries.map((r) => r.close()));
    const rows = await sql(url, "SELECT count(*)::int AS n FROM airlock_schema_migrations");
    expect(rows[0]!.n).toBe(POSTGRES_MIGRATIONS.length);
  });

  it("a schema newer than this release is refused (REGISTRY_INVALID), not used", async () => {
    const url = await (await sharedPostgres()).createDatabase();
    await (await openPostgresRegistry(url)).close();
    await sql(url, "INSERT INTO airlock_schema_migrations (version, name) VALUES (999, 'future')");
    await expect(openPostgresRegistry(url)).rejects.toMatchObject({
      code: "REGISTRY_INVALID",
      message: expect.stringContaining("version 999"),
    });
  });

  it("with migrate: false, an unmigrated database is refused (REGISTRY_MISCONFIGURED) and left untouched", async () => {
    const url = await (await sharedPostgres()).createDatabase();
    await expect(openPostgresRegistry(url, { migrate: false })).rejects.toMatchObject({
      code: "REGISTRY_MISCONFIGURED",
    });
    const tables = await sql(url, "SELECT to_regclass('airlock_chains') AS t");
    expect(tables[0]!.t).toBeNull();
    await (await openPostgresRegistry(url)).close();
    await (await openPostgresRegistry(url, { migrate: false })).close();
  });
});

describePostgres("PostgreSQL registry: options and connections", () => {
  it("refuses bad options with REGISTRY_MISCONFIGURED before connecting", async () => {
    const bad: [unknown, unknown][] = [
      ["mysql://db/x", undefined],
      ["postgres://[", undefined],
      [{ host: "db", colour: "blue" }, undefined],
      [{ port: 0 }, undefined],
      [{ ssl: "yes" }, undefined],
      ["postgres://db/x", { poolSize: 0 }],
      ["postgres://db/x", { connectTimeoutMs: 5 }],
      ["postgres://db/x", { queryTimeoutMs: 1.5 }],
      ["postgres://db/x", { migrate: "no" }],
    ];
    for (const [connection, options] of bad) {
      await expect(
        openPostgresRegistry(connection as string, options as undefined),
      ).rejects.toMatchObject({ code: "REGISTRY_MISCONFIGURED" });
    }
  });

  it("a database that does not exist is REGISTRY_MISCONFIGURED, a port nothing listens on REGISTRY_UNAVAILABLE; neither message shows the password", async () => {
    const server = await sharedPostgres();
    const missing = server.url("no_such_database").replace("airlock@", "airlock:s3cret-pw@");
    const err = await openPostgresRegistry(missing).catch((e: Error) => e);
    expect(err).toMatchObject({ code: "REGISTRY_MISCONFIGURED" });
    expect((err as Error).message).not.toContain("s3cret-pw");
    const closed = await openPostgresRegistry("postgres://airlock:s3cret-pw@127.0.0.1:9/x", {
      connectTimeoutMs: 2000,
    }).catch((e: Error) => e);
    expect(closed).toMatchObject({ code: "REGISTRY_UNAVAILABLE" });
    expect((closed as Error).message).not.toContain("s3cret-pw");
  });

  it("connection fields work like a URL", async () => {
    const server = await sharedPostgres();
    const url = new URL(await server.createDatabase());
    const registry = await openPostgresRegistry({
      host: url.hostname,
      port: Number(url.port),
      user: "airlock",
      database: url.pathname.slice(1),
    });
    await registry.revoke("fields");
    expect(await registry.isRevoked("fields")).toBe(true);
    await registry.close();
  });
});

describePostgres("PostgreSQL registry: the database goes away and comes back", () => {
  it("every operation fails with REGISTRY_UNAVAILABLE while it is down, and works again once it is up, on the same registry", {
    timeout: 120_000,
  }, async () => {
    const server = await sharedPostgres();
    const url = await server.createDatabase();
    const registry = await openPostgresRegistry(url, { connectTimeoutMs: 2000 });
    const a = await chainOf();
    await registry.register(a.chain);
    await registry.revoke("before");
    await server.stop();
    try {
      const b = await chainOf();
      const attempts = [
        registry.register(b.chain),
        registry.chainsFor(a.agent.did),
        registry.list(),
        registry.unregister("x"),
        registry.revoke("during"),
        registry.isRevoked("before"),
      ];
      for (const attempt of attempts) {
        await expect(attempt).rejects.toMatchObject({ code: "REGISTRY_UNAVAILABLE" });
      }
    } finally {
      await server.start();
    }
    expect(await registry.isRevoked("before")).toBe(true);
    expect(await registry.isRevoked("during")).toBe(false);
    expect((await registry.chainsFor(a.agent.did)).map((r) => r.chain)).toEqual([a.chain]);
    const c = await chainOf();
    await registry.register(c.chain);
    expect(await registry.list()).toHaveLength(2);
    await registry.close();
    await expect(registry.isRevoked("before")).rejects.toMatchObject({ code: "REGISTRY_IO" });
  });
});
