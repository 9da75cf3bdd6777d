/**
 * Whether a process of this machine still runs, and where a process id means something:
 * what tells a lock or a temporary file left by a killed writer (kill -9, power loss)
 * from one a live writer holds. Signal 0 checks for the process without touching it.
 * Only "no such process" counts as gone; a process we may not signal (EPERM) is alive,
 * so a doubt keeps the file. A pid is only meaningful within one boot of one machine
 * (the boot id) and one PID namespace (a container has its own): a record that names
 * either of another is not judged by its pid.
 *
 * Private (src/lib).
 */
import { readFileSync, readlinkSync } from "node:fs";

/**
 * True unless no process `pid` runs on this machine.
 *
 * @example
 * ```ts
 * import { isProcessAlive } from "../lib/process-alive.js";
 * console.log(isProcessAlive(process.pid)); // true
 * ```
 */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== "ESRCH";
  }
}

/** `read()` the first time it is asked, `""` when that throws; the same answer after. */
function readOnce(read: () => string): () => string {
  let value: string | undefined;
  return () => {
    if (value === undefined) {
      try {
        value = read();
      } catch {
        value = "";
      }
    }
    return value;
  };
}

const bootId = readOnce(() => readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim());
const pidNamespace = readOnce(() => readlinkSync("/proc/self/ns/pid"));

/**
 * This boot of the machine (Linux's random boot id; `""` where there is none): a lock
 * written before the last reboot is stale whatever its process id now names.
 *
 * @example
 * ```ts
 * import { currentBootId } from "../lib/process-alive.js";
 * console.log(typeof currentBootId()); // "string"
 * ```
 */
export function currentBootId(): string {
  return bootId();
}

/**
 * This process's PID namespace (Linux: the link text of `/proc/self/ns/pid`, such as
 * `pid:[4026531836]`; `""` where there is none): a pid written by a process of another
 * namespace (another container) names some other process here, or none.
 *
 * @example
 * ```ts
 * import { currentPidNamespace } from "../lib/process-alive.js";
 * console.log(typeof currentPidNamespace()); // "string"
 * ```
 */
export function currentPidNamespace(): string {
  return pidNamespace();
}
