/**
 * The PostgreSQL registry's schema, as numbered migrations, and the one function that
 * brings a database up to date. The version applied is recorded in
 * `airlock_schema_migrations` (one row per migration), so a start only reads it, a
 * database is never changed twice, several instances starting at once apply each
 * migration once (under a transaction-scoped advisory lock), and a database that a newer
 * release migrated is refused rather than used with tables this release does not know.
 * Migrations are only ever appended: a shipped one is never edited. docs/deployment.md
 * lists them.
 *
 * @module
 */
import { RegistryError } from "../delegation/errors.js";

/** One step of the schema. */
interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: readonly string[];
}

/** Every migration, in order. Append only. @internal */
export const POSTGRES_MIGRATIONS: readonly Migration[] = Object.freeze([
  {
    version: 1,
    name: "chains and revocations",
    sql: [
      `CREATE TABLE airlock_chains (
        id text PRIMARY KEY,
        agent text NOT NULL,
        root text NOT NULL,
        chain text[] NOT NULL,
        registered_at bigint NOT NULL,
        not_after bigint NOT NULL
      )`,
      "CREATE INDEX airlock_chains_agent ON airlock_chains (agent, registered_at, id)",
      "CREATE INDEX airlock_chains_not_after ON airlock_chains (not_after)",
      `CREATE TABLE airlock_revoked (
        jti text PRIMARY KEY,
        revoked_at bigint NOT NULL
      )`,
    ],
  },
]);

/** The schema version this release works with. @internal */
export const POSTGRES_SCHEMA_VERSION = POSTGRES_MIGRATIONS[POSTGRES_MIGRATIONS.length - 1]!.version;

/**
 * The advisory-lock class of the registry's locks (`pg_advisory_xact_lock(class, key)`),
 * "Arlk" in ASCII: one class, so another application's advisory locks cannot meet ours
 * unless it picks the same number. Keys: 0 the migrations, 1 the total chain count; a
 * per-agent lock uses {@link AGENT_LOCK_CLASS}.
 *
 * @internal
 */
export const LOCK_CLASS = 0x41726c6b;
/** The advisory-lock class of per-agent locks (key: a hash of the agent DID). @internal */
export const AGENT_LOCK_CLASS = LOCK_CLASS + 1;
/** Key of the migration lock. @internal */
export const MIGRATION_LOCK = 0;
/** Key of the lock over the total chain count. @internal */
export const TOTAL_LOCK = 1;

/** What a migration needs of a connection: one at a time, in a transaction. */
export interface SchemaConnection {
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
}

async function currentVersion(db: SchemaConnection): Promise<number | undefined> {
  const table = await db.query("SELECT to_regclass('airlock_schema_migrations') AS t");
  if (table.rows[0]?.t === null) return undefined;
  const max = await db.query("SELECT max(version) AS v FROM airlock_schema_migrations");
  const v = max.rows[0]?.v;
  return v === null || v === undefined ? 0 : Number(v);
}

function tooNew(version: number): RegistryError {
  return new RegistryError(
    "REGISTRY_INVALID",
    `the database schema is at version ${version}, newer than this release of agent-airlock knows (${POSTGRES_SCHEMA_VERSION}): upgrade agent-airlock`,
  );
}

/**
 * Bring the schema to {@link POSTGRES_SCHEMA_VERSION} (or, with `apply` false, check that
 * it is there). `db` must be one connection, not a pool: the transaction and its lock
 * live on it.
 *
 * @internal
 * @throws {RegistryError} `REGISTRY_INVALID` for a schema newer than this release,
 * `REGISTRY_MISCONFIGURED` when `apply` is false and the schema is behind.
 */
export async function migratePostgres(db: SchemaConnection, apply: boolean): Promise<number> {
  const seen = await currentVersion(db);
  if (seen !== undefined && seen > POSTGRES_SCHEMA_VERSION) throw tooNew(seen);
  if (seen === POSTGRES_SCHEMA_VERSION) return seen;
  if (!apply) {
    throw new RegistryError(
      "REGISTRY_MISCONFIGURED",
      `the database schema is at version ${seen ?? "none"}; this release needs ${POSTGRES_SCHEMA_VERSION}. Open the registry once with migrate (the default) as a user that may create tables`,
    );
  }
  await db.query("BEGIN");
  try {
    // Another instance may be migrating right now: wait for it, then read again.
    await db.query("SELECT pg_advisory_xact_lock($1, $2)", [LOCK_CLASS, MIGRATION_LOCK]);
    await db.query(`CREATE TABLE IF NOT EXISTS airlock_schema_migrations (
      version integer PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const now = (await currentVersion(db)) ?? 0;
    if (now > POSTGRES_SCHEMA_VERSION) throw tooNew(now);
    for (const migration of POSTGRES_MIGRATIONS) {
      if (migration.version <= now) continue;
      for (const statement of migration.sql) await db.query(statement);
      await db.query("INSERT INTO airlock_schema_migrations (version, name) VALUES ($1, $2)", [
        migration.version,
        migration.name,
      ]);
    }
    await db.query("COMMIT");
  } catch (err) {
    await db.query("ROLLBACK").catch(() => {});
    throw err;
  }
  return POSTGRES_SCHEMA_VERSION;
}
