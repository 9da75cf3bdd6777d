/**
 * The options of the PostgreSQL registry (`postgres.ts`): where the database is (a URL or
 * connection fields), the pool and its timeouts, and whether opening applies the schema
 * migrations. Read once, refused when bad (`REGISTRY_MISCONFIGURED`), and turned into the
 * `pg` pool configuration. Also the one place that hides a password in a connection URL
 * before it is shown anywhere (messages, `airlock delegate serve` output).
 *
 * @module
 */
import { RegistryError } from "../delegation/errors.js";
import type { RegistryLimits } from "./registry.js";

/**
 * Where the database is, as fields (the URL form is `postgres://user:password@host:port/db`).
 * Anything not given comes from libpq's environment variables (`PGHOST`, `PGPORT`,
 * `PGUSER`, `PGPASSWORD`, `PGDATABASE`) and `~/.pgpass`, as `pg` reads them.
 */
export interface PostgresConnectionOptions {
  /** A `postgres://` or `postgresql://` URL; the other fields override its parts. */
  connectionString?: string;
  host?: string;
  port?: number;
  user?: string;
  password?: string;
  database?: string;
  /**
   * TLS to the database: `true` (verify the server's certificate against the system's
   * roots), or Node `tls` options (`ca`, `cert`, `key`, `servername`, `rejectUnauthorized`).
   * Default: what the URL's `sslmode` says, else none.
   */
  ssl?: boolean | PostgresTlsOptions;
}

/** The TLS options passed on to `pg` (see Node's `tls.connect`). */
export interface PostgresTlsOptions {
  ca?: string;
  cert?: string;
  key?: string;
  servername?: string;
  rejectUnauthorized?: boolean;
}

/** Options of `openPostgresRegistry`: the registry limits, the pool and the migrations. */
export interface PostgresRegistryOptions extends RegistryLimits {
  /**
   * Most connections this registry opens (default {@link DEFAULT_POSTGRES_POOL_SIZE}, 10;
   * 1 to 1,000). Several instances add up: keep the sum below the server's `max_connections`.
   */
  poolSize?: number;
  /**
   * Milliseconds to get a connection, from the pool or a new one, before the operation
   * fails with `REGISTRY_UNAVAILABLE` (default {@link DEFAULT_POSTGRES_CONNECT_TIMEOUT_MS},
   * 5,000; 100 to 600,000).
   */
  connectTimeoutMs?: number;
  /**
   * Milliseconds one statement may take, enforced by the server (`statement_timeout`) and
   * by the client when the server does not answer at all (default
   * {@link DEFAULT_POSTGRES_QUERY_TIMEOUT_MS}, 10,000; 100 to 600,000).
   */
  queryTimeoutMs?: number;
  /**
   * Apply the schema migrations this release needs when opening (default `true`). With
   * `false`, opening only checks that the database is at the expected schema version and
   * refuses otherwise: for a service whose database user may not change the schema.
   */
  migrate?: boolean;
}

/**
 * Default for `PostgresRegistryOptions.poolSize`.
 *
 * @example
 * ```ts
 * import { DEFAULT_POSTGRES_POOL_SIZE } from "agent-airlock/guard";
 * console.log(DEFAULT_POSTGRES_POOL_SIZE); // 10
 * ```
 */
export const DEFAULT_POSTGRES_POOL_SIZE = 10;

/**
 * Default for `PostgresRegistryOptions.connectTimeoutMs`.
 *
 * @example
 * ```ts
 * import { DEFAULT_POSTGRES_CONNECT_TIMEOUT_MS } from "agent-airlock/guard";
 * console.log(DEFAULT_POSTGRES_CONNECT_TIMEOUT_MS); // 5000
 * ```
 */
export const DEFAULT_POSTGRES_CONNECT_TIMEOUT_MS = 5000;

/**
 * Default for `PostgresRegistryOptions.queryTimeoutMs`.
 *
 * @example
 * ```ts
 * import { DEFAULT_POSTGRES_QUERY_TIMEOUT_MS } from "agent-airlock/guard";
 * console.log(DEFAULT_POSTGRES_QUERY_TIMEOUT_MS); // 10000
 * ```
 */
export const DEFAULT_POSTGRES_QUERY_TIMEOUT_MS = 10_000;

/** The options, validated and defaulted. @internal */
export interface PostgresSettings {
  /** What `new pg.Pool(...)` is given. */
  readonly pool: Readonly<Record<string, unknown>>;
  /** The database, for messages: the URL without its password, or host:port/database. */
  readonly shown: string;
  readonly migrate: boolean;
}

function misconfigured(message: string): RegistryError {
  return new RegistryError("REGISTRY_MISCONFIGURED", message);
}

const shorten = (value: unknown) => String(value).slice(0, 60);

function readWhole(value: unknown, name: string, fallback: number, min: number, max: number) {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min || value > max) {
    throw misconfigured(
      `${name} must be a whole number from ${min} to ${max}; got ${shorten(value)}`,
    );
  }
  return value;
}

/**
 * `url` with its password replaced by `***`, for logs and messages; a text that is not a
 * URL is returned as `<not a URL>`.
 *
 * @internal
 */
export function redactConnectionUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "***";
    for (const key of [...parsed.searchParams.keys()]) {
      if (/pass|key|secret/i.test(key)) parsed.searchParams.set(key, "***");
    }
    return parsed.toString();
  } catch {
    return "<not a URL>";
  }
}

/** Whether `target` names a PostgreSQL database (`postgres://` or `postgresql://`). @internal */
export function isPostgresUrl(target: string): boolean {
  return /^postgres(?:ql)?:\/\//i.test(target);
}

function readUrl(url: unknown): string {
  if (typeof url !== "string" || !isPostgresUrl(url)) {
    throw misconfigured("a PostgreSQL registry URL starts with postgres:// or postgresql://");
  }
  try {
    new URL(url);
  } catch {
    throw misconfigured(`${redactConnectionUrl(url)} is not a URL`);
  }
  return url;
}

const CONNECTION_KEYS = new Set([
  "connectionString",
  "host",
  "port",
  "user",
  "password",
  "database",
  "ssl",
]);
const TLS_KEYS = new Set(["ca", "cert", "key", "servername", "rejectUnauthorized"]);

function readTls(ssl: unknown): boolean | PostgresTlsOptions {
  if (typeof ssl === "boolean") return ssl;
  if (typeof ssl !== "object" || ssl === null || Array.isArray(ssl)) {
    throw misconfigured("ssl is true, false or an object of TLS options");
  }
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(ssl)) {
    const ok =
      key === "rejectUnauthorized" ? typeof value === "boolean" : typeof value === "string";
    if (!TLS_KEYS.has(key) || !ok) throw misconfigured(`ssl.${shorten(key)} is not a TLS option`);
    copy[key] = value;
  }
  return copy as PostgresTlsOptions;
}

function readConnection(connection: unknown): { fields: Record<string, unknown>; shown: string } {
  if (typeof connection === "string") {
    const url = readUrl(connection);
    return { fields: { connectionString: url }, shown: redactConnectionUrl(url) };
  }
  if (typeof connection !== "object" || connection === null || Array.isArray(connection)) {
    throw misconfigured("give a postgres:// URL or an object of connection fields");
  }
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(connection)) {
    if (!CONNECTION_KEYS.has(key)) throw misconfigured(`unknown connection field ${shorten(key)}`);
    if (value === undefined) continue;
    if (key === "connectionString") fields[key] = readUrl(value);
    else if (key === "port") fields[key] = readWhole(value, "port", 5432, 1, 65535);
    else if (key === "ssl") fields[key] = readTls(value);
    else if (typeof value !== "string" || value === "" || value.length > 1024) {
      throw misconfigured(`${key} must be a non-empty string`);
    } else fields[key] = value;
  }
  const where = fields.connectionString
    ? redactConnectionUrl(fields.connectionString as string)
    : `${(fields.host as string | undefined) ?? "$PGHOST"}:${(fields.port as number | undefined) ?? "$PGPORT"}/${(fields.database as string | undefined) ?? "$PGDATABASE"}`;
  return { fields, shown: where };
}

/**
 * Read the connection and the options, refusing bad ones.
 *
 * @internal
 * @throws {RegistryError} `REGISTRY_MISCONFIGURED`.
 */
export function readPostgresSettings(
  connection: unknown,
  options: PostgresRegistryOptions | undefined,
): PostgresSettings {
  const { fields, shown } = readConnection(connection);
  const o = options ?? {};
  if (o.migrate !== undefined && typeof o.migrate !== "boolean") {
    throw misconfigured("migrate must be true or false");
  }
  const poolSize = readWhole(o.poolSize, "poolSize", DEFAULT_POSTGRES_POOL_SIZE, 1, 1000);
  const connectTimeoutMs = readWhole(
    o.connectTimeoutMs,
    "connectTimeoutMs",
    DEFAULT_POSTGRES_CONNECT_TIMEOUT_MS,
    100,
    600_000,
  );
  const queryTimeoutMs = readWhole(
    o.queryTimeoutMs,
    "queryTimeoutMs",
    DEFAULT_POSTGRES_QUERY_TIMEOUT_MS,
    100,
    600_000,
  );
  return Object.freeze({
    pool: Object.freeze({
      ...fields,
      max: poolSize,
      connectionTimeoutMillis: connectTimeoutMs,
      // The server cancels a statement past this; the client gives up a little later, for
      // a server that stopped answering altogether.
      statement_timeout: queryTimeoutMs,
      query_timeout: queryTimeoutMs + 1000,
      idleTimeoutMillis: 30_000,
      keepAlive: true,
      application_name: "agent-airlock",
    }),
    shown,
    migrate: o.migrate ?? true,
  });
}
