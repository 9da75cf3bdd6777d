/**
 * Who holds a lock file, and whether that process can still hold it: the record a lock
 * (and a breaker's `.break` file) holds, and the one set of rules that judges it, so a
 * pin file and the JSON-file registry treat a holder alike (src/lib/file-lock.ts).
 *
 * A process id only means something within one boot of one machine and one PID
 * namespace, so a holder is judged by its pid only when its record names this boot (or,
 * where a side has no boot id, this host name) and this PID namespace:
 * - another boot of this host: the machine has restarted since, the holder is gone;
 * - another host (another boot id and host name; another host name where boot ids are
 *   unknown): nothing here can tell, and its lock is never taken from it automatically
 *   (a lock file on a network file system is not supported, but must not be stolen from
 *   a live writer either);
 * - this machine but another PID namespace (a container): its pid names nothing here;
 * - this process's own pid in a lock this process does not hold: an earlier process
 *   with the same pid left it (a restarted container);
 * - otherwise the pid is asked with signal 0 ({@link isProcessAlive}).
 *
 * The same boot id with another host name is a container of this machine (boot ids are
 * random per boot and shared by every namespace of one kernel), so its pid counts when
 * it shares our PID namespace.
 *
 * Private (src/lib).
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { currentBootId, currentPidNamespace, isProcessAlive } from "./process-alive.js";

/** What a lock file says about the process that took it. */
export interface LockHolder {
  readonly pid: number;
  readonly host: string;
  /** The holder's boot id (see {@link currentBootId}); `""` when unknown. */
  readonly boot: string;
  /** The holder's PID namespace (see {@link currentPidNamespace}); `""` when unknown. */
  readonly pidns: string;
  /** Random per lock: tells this lock from a later one taken by the same process. */
  readonly nonce: string;
  /** When it was taken (ISO 8601), for messages; `""` when unknown. */
  readonly created: string;
}

/** What can be known here about a holder. */
export type HolderState =
  /** A process of this machine and PID namespace that runs (or this process itself). */
  | { state: "running" }
  /** It has provably ended: its lock may be broken at once. */
  | { state: "gone"; why: string }
  /** A process of this machine whose pid cannot be checked from here. */
  | { state: "unchecked"; why: string }
  /** A process of another host: never judged from here. */
  | { state: "foreign"; why: string };

/** The nonces of the locks (and breaks) this process holds now. */
const heldHere = new Set<string>();

/**
 * A new record naming this process, its nonce marked as held here until
 * {@link forgetLockHolder} (marked before its file exists, so another lock of this
 * process never takes it for one an earlier process with our pid left).
 *
 * @example
 * ```ts
 * import { forgetLockHolder, newLockHolder } from "../lib/lock-holder.js";
 * const holder = newLockHolder();
 * console.log(holder.pid === process.pid); // true
 * forgetLockHolder(holder);
 * ```
 */
export function newLockHolder(): LockHolder {
  const holder: LockHolder = Object.freeze({
    pid: process.pid,
    host: hostname(),
    boot: currentBootId(),
    pidns: currentPidNamespace(),
    nonce: randomBytes(12).toString("hex"),
    created: new Date().toISOString(),
  });
  heldHere.add(holder.nonce);
  return holder;
}

/**
 * Mark `holder`'s lock as no longer held by this process.
 *
 * @example
 * ```ts
 * import { forgetLockHolder, newLockHolder } from "../lib/lock-holder.js";
 * forgetLockHolder(newLockHolder());
 * ```
 */
export function forgetLockHolder(holder: LockHolder): void {
  heldHere.delete(holder.nonce);
}

const text = (value: unknown): string => (typeof value === "string" ? value : "");

/**
 * The holder a lock file's text names, or null when it names none (a file caught between
 * its creation and its first write, or not a lock of ours). Records written before boot
 * ids and PID namespaces were both recorded (`at` in ms instead of `created`) are read
 * with the missing parts unknown.
 *
 * @example
 * ```ts
 * import { parseLockHolder } from "../lib/lock-holder.js";
 * console.log(parseLockHolder('{"pid":7,"host":"h","nonce":"n"}')?.boot); // ""
 * ```
 */
export function parseLockHolder(body: string): LockHolder | null {
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(body) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const { pid, host, nonce, at } = value;
  if (!Number.isSafeInteger(pid) || typeof host !== "string" || typeof nonce !== "string") {
    return null;
  }
  const created =
    typeof value.created === "string"
      ? value.created
      : Number.isSafeInteger(at) && (at as number) > 0
        ? new Date(at as number).toISOString()
        : "";
  return {
    pid: pid as number,
    host,
    boot: text(value.boot),
    pidns: text(value.pidns),
    nonce,
    created,
  };
}

/**
 * Judge `holder` from this process (see the module header for the rules).
 *
 * @example
 * ```ts
 * import { judgeLockHolder, newLockHolder } from "../lib/lock-holder.js";
 * console.log(judgeLockHolder(newLockHolder()).state); // "running"
 * ```
 */
export function judgeLockHolder(holder: LockHolder): HolderState {
  const here = { host: hostname(), boot: currentBootId(), pidns: currentPidNamespace() };
  const boots = holder.boot !== "" && here.boot !== "";
  if (boots && holder.boot !== here.boot) {
    if (holder.host === here.host) {
      return { state: "gone", why: "taken before this machine last started" };
    }
    return { state: "foreign", why: `on host ${JSON.stringify(holder.host)}` };
  }
  if (!boots && holder.host !== here.host) {
    return { state: "foreign", why: `on host ${JSON.stringify(holder.host)}` };
  }
  if (holder.pidns !== here.pidns) {
    return { state: "unchecked", why: "in another PID namespace (container) of this machine" };
  }
  if (holder.pid === process.pid) {
    if (heldHere.has(holder.nonce)) return { state: "running" };
    return {
      state: "gone",
      why: "naming this process's pid, in a lock this process does not hold",
    };
  }
  if (isProcessAlive(holder.pid)) return { state: "running" };
  return { state: "gone", why: "its process no longer runs" };
}

/**
 * `holder` for a message: `process 123 on host "h" since 2026-...`.
 *
 * @example
 * ```ts
 * import { formatLockHolder, parseLockHolder } from "../lib/lock-holder.js";
 * console.log(formatLockHolder(parseLockHolder('{"pid":7,"host":"h","nonce":"n"}')!)); // 'process 7 on host "h"'
 * ```
 */
export function formatLockHolder(holder: LockHolder): string {
  const since = holder.created === "" ? "" : ` since ${holder.created}`;
  return `process ${holder.pid} on host ${JSON.stringify(holder.host)}${since}`;
}
