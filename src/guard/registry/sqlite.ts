/**
 * A delegation registry in a SQLite database, via `better-sqlite3` (an optional
 * dependency, loaded only when this registry is opened: importing the guard never loads
 * it). Suited to a long-lived process such as `airlock delegate serve`, and to several
 * processes on one host sharing one database file: WAL journal (readers never wait for a
 * writer), a busy timeout (a writer waits for another's write lock instead of failing),
 * `BEGIN IMMEDIATE` for a registration (it takes the write lock before it counts, so the
 * limits hold across processes), and a few retries for the busy errors SQLite reports
 * without waiting.
 *
 * @module
 */
import { setTimeout as sleep } from "node:timers/promises";
import { RegistryError } from "../delegation/errors.js";
import {
  assertJti,
  type DelegationRegistry,
  describeChain,
  maxPerAgent,
  maxTotal,
  type RegisteredChain,
  type RegistryLimits,
} from "./registry.js";

interface Statement {
  run(...params: unknown[]): { changes: number };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}
interface Database {
  prepare(sql: string): Statement;
  exec(sql: string): void;
  pragma(sql: string): unknown;
  transaction<T extends (...args: never[]) => unknown>(fn: T): T & { immediate: T };
  close(): void;
}
type DatabaseConstructor = new (path: string) => Database;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS airlock_chains (
  id TEXT PRIMARY KEY,
  agent TEXT NOT NULL,
  root TEXT NOT NULL,
  chain TEXT NOT NULL,
  registered_at INTEGER NOT NULL,
  not_after INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS airlock_chains_agent ON airlock_chains (agent, registered_at);
CREATE TABLE IF NOT EXISTS airlock_revoked (
  jti TEXT PRIMARY KEY,
  revoked_at INTEGER NOT NULL
);
`;

interface Row {
  id: string;
  agent: string;
  root: string;
  chain: string;
  registered_at: number;
  not_after: number;
}

function fromRow(row: Row): RegisteredChain {
  let chain: unknown;
  try {
    chain = JSON.parse(row.chain);
  } catch (cause) {
    throw new RegistryError("REGISTRY_INVALID", `chain ${row.id} in the database is not JSON`, {
      cause,
    });
  }
  if (!Array.isArray(chain) || !chain.every((l) => typeof l === "string")) {
    throw new RegistryError(
      "REGISTRY_INVALID",
      `chain ${row.id} in the database is not a list of links`,
    );
  }
  return {
    id: row.id,
    agent: row.agent,
    root: row.root,
    chain,
    registeredAt: row.registered_at,
    notAfter: row.not_after,
  };
}

/**
 * Default for `SqliteRegistryOptions.busyTimeoutMs`: how long a statement waits for
 * another connection's write lock (SQLite's `busy_timeout`).
 *
 * @example
 * ```ts
 * import { DEFAULT_SQLITE_BUSY_TIMEOUT_MS, openSqliteRegistry } from "agent-airlock/guard";
 * await openSqliteRegistry("delegations.db", { busyTimeoutMs: DEFAULT_SQLITE_BUSY_TIMEOUT_MS * 2 });
 * ```
 */
export const DEFAULT_SQLITE_BUSY_TIMEOUT_MS = 5000;

/** Options of {@link openSqliteRegistry}: the registry limits and SQLite's busy timeout. */
export interface SqliteRegistryOptions extends RegistryLimits {
  /**
   * Milliseconds a statement waits for another connection's lock before the registry
   * retries, then fails with `REGISTRY_BUSY` (default {@link DEFAULT_SQLITE_BUSY_TIMEOUT_MS},
   * 5,000; 0 to 60,000). SQLite waits synchronously, so keep it short in a server.
   */
  busyTimeoutMs?: number;
}

/** Retries after a busy error SQLite reports at once (a stale read snapshot, a recovery). */
const BUSY_RETRIES = 5;

function readBusyTimeout(options: SqliteRegistryOptions | undefined): number {
  const value = options?.busyTimeoutMs ?? DEFAULT_SQLITE_BUSY_TIMEOUT_MS;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0 || value > 60_000) {
    throw new RegistryError(
      "REGISTRY_MISCONFIGURED",
      `busyTimeoutMs must be a whole number of milliseconds from 0 to 60000; got ${String(value).slice(0, 40)}`,
    );
  }
  return value;
}

function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("SQLITE_BUSY");
}

/**
 * A registry stored in SQLite. Open it with {@link openSqliteRegistry}.
 *
 * @example
 * ```ts
 * import { openSqliteRegistry } from "agent-airlock/guard";
 * const registry = await openSqliteRegistry(":memory:");
 * await registry.register(chain);
 * await registry.close();
 * ```
 */
export class SqliteRegistry implements DelegationRegistry {
  readonly #db: Database;
  readonly #max: number;
  readonly #maxTotal: number;
  readonly #now: () => number;

  constructor(db: Database, options?: SqliteRegistryOptions) {
    const busyTimeoutMs = readBusyTimeout(options);
    this.#db = db;
    this.#max = maxPerAgent(options);
    this.#maxTotal = maxTotal(options);
    this.#now = options?.clock ?? Date.now;
    // First, so that switching to WAL and creating the tables wait for another process.
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    db.pragma("journal_mode = WAL");
    db.exec(SCHEMA);
  }

  async register(chain: readonly string[]): Promise<RegisteredChain> {
    const record = describeChain(chain, Math.floor(this.#now() / 1000));
    const insert = this.#db.transaction(() => {
      const existing = this.#db
        .prepare("SELECT * FROM airlock_chains WHERE id = ?")
        .get(record.id) as Row | undefined;
      if (existing) return fromRow(existing);
      const count = (where: string, ...params: unknown[]) =>
        (
          this.#db.prepare(`SELECT COUNT(*) AS n FROM airlock_chains ${where}`).get(...params) as {
            n: number;
          }
        ).n;
      const dropExpired = (where: string, ...params: unknown[]) =>
        this.#db
          .prepare(`DELETE FROM airlock_chains WHERE not_after <= ? ${where}`)
          .run(record.registeredAt, ...params);
      if (count("WHERE agent = ?", record.agent) >= this.#max) {
        dropExpired("AND agent = ?", record.agent);
        if (count("WHERE agent = ?", record.agent) >= this.#max) {
          throw new RegistryError(
            "REGISTRY_FULL",
            `agent ${record.agent} already has ${this.#max} unexpired chains registered; unregister some first`,
          );
        }
      }
      if (count("") >= this.#maxTotal) {
        dropExpired("");
        if (count("") >= this.#maxTotal) {
          throw new RegistryError(
            "REGISTRY_FULL",
            `the registry holds ${this.#maxTotal} unexpired chains`,
          );
        }
      }
      this.#db
        .prepare(
          "INSERT INTO airlock_chains (id, agent, root, chain, registered_at, not_after) VALUES (?, ?, ?, ?, ?, ?)",
        )
        .run(
          record.id,
          record.agent,
          record.root,
          JSON.stringify(record.chain),
          record.registeredAt,
          record.notAfter,
        );
      return record;
    });
    // IMMEDIATE: the write lock is taken before the counts are read, so another process
    // cannot register between our count and our insert (a deferred transaction would read
    // first and fail with SQLITE_BUSY when it tries to write after another writer).
    return this.#io(() => insert.immediate() as RegisteredChain);
  }

  async chainsFor(agent: string): Promise<RegisteredChain[]> {
    return this.#io(() =>
      (
        this.#db
          .prepare(
            "SELECT * FROM airlock_chains WHERE agent = ? ORDER BY registered_at, id LIMIT ?",
          )
          .all(agent, this.#max) as Row[]
      ).map(fromRow),
    );
  }

  async list(): Promise<RegisteredChain[]> {
    return this.#io(() =>
      (
        this.#db.prepare("SELECT * FROM airlock_chains ORDER BY registered_at, id").all() as Row[]
      ).map(fromRow),
    );
  }

  async unregister(id: string): Promise<boolean> {
    return this.#io(
      () => this.#db.prepare("DELETE FROM airlock_chains WHERE id = ?").run(id).changes > 0,
    );
  }

  async revoke(jti: string): Promise<void> {
    assertJti(jti);
    await this.#io(() =>
      this.#db
        .prepare("INSERT OR IGNORE INTO airlock_revoked (jti, revoked_at) VALUES (?, ?)")
        .run(jti, Math.floor(this.#now() / 1000)),
    );
  }

  async isRevoked(jti: string): Promise<boolean> {
    return this.#io(
      () => this.#db.prepare("SELECT 1 FROM airlock_revoked WHERE jti = ?").get(jti) !== undefined,
    );
  }

  async close(): Promise<void> {
    this.#db.close();
  }

  /** Run one statement or transaction, retrying busy errors a few times (without blocking). */
  async #io<T>(fn: () => T): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return fn();
      } catch (err) {
        if (err instanceof RegistryError) throw err;
        if (isBusy(err) && attempt < BUSY_RETRIES) {
          await sleep(5 * 2 ** attempt * (0.5 + Math.random()));
          continue;
        }
        throw new RegistryError(
          isBusy(err) ? "REGISTRY_BUSY" : "REGISTRY_IO",
          `SQLite registry: ${(err as Error).message}`,
          { cause: err },
        );
      }
    }
  }
}

/**
 * Open (or create) a SQLite registry at `path` (`:memory:` works too). Needs
 * `better-sqlite3` installed.
 *
 * @throws {RegistryError} `REGISTRY_UNAVAILABLE` when `better-sqlite3` is missing,
 * `REGISTRY_IO` when the database cannot be opened, `REGISTRY_MISCONFIGURED` for a bad
 * option.
 * @example
 * ```ts
 * import { openSqliteRegistry } from "agent-airlock/guard";
 * const registry = await openSqliteRegistry("delegations.db");
 * ```
 */
export async function openSqliteRegistry(
  path: string,
  options?: SqliteRegistryOptions,
): Promise<SqliteRegistry> {
  readBusyTimeout(options);
  let Driver: DatabaseConstructor;
  try {
    const name = "better-sqlite3";
    const mod = (await import(name)) as { default: DatabaseConstructor };
    Driver = mod.default;
  } catch (cause) {
    throw new RegistryError(
      "REGISTRY_UNAVAILABLE",
      "the SQLite registry needs better-sqlite3: npm install better-sqlite3",
      { cause },
    );
  }
  let db: Database;
  try {
    db = new Driver(path);
  } catch (cause) {
    throw new RegistryError(
      "REGISTRY_IO",
      `cannot open SQLite database ${path}: ${(cause as Error).message}`,
      { cause },
    );
  }
  try {
    return new SqliteRegistry(db, options);
  } catch (cause) {
    db.close();
    if (cause instanceof RegistryError) throw cause;
    throw new RegistryError(
      "REGISTRY_IO",
      `cannot prepare SQLite database ${path}: ${(cause as Error).message}`,
      { cause },
    );
  }
}
