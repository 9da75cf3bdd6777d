/**
 * What a failure of the `pg` driver means for the registry: which `RegistryError` code it
 * becomes. Errors the server sent carry a five-character SQLSTATE and are sorted by
 * class; anything else (refused or reset connections, a pool that timed out, a
 * connection that ended mid-query) means the database could not be reached at all, and
 * is `REGISTRY_UNAVAILABLE`. Every one of them refuses: the verifier throws, the service
 * answers 503, the guard refuses.
 *
 * @module
 */
import { RegistryError } from "../delegation/errors.js";

/** SQLSTATEs that a retry of the same transaction may get past. */
const RETRYABLE = new Set([
  "40001", // serialization_failure
  "40P01", // deadlock_detected
  "55P03", // lock_not_available
]);

/** SQLSTATEs of a server that is there but cannot serve us now. */
const UNAVAILABLE = new Set([
  "57P01", // admin_shutdown
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now (starting up, shutting down, recovering)
  "53300", // too_many_connections
  "53400", // configuration_limit_exceeded
]);

/** SQLSTATEs that say the registry was pointed at the wrong place or with the wrong rights. */
const MISCONFIGURED = new Set([
  "3D000", // invalid_catalog_name: no such database
  "42501", // insufficient_privilege
]);

function sqlState(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** Whether a retry of the whole transaction may succeed. @internal */
export function isRetryable(err: unknown): boolean {
  const state = sqlState(err);
  return state !== undefined && RETRYABLE.has(state);
}

/** The registry code for a driver failure. @internal */
export function registryCodeOf(err: unknown): RegistryError["code"] {
  const state = sqlState(err);
  if (state === undefined) return "REGISTRY_UNAVAILABLE";
  if (RETRYABLE.has(state) || state === "57014") return "REGISTRY_BUSY"; // 57014: statement timeout
  if (state.startsWith("08") || UNAVAILABLE.has(state)) return "REGISTRY_UNAVAILABLE";
  if (state.startsWith("28") || MISCONFIGURED.has(state)) return "REGISTRY_MISCONFIGURED";
  if (state === "42P01" || state === "42703") return "REGISTRY_INVALID"; // a table or column gone
  return "REGISTRY_IO";
}

const WHAT: Partial<Record<RegistryError["code"], string>> = {
  REGISTRY_UNAVAILABLE: "the database cannot be reached",
  REGISTRY_BUSY: "the database is busy (lock or statement timeout)",
  REGISTRY_MISCONFIGURED: "the database refused this registry's user or database name",
  REGISTRY_INVALID: "the database does not hold the registry's tables",
};

/**
 * A driver failure as a `RegistryError` naming the database (`shown`, never with its
 * password). A `RegistryError` passes through unchanged.
 *
 * @internal
 */
export function toRegistryError(err: unknown, shown: string): RegistryError {
  if (err instanceof RegistryError) return err;
  const code = registryCodeOf(err);
  const detail = String((err as Error | null)?.message ?? err).slice(0, 300);
  return new RegistryError(
    code,
    `PostgreSQL registry ${shown}: ${WHAT[code] ?? "the operation failed"} (${detail})`,
    { cause: err },
  );
}
