/**
 * A delegation registry in PostgreSQL, via `pg` (an optional dependency, loaded only when
 * this registry is opened: importing the guard never loads it). For several
 * `airlock delegate serve` instances, on several hosts, sharing one store: every
 * operation is a statement or a transaction on the database, so a revocation committed
 * through any instance (or `airlock delegate revoke`) is what every instance reads on its
 * next question.
 *
 * The limits must hold across instances, so a registration runs in one transaction that
 * first takes a transaction-scoped advisory lock on its agent (registrations for one agent
 * queue; others do not), counts that agent's chains, and, before it inserts, takes the one
 * lock over the total count. Locks are always taken in that order, so they cannot
 * deadlock, and nothing is retried in the common case (see docs/decisions.md for why not
 * SERIALIZABLE). The schema is created by versioned migrations (`postgres-schema.ts`).
 *
 * @module
 */
import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { RegistryError } from "../delegation/errors.js";
import { isRetryable, toRegistryError } from "./postgres-errors.js";
import {
  type PostgresConnectionOptions,
  type PostgresRegistryOptions,
  type PostgresSettings,
  readPostgresSettings,
} from "./postgres-options.js";
import { AGENT_LOCK_CLASS, LOCK_CLASS, migratePostgres, TOTAL_LOCK } from "./postgres-schema.js";
import {
  assertJti,
  type DelegationRegistry,
  describeChain,
  maxPerAgent,
  maxTotal,
  type RegisteredChain,
} from "./registry.js";

interface QueryResult {
  rows: Record<string, unknown>[];
  rowCount: number | null;
}
interface Queryable {
  query(text: string, values?: unknown[]): Promise<QueryResult>;
}
interface PoolClient extends Queryable {
  release(destroy?: boolean | Error): void;
  on(event: "error", listener: (err: Error) => void): unknown;
  off(event: "error", listener: (err: Error) => void): unknown;
}
interface Pool extends Queryable {
  connect(): Promise<PoolClient>;
  end(): Promise<void>;
  on(event: "error", listener: (err: Error) => void): unknown;
}
type PoolConstructor = new (config: Record<string, unknown>) => Pool;

/** Attempts of a registration that hit a serialization failure or a deadlock. */
const ATTEMPTS = 5;

const COLUMNS = "id, agent, root, chain, registered_at, not_after";

function fromRow(row: Record<string, unknown>): RegisteredChain {
  const { id, agent, root, chain } = row;
  const registeredAt = Number(row.registered_at);
  const notAfter = Number(row.not_after);
  if (
    typeof id !== "string" ||
    typeof agent !== "string" ||
    typeof root !== "string" ||
    !Array.isArray(chain) ||
    !chain.every((link) => typeof link === "string") ||
    !Number.isSafeInteger(registeredAt) ||
    !Number.isSafeInteger(notAfter)
  ) {
    throw new RegistryError(
      "REGISTRY_INVALID",
      `chain ${String(id).slice(0, 80)} in the database is not a registry record`,
    );
  }
  return { id, agent, root, chain: [...chain], registeredAt, notAfter };
}

/** The advisory-lock key of an agent: 32 bits of its SHA-256 (a collision only queues more). */
function agentLockKey(agent: string): number {
  return createHash("sha256").update(agent).digest().readInt32BE(0);
}

/**
 * A registry stored in PostgreSQL. Open it with {@link openPostgresRegistry}.
 *
 * @example
 * ```ts
 * import { openPostgresRegistry } from "agent-airlock/guard";
 * const registry = await openPostgresRegistry("postgres://airlock@db.internal/airlock");
 * await registry.register(chain);
 * await registry.close();
 * ```
 */
export class PostgresRegistry implements DelegationRegistry {
  readonly #pool: Pool;
  readonly #shown: string;
  readonly #max: number;
  readonly #maxTotal: number;
  readonly #now: () => number;
  #closed = false;

  /** @internal Use {@link openPostgresRegistry}. */
  constructor(pool: Pool, shown: string, options: PostgresRegistryOptions | undefined) {
    this.#pool = pool;
    this.#shown = shown;
    this.#max = maxPerAgent(options);
    this.#maxTotal = maxTotal(options);
    this.#now = options?.clock ?? Date.now;
  }

  async register(chain: readonly string[]): Promise<RegisteredChain> {
    const record = describeChain(chain, Math.floor(this.#now() / 1000));
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#transaction((db) => this.#insert(db, record));
      } catch (err) {
        if (!isRetryable(err) || attempt >= ATTEMPTS) throw toRegistryError(err, this.#shown);
        await sleep(5 * 2 ** attempt * (0.5 + Math.random()));
      }
    }
  }

  /** The registration itself, inside a transaction on one connection. */
  async #insert(db: Queryable, record: RegisteredChain): Promise<RegisteredChain> {
    await db.query("SELECT pg_advisory_xact_lock($1, $2)", [
      AGENT_LOCK_CLASS,
      agentLockKey(record.agent),
    ]);
    const existing = await db.query(`SELECT ${COLUMNS} FROM airlock_chains WHERE id = $1`, [
      record.id,
    ]);
    if (existing.rows[0]) return fromRow(existing.rows[0]);
    const agentFull = () =>
      this.#count(db, "WHERE agent = $2", this.#max, [record.agent]).then((n) => n >= this.#max);
    if (await agentFull()) {
      await db.query("DELETE FROM airlock_chains WHERE agent = $1 AND not_after <= $2", [
        record.agent,
        record.registeredAt,
      ]);
      if (await agentFull()) {
        throw new RegistryError(
          "REGISTRY_FULL",
          `agent ${record.agent} already has ${this.#max} unexpired chains registered; unregister some first`,
        );
      }
    }
    // The total is shared by every agent: its lock is held from this count to the commit.
    await db.query("SELECT pg_advisory_xact_lock($1, $2)", [LOCK_CLASS, TOTAL_LOCK]);
    const totalFull = () =>
      this.#count(db, "", this.#maxTotal, []).then((n) => n >= this.#maxTotal);
    if (await totalFull()) {
      await db.query("DELETE FROM airlock_chains WHERE not_after <= $1", [record.registeredAt]);
      if (await totalFull()) {
        throw new RegistryError(
          "REGISTRY_FULL",
          `the registry holds ${this.#maxTotal} unexpired chains`,
        );
      }
    }
    await db.query(
      `INSERT INTO airlock_chains (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING`,
      [record.id, record.agent, record.root, record.chain, record.registeredAt, record.notAfter],
    );
    return { ...record, chain: [...record.chain] };
  }

  /** Rows matching `where`, counted up to `cap` (enough to compare with a limit). */
  async #count(db: Queryable, where: string, cap: number, params: unknown[]): Promise<number> {
    const result = await db.query(
      `SELECT count(*) AS n FROM (SELECT 1 FROM airlock_chains ${where} LIMIT $1) AS capped`,
      [cap, ...params],
    );
    return Number(result.rows[0]?.n);
  }

  async chainsFor(agent: string): Promise<RegisteredChain[]> {
    const result = await this.#query(
      `SELECT ${COLUMNS} FROM airlock_chains WHERE agent = $1 ORDER BY registered_at, id LIMIT $2`,
      [agent, this.#max],
    );
    return result.rows.map(fromRow);
  }

  async list(): Promise<RegisteredChain[]> {
    const result = await this.#query(
      `SELECT ${COLUMNS} FROM airlock_chains ORDER BY registered_at, id`,
    );
    return result.rows.map(fromRow);
  }

  async unregister(id: string): Promise<boolean> {
    const result = await this.#query("DELETE FROM airlock_chains WHERE id = $1", [id]);
    return (result.rowCount ?? 0) > 0;
  }

  async revoke(jti: string): Promise<void> {
    assertJti(jti);
    await this.#query(
      "INSERT INTO airlock_revoked (jti, revoked_at) VALUES ($1, $2) ON CONFLICT (jti) DO NOTHING",
      [jti, Math.floor(this.#now() / 1000)],
    );
  }

  async isRevoked(jti: string): Promise<boolean> {
    const result = await this.#query("SELECT 1 FROM airlock_revoked WHERE jti = $1", [jti]);
    return result.rows.length > 0;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#pool.end().catch(() => {});
  }

  #assertOpen(): void {
    if (this.#closed) {
      throw new RegistryError("REGISTRY_IO", `PostgreSQL registry ${this.#shown} is closed`);
    }
  }

  /** One statement on any pooled connection (its own transaction). */
  async #query(text: string, values?: unknown[]): Promise<QueryResult> {
    this.#assertOpen();
    try {
      return await this.#pool.query(text, values);
    } catch (err) {
      throw toRegistryError(err, this.#shown);
    }
  }

  /** `fn` in one transaction on one connection; a connection that failed is not reused. */
  async #transaction<T>(fn: (db: Queryable) => Promise<T>): Promise<T> {
    this.#assertOpen();
    const client = await this.#pool.connect();
    // A checked-out connection that the server drops between two statements emits an
    // error event (the pool listens only while it is idle): unheard, it ends the process.
    // The next statement fails on its own and is handled below.
    const ignore = () => {};
    client.on("error", ignore);
    let failure: unknown;
    try {
      await client.query("BEGIN");
      const result = await fn(client);
      await client.query("COMMIT");
      return result;
    } catch (err) {
      failure = err;
      await client.query("ROLLBACK").catch(() => {});
      throw err;
    } finally {
      // An error the server sent leaves the connection usable; any other may not.
      const broken = failure !== undefined && !(failure instanceof RegistryError);
      client.off("error", ignore);
      client.release(broken && (failure as { code?: unknown }).code === undefined);
    }
  }
}

async function loadPool(): Promise<PoolConstructor> {
  try {
    const name = "pg";
    const mod = (await import(name)) as { default?: { Pool?: unknown }; Pool?: unknown };
    const Pool = mod.Pool ?? mod.default?.Pool;
    if (typeof Pool !== "function") throw new Error("pg has no Pool export");
    return Pool as PoolConstructor;
  } catch (cause) {
    throw new RegistryError(
      "REGISTRY_UNAVAILABLE",
      "the PostgreSQL registry needs pg: npm install pg",
      { cause },
    );
  }
}

async function prepare(pool: Pool, settings: PostgresSettings): Promise<void> {
  let client: PoolClient;
  try {
    client = await pool.connect();
  } catch (err) {
    throw toRegistryError(err, settings.shown);
  }
  const ignore = () => {};
  client.on("error", ignore);
  try {
    await migratePostgres(client, settings.migrate);
    client.off("error", ignore);
    client.release();
  } catch (err) {
    client.off("error", ignore);
    client.release(true);
    throw toRegistryError(err, settings.shown);
  }
}

/**
 * Open a PostgreSQL registry: connect, apply the schema migrations this release needs
 * (unless `migrate: false`), and keep a pool of connections. Needs `pg` installed. The
 * connection is a `postgres://` URL or {@link PostgresConnectionOptions}; what neither
 * gives comes from libpq's `PG*` environment variables and `~/.pgpass`.
 *
 * @throws {RegistryError} `REGISTRY_UNAVAILABLE` when `pg` is missing or the database
 * cannot be reached, `REGISTRY_MISCONFIGURED` for a bad option, a refused login, a
 * missing database, or (with `migrate: false`) a schema that is behind, `REGISTRY_INVALID`
 * for a schema newer than this release.
 * @example
 * ```ts
 * import { openPostgresRegistry } from "agent-airlock/guard";
 * const registry = await openPostgresRegistry("postgres://airlock@db.internal:5432/airlock", {
 *   poolSize: 10,
 * });
 * ```
 */
export async function openPostgresRegistry(
  connection: string | PostgresConnectionOptions,
  options?: PostgresRegistryOptions,
): Promise<PostgresRegistry> {
  const settings = readPostgresSettings(connection, options);
  const Pool = await loadPool();
  const pool = new Pool({ ...settings.pool });
  // An idle connection the server closed (a restart, a failover) is an event, not a
  // throw: without a listener it would end the process. The pool drops it and opens a
  // new one for the next query.
  pool.on("error", () => {});
  try {
    await prepare(pool, settings);
  } catch (err) {
    await pool.end().catch(() => {});
    throw err;
  }
  return new PostgresRegistry(pool, settings.shown, options);
}
