/**
 * The `--registry` of `airlock delegate verify | revoke | serve`: which registry a target
 * names (`postgres://` or `postgresql://` a PostgreSQL database, `.db`, `.sqlite`,
 * `.sqlite3` a SQLite file, anything else the JSON file registry), opened with the module
 * of that kind only (each is imported when used), and how a target is shown: a database
 * URL never with its password.
 */
import { isPostgresUrl, redactConnectionUrl } from "../../guard/registry/postgres-options.js";
import type { DelegationRegistry } from "../../guard/registry/registry.js";

/** Open the registry `target` names. */
export async function openRegistry(target: string): Promise<DelegationRegistry> {
  if (isPostgresUrl(target)) {
    const { openPostgresRegistry } = await import("../../guard/registry/postgres.js");
    return openPostgresRegistry(target);
  }
  if (/\.(db|sqlite3?)$/i.test(target)) {
    const { openSqliteRegistry } = await import("../../guard/registry/sqlite.js");
    return openSqliteRegistry(target);
  }
  const { openFileRegistry } = await import("../../guard/registry/file.js");
  return openFileRegistry(target);
}

/** `target` as it may be printed or logged. */
export function showRegistry(target: string): string {
  return isPostgresUrl(target) ? redactConnectionUrl(target) : target;
}
