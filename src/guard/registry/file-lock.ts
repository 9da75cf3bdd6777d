/**
 * The JSON-file registry's use of the one cross-process lock (src/lib/file-lock.ts): its
 * timing options and its error codes. Every change to the registry file is a read,
 * change and write under `<file>.lock`, so no process ever writes from a state that
 * misses another's change.
 *
 * A lock whose holder has provably ended is taken over at once (the shared rules: same
 * host and boot, same PID namespace, a dead pid, or this process's pid in a lock it does
 * not hold; or a boot of this host before the last restart). A lock of this machine that
 * is older than `staleMs` is taken over even when its holder may run, since a lock of
 * another container (whose pid says nothing here) must not block the registry for
 * ever; a lock of another host never is. A holder checks it still holds the lock right
 * before it replaces the file, so a holder that stalled past `staleMs` and lost the lock
 * refuses its write instead of overwriting the new holder's. Written for local file
 * systems (see docs/threat-model.md).
 *
 * @module
 */
import { type LockRefusal, withFileLock as withSharedLock } from "../../lib/file-lock.js";
import { RegistryError } from "../delegation/errors.js";

/** How long to wait for the lock and when to take it from a holder that may be gone. */
export interface FileLockSettings {
  /** Give up (`REGISTRY_BUSY`) after this many milliseconds of waiting. */
  readonly timeoutMs: number;
  /** A lock of this machine older than this is taken over even when its holder may run. */
  readonly staleMs: number;
}

/** Throws `REGISTRY_BUSY` unless the caller still holds the lock. */
export type LockCheck = () => Promise<void>;

function refusal(refused: LockRefusal): RegistryError {
  if (refused.fault === "held") {
    return new RegistryError(
      "REGISTRY_BUSY",
      `cannot change the registry: its lock ${refused.reason}`,
    );
  }
  return new RegistryError("REGISTRY_IO", `cannot use the registry's lock: ${refused.reason}`, {
    cause: refused.cause,
  });
}

/**
 * Run `fn` holding the lock file `path`. `fn` receives a check to call right before it
 * makes its change visible.
 *
 * @internal
 * @throws {RegistryError} `REGISTRY_BUSY` when the lock cannot be had within
 * `settings.timeoutMs` (or was lost), `REGISTRY_IO` when the lock file cannot be made.
 * @example
 * ```ts
 * import { withFileLock } from "./file-lock.js";
 * await withFileLock("delegations.json.lock", { timeoutMs: 10_000, staleMs: 30_000 }, async (stillHeld) => {
 *   await stillHeld(); // right before the rename
 * });
 * ```
 */
export function withFileLock<T>(
  path: string,
  settings: FileLockSettings,
  fn: (stillHeld: LockCheck) => Promise<T>,
): Promise<T> {
  return withSharedLock(
    path,
    { timeoutMs: settings.timeoutMs, staleMs: settings.staleMs },
    refusal,
    (lock) =>
      fn(async () => {
        if (!(await lock.stillHeld())) {
          throw new RegistryError(
            "REGISTRY_BUSY",
            `lost the lock ${path} (held past ${settings.staleMs} ms and taken over); nothing was written`,
          );
        }
      }),
  );
}
