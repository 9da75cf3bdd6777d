/**
 * An exclusive lock between processes on one file, held while a writer re-reads, merges
 * and replaces it: two `airlock pin` runs on one pin file otherwise each write their own
 * view and one loses the other's section.
 *
 * The lock is a file beside the target, created with O_EXCL (atomic on local file
 * systems) and holding who took it: process id, host name, boot id and a random nonce.
 * A lock whose process no longer runs on this host (or that was taken before the last
 * reboot) is stale and is broken at once, so a `kill -9` costs the next run nothing; a
 * live holder is waited for, up to a timeout. There is no heartbeat, so a writer that is
 * slow (a 64 MiB file on a busy machine) never loses its lock to a timer. Liveness is
 * only known on the same host: a lock from another host is never broken automatically
 * (the refusal names it, for a person to remove). A lock file that cannot be parsed is
 * one caught between its creation and its first write; it is stale once older than
 * {@link UNPARSED_LOCK_GRACE_MS}.
 *
 * Breaking is serialised by a second, short-lived file (`<lock>.break`), and a lock is
 * only removed by its breaker after re-reading it under that file, so two processes that
 * both judged one lock stale cannot remove a fresh lock taken in between. The holder
 * checks its nonce is still in the lock before it commits a write and before it removes
 * the lock. See docs/decisions.md ("Pin-file writes: a lock file, not proper-lockfile").
 *
 * Private (src/lib): callers map a refusal to their own error codes.
 */
import { randomBytes } from "node:crypto";
import { type FileHandle, open, stat, unlink } from "node:fs/promises";
import { hostname } from "node:os";
import { currentBootId, isProcessAlive } from "./process-alive.js";

/** Age after which a lock file that holds no readable record is debris (ms). */
export const UNPARSED_LOCK_GRACE_MS = 10_000;
/** Age after which a `.break` file is debris: breaking takes microseconds (ms). */
const BREAK_GRACE_MS = 10_000;

/** Options of {@link acquireFileLock}. */
export interface FileLockOptions {
  /** How long to wait for a live holder (ms). */
  timeoutMs: number;
}

/** A lock this process holds. */
export interface FileLock {
  readonly path: string;
  /** Whether the lock file still holds this lock's nonce (nobody broke it). */
  stillHeld(): Promise<boolean>;
  /** Remove the lock file, if it is still this lock's. Never throws. */
  release(): Promise<void>;
}

/** Who holds a lock, as its file says. */
export interface LockHolder {
  pid: number;
  host: string;
  boot: string;
  nonce: string;
  created: string;
}

/** The lock, or why not: `held` (a live holder past the timeout) or `unavailable` (cannot create it). */
export type LockAttempt =
  | { ok: true; lock: FileLock }
  | { ok: false; fault: "held" | "unavailable"; reason: string; cause?: unknown };

interface Seen {
  holder: LockHolder | null;
  ino: number;
  mtimeMs: number;
}

function isHolder(value: unknown): value is LockHolder {
  const v = value as Record<string, unknown> | null;
  return (
    typeof v === "object" &&
    v !== null &&
    Number.isSafeInteger(v.pid) &&
    typeof v.host === "string" &&
    typeof v.boot === "string" &&
    typeof v.nonce === "string" &&
    typeof v.created === "string"
  );
}

/** The lock file as it is now; null when it is gone; "unreadable" when we may not read it. */
async function look(path: string): Promise<Seen | null | "unreadable"> {
  let handle: FileHandle;
  try {
    handle = await open(path, "r");
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT" ? null : "unreadable";
  }
  try {
    const info = await handle.stat();
    const text = info.size <= 4096 ? await handle.readFile("utf8") : "";
    let holder: LockHolder | null = null;
    try {
      const parsed: unknown = JSON.parse(text);
      if (isHolder(parsed)) holder = parsed;
    } catch {
      // Caught between creation and write, or not ours: judged by age below.
    }
    return { holder, ino: info.ino, mtimeMs: info.mtimeMs };
  } catch {
    return "unreadable";
  } finally {
    await handle.close().catch(() => {});
  }
}

function isStale(seen: Seen): boolean {
  const { holder } = seen;
  if (holder === null) return Date.now() - seen.mtimeMs > UNPARSED_LOCK_GRACE_MS;
  if (holder.host !== hostname()) return false;
  const boot = currentBootId();
  if (holder.boot !== "" && boot !== "" && holder.boot !== boot) return true;
  return !isProcessAlive(holder.pid);
}

function describe(seen: Seen | "unreadable", path: string): string {
  if (seen === "unreadable") return `${path} is held by a process whose lock file cannot be read`;
  const h = seen.holder;
  if (h === null) return `${path} is being created by another process`;
  const where = h.host === hostname() ? "" : ` on host ${JSON.stringify(h.host)}`;
  return `${path} is held by process ${h.pid}${where} since ${h.created}; if that process is gone, remove ${path}`;
}

async function createExclusive(path: string, text: string): Promise<"created" | "exists"> {
  let handle: FileHandle;
  try {
    handle = await open(path, "wx", 0o644);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return "exists";
    throw err;
  }
  try {
    await handle.writeFile(text);
  } catch (err) {
    await handle.close().catch(() => {});
    await unlink(path).catch(() => {});
    throw err;
  }
  await handle.close();
  return "created";
}

/** Remove a stale lock, unless another breaker got there first or it changed meanwhile. */
async function breakStale(path: string, judged: Seen): Promise<void> {
  const breaker = `${path}.break`;
  try {
    if ((await createExclusive(breaker, `${process.pid}\n`)) === "exists") {
      const info = await stat(breaker).catch(() => null);
      if (info && Date.now() - info.mtimeMs > BREAK_GRACE_MS) await unlink(breaker).catch(() => {});
      return;
    }
  } catch {
    return; // The caller's next attempt reports what is wrong.
  }
  try {
    const now = await look(path);
    if (
      now !== null &&
      now !== "unreadable" &&
      now.ino === judged.ino &&
      now.holder?.nonce === judged.holder?.nonce
    ) {
      await unlink(path).catch(() => {});
    }
  } finally {
    await unlink(breaker).catch(() => {});
  }
}

function handleFor(path: string, nonce: string): FileLock {
  const stillHeld = async () => {
    const seen = await look(path);
    return seen !== null && seen !== "unreadable" && seen.holder?.nonce === nonce;
  };
  return {
    path,
    stillHeld,
    async release() {
      if (await stillHeld()) await unlink(path).catch(() => {});
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Take the lock file `path` (created beside the file it guards), waiting for a live
 * holder up to `timeoutMs` and breaking a stale one.
 *
 * @example
 * ```ts
 * import { acquireFileLock } from "../lib/file-lock.js";
 * const attempt = await acquireFileLock("airlock.pins.json.lock", { timeoutMs: 30_000 });
 * if (attempt.ok) await attempt.lock.release();
 * ```
 */
export async function acquireFileLock(
  path: string,
  options: FileLockOptions,
): Promise<LockAttempt> {
  const holder: LockHolder = {
    pid: process.pid,
    host: hostname(),
    boot: currentBootId(),
    nonce: randomBytes(12).toString("hex"),
    created: new Date().toISOString(),
  };
  const text = `${JSON.stringify(holder)}\n`;
  const deadline = Date.now() + options.timeoutMs;
  let delay = 5;
  for (;;) {
    try {
      if ((await createExclusive(path, text)) === "created") {
        return { ok: true, lock: handleFor(path, holder.nonce) };
      }
    } catch (cause) {
      const code = (cause as NodeJS.ErrnoException).code ?? "error";
      return {
        ok: false,
        fault: "unavailable",
        reason: `cannot create the lock file ${path} (${code})`,
        cause,
      };
    }
    const seen = await look(path);
    const stale = seen !== null && seen !== "unreadable" && isStale(seen);
    if (stale) await breakStale(path, seen as Seen);
    if (Date.now() >= deadline) {
      const why = seen === null ? `${path} keeps being taken` : describe(seen, path);
      return {
        ok: false,
        fault: "held",
        reason: `timed out after ${options.timeoutMs} ms: ${stale ? `a stale lock could not be removed: ${why}` : why}`,
      };
    }
    // A lock released meanwhile is tried again at once, a broken one almost at once (a
    // stale lock that cannot be removed must not spin a core); a live one is waited for.
    if (seen === null) continue;
    if (stale) {
      await sleep(1);
      continue;
    }
    await sleep(delay + Math.floor(Math.random() * delay));
    delay = Math.min(delay * 2, 100);
  }
}
