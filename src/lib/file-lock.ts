/**
 * The one exclusive lock between processes on a file, held while a writer re-reads,
 * changes and replaces it: two `airlock pin` runs on one pin file, or a `delegate serve`
 * and a `delegate revoke` on one JSON-file registry, otherwise each write their own view
 * and one loses the other's change.
 *
 * The lock is a file beside the target (`<file>.lock`), created with O_EXCL (atomic on
 * local file systems) and naming who took it ({@link LockHolder}: pid, host, boot id, PID
 * namespace, a random nonce). A lock whose holder has provably ended is broken at once,
 * so a `kill -9` costs the next writer nothing; the rules are in src/lib/lock-holder.ts
 * (same host and boot, same PID namespace, dead pid or a pid of ours we do not hold).
 * A holder that runs, or cannot be checked from here, is waited for up to `timeoutMs`.
 * There is no heartbeat: a slow writer never loses its lock to a timer, unless the
 * caller asks for `staleMs`, after which a lock of this machine is taken over even from
 * a holder that may run (the JSON registry's `staleLockMs`: a lock of another container
 * must not block a registry for ever). A lock of another host is never taken over
 * automatically; the refusal names it, for a person to remove. A lock file that holds no
 * record is one caught between its creation and its first write: debris once older than
 * {@link UNPARSED_LOCK_GRACE_MS}. A lock path that is a directory, a symbolic link or
 * another special file is refused at once.
 *
 * Breaking is serialised by a second, short-lived file (`<lock>.break`, naming its
 * breaker), and the breaker removes the lock only after re-reading it under that file
 * and finding the very lock it judged (same inode, time and nonce), so two processes
 * that both judged one lock stale cannot remove a fresh lock taken in between. A holder
 * checks its nonce is still in the lock right before it commits (`stillHeld`, called by
 * writeFileAtomic's `beforeCommit`) and before it removes the lock.
 *
 * Limits, documented in docs/threat-model.md: local file systems only (not NFS or SMB,
 * whose O_EXCL and attribute caching cannot be trusted across hosts); between a holder's
 * last check and its rename there is an instant in which a lock taken over by age
 * (`staleMs`) lets two writers commit; a `.break` file abandoned by a killed breaker is
 * removed by the next breaker (after {@link BREAK_GRACE_MS}, or at once when its process
 * is gone), and two processes removing one such file at the same instant can both
 * break, which the inode-and-nonce check still makes harmless unless the lock changed.
 *
 * Private (src/lib): callers map a refusal to their own error codes. See
 * docs/decisions.md ("One lock file and one atomic write for every file several
 * processes change").
 */
import { constants } from "node:fs";
import { type FileHandle, open, unlink } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import {
  forgetLockHolder,
  formatLockHolder,
  judgeLockHolder,
  type LockHolder,
  newLockHolder,
  parseLockHolder,
} from "./lock-holder.js";

/**
 * Age after which a lock file that holds no readable record is debris (ms).
 *
 * @example
 * ```ts
 * import { UNPARSED_LOCK_GRACE_MS } from "../lib/file-lock.js";
 * console.log(UNPARSED_LOCK_GRACE_MS); // 10000
 * ```
 */
export const UNPARSED_LOCK_GRACE_MS = 10_000;

/**
 * Age after which a `.break` file is debris whoever wrote it: breaking takes
 * microseconds (ms).
 *
 * @example
 * ```ts
 * import { BREAK_GRACE_MS } from "../lib/file-lock.js";
 * console.log(BREAK_GRACE_MS); // 10000
 * ```
 */
export const BREAK_GRACE_MS = 10_000;

/** Largest lock file read: a record is well under 300 bytes. */
const MAX_LOCK_BYTES = 4096;
/** Retries at once after a lock went away, before the next wait counts. */
const QUICK_RETRIES = 3;
/** Longest pause between two tries (ms): holders keep the lock for milliseconds. */
const MAX_PAUSE_MS = 50;
/** A lock names a pid, a host and a boot id: nothing another user cannot already see. */
const LOCK_FILE_MODE = 0o644;
/** Never follow a link, never block on a FIFO: a lock path is ours or refused. */
const OPEN_LOCK = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** Options of {@link acquireFileLock}. The caller validates them. */
export interface FileLockOptions {
  /** How long to wait for a holder that may still run (ms; 0 tries once). */
  timeoutMs: number;
  /**
   * Take over a lock of this machine older than this (ms) even when its holder may run
   * or cannot be checked. Absent: never by age, a slow holder keeps its lock.
   */
  staleMs?: number;
}

/** A lock this process holds. */
export interface FileLock {
  readonly path: string;
  /** Whether the lock file still holds this lock's nonce (nobody broke it). */
  stillHeld(): Promise<boolean>;
  /** Remove the lock file, if it is still this lock's. Never throws; once is enough. */
  release(): Promise<void>;
}

/** Why a lock could not be had: `held` (a holder past the timeout) or `unavailable` (cannot be made). */
export interface LockRefusal {
  ok: false;
  fault: "held" | "unavailable";
  reason: string;
  /** Who holds it, when its file says. */
  holder?: LockHolder;
  cause?: unknown;
}

/** The lock, or why not. */
export type LockAttempt = { ok: true; lock: FileLock } | LockRefusal;

/** A lock file as it is now. */
type Seen =
  | { kind: "gone" }
  /** Not a regular file of ours (a directory, a link, a device): never waited for. */
  | { kind: "unusable"; reason: string }
  /** It exists but we may not read it: judged as a holder that may run. */
  | { kind: "unreadable"; reason: string }
  | { kind: "lock"; holder: LockHolder | null; ino: number; mtimeMs: number };
type LockSeen = Extract<Seen, { kind: "lock" }>;

const errno = (err: unknown) => (err as NodeJS.ErrnoException | null)?.code ?? "error";

async function look(path: string): Promise<Seen> {
  let handle: FileHandle;
  try {
    handle = await open(path, OPEN_LOCK);
  } catch (err) {
    const code = errno(err);
    if (code === "ENOENT") return { kind: "gone" };
    if (code === "ELOOP") return { kind: "unusable", reason: `${path} is a symbolic link` };
    return { kind: "unreadable", reason: `${path} cannot be read (${code})` };
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) {
      return { kind: "unusable", reason: `${path} is a directory or another special file` };
    }
    const buffer = Buffer.alloc(MAX_LOCK_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, MAX_LOCK_BYTES, 0);
    const holder = parseLockHolder(buffer.toString("utf8", 0, bytesRead));
    return { kind: "lock", holder, ino: info.ino, mtimeMs: info.mtimeMs };
  } catch (err) {
    return { kind: "unreadable", reason: `${path} cannot be read (${errno(err)})` };
  } finally {
    await handle.close().catch(() => {});
  }
}

/** Why `seen` may be broken now, or null while its holder may still hold it. */
function staleness(seen: LockSeen, staleMs: number | undefined): string | null {
  const age = Date.now() - seen.mtimeMs;
  if (seen.holder === null) {
    return age > UNPARSED_LOCK_GRACE_MS
      ? `it names no holder and is older than ${UNPARSED_LOCK_GRACE_MS} ms`
      : null;
  }
  const judged = judgeLockHolder(seen.holder);
  if (judged.state === "gone") return judged.why;
  if (judged.state === "foreign") return null;
  return staleMs !== undefined && age > staleMs ? `it is older than ${staleMs} ms` : null;
}

/** Create `path` holding `text`; false when it exists. */
async function createExclusive(path: string, text: string): Promise<boolean> {
  let handle: FileHandle;
  try {
    handle = await open(path, "wx", LOCK_FILE_MODE);
  } catch (err) {
    if (errno(err) === "EEXIST") return false;
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
  return true;
}

const sameLock = (a: LockSeen, b: LockSeen) =>
  a.ino === b.ino && a.mtimeMs === b.mtimeMs && a.holder?.nonce === b.holder?.nonce;

/** Remove a `.break` file whose breaker was killed mid-way (or is long past its work). */
async function clearAbandonedBreak(breaker: string): Promise<void> {
  const seen = await look(breaker);
  if (seen.kind !== "lock") return;
  const abandoned =
    Date.now() - seen.mtimeMs > BREAK_GRACE_MS ||
    (seen.holder !== null && judgeLockHolder(seen.holder).state === "gone");
  if (abandoned) await unlink(breaker).catch(() => {});
}

/**
 * Remove the stale lock `judged`, unless another breaker is at work or it changed
 * meanwhile. True when the caller should try to take the lock again at once.
 */
async function breakStale(path: string, judged: LockSeen): Promise<boolean> {
  const breaker = `${path}.break`;
  const record = newLockHolder();
  try {
    try {
      if (!(await createExclusive(breaker, `${JSON.stringify(record)}\n`))) {
        await clearAbandonedBreak(breaker);
        return false;
      }
    } catch {
      return false; // The caller's next attempt reports what is wrong.
    }
    try {
      const now = await look(path);
      if (now.kind === "gone") return true;
      if (now.kind !== "lock") return false;
      // Replaced since we judged it: the new lock is judged afresh.
      if (!sameLock(now, judged)) return true;
      await unlink(path);
      return true;
    } catch (err) {
      return errno(err) === "ENOENT";
    } finally {
      await unlink(breaker).catch(() => {});
    }
  } finally {
    forgetLockHolder(record);
  }
}

function handleFor(path: string, holder: LockHolder): FileLock {
  const stillHeld = async () => {
    const seen = await look(path);
    return seen.kind === "lock" && seen.holder?.nonce === holder.nonce;
  };
  let released = false;
  return Object.freeze({
    path,
    stillHeld,
    async release() {
      if (released) return;
      released = true;
      try {
        if (await stillHeld()) await unlink(path).catch(() => {});
      } finally {
        forgetLockHolder(holder);
      }
    },
  });
}

/** The refusal once the wait is over, naming the holder and what to do. */
function timedOut(path: string, timeoutMs: number, seen: Seen, stale: string | null): LockRefusal {
  let who: string;
  let holder: LockHolder | undefined;
  if (seen.kind === "lock" && seen.holder !== null) {
    holder = seen.holder;
    const judged = judgeLockHolder(holder);
    const note =
      judged.state === "unchecked" ? ` (${judged.why}: its pid cannot be checked here)` : "";
    who = `${path} is held by ${formatLockHolder(holder)}${note}`;
  } else if (seen.kind === "lock") {
    who = `${path} is being created by another process`;
  } else if (seen.kind === "unreadable") {
    who = `${path} is held by a process whose lock file cannot be read (${seen.reason})`;
  } else {
    who = `${path} keeps being taken by other processes`;
  }
  const broken = stale === null ? "" : `a stale lock (${stale}) could not be removed: `;
  return {
    ok: false,
    fault: "held",
    reason: `timed out after ${timeoutMs} ms: ${broken}${who}; if that process is gone, remove ${path}`,
    ...(holder === undefined ? {} : { holder }),
  };
}

/**
 * Take the lock file `path` (beside the file it guards), breaking a stale one and
 * waiting for a live holder up to `timeoutMs`.
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
  const holder = newLockHolder();
  const text = `${JSON.stringify(holder)}\n`;
  const deadline = Date.now() + options.timeoutMs;
  let quick = 0;
  let pause = 2;
  for (;;) {
    try {
      if (await createExclusive(path, text)) return { ok: true, lock: handleFor(path, holder) };
    } catch (cause) {
      forgetLockHolder(holder);
      const reason = `cannot create the lock file ${path} (${errno(cause)})`;
      return { ok: false, fault: "unavailable", reason, cause };
    }
    const seen = await look(path);
    if (seen.kind === "unusable") {
      forgetLockHolder(holder);
      return { ok: false, fault: "unavailable", reason: `${seen.reason}, not a lock file` };
    }
    const stale = seen.kind === "lock" ? staleness(seen, options.staleMs) : null;
    const cleared =
      seen.kind === "gone" || (stale !== null && (await breakStale(path, seen as LockSeen)));
    // A lock that went away is tried again at once, even with no time left: a dead
    // holder costs nothing. A few times in a row only, so contention still waits.
    if (cleared && quick < QUICK_RETRIES) {
      quick++;
      continue;
    }
    if (Date.now() >= deadline) {
      forgetLockHolder(holder);
      // A stale lock that was removed and taken again is contention, not a stuck lock.
      if (cleared) return timedOut(path, options.timeoutMs, { kind: "gone" }, null);
      return timedOut(path, options.timeoutMs, seen, stale);
    }
    quick = 0;
    await sleep(pause * (0.5 + Math.random()));
    pause = Math.min(pause * 2, MAX_PAUSE_MS);
  }
}

/**
 * Run `work` holding the lock file `path` ({@link acquireFileLock}), and release it
 * after, whatever `work` does. A lock that cannot be had throws what `refuse` makes of
 * the refusal (the caller's own error code), and `work` does not run.
 *
 * @example
 * ```ts
 * import { withFileLock } from "../lib/file-lock.js";
 * const held = await withFileLock(
 *   "airlock.pins.json.lock",
 *   { timeoutMs: 1_000 },
 *   (refusal) => new Error(refusal.reason),
 *   (lock) => lock.stillHeld(),
 * );
 * console.log(held); // true
 * ```
 */
export async function withFileLock<T>(
  path: string,
  options: FileLockOptions,
  refuse: (refusal: LockRefusal) => Error,
  work: (lock: FileLock) => Promise<T>,
): Promise<T> {
  const attempt = await acquireFileLock(path, options);
  if (!attempt.ok) throw refuse(attempt);
  try {
    return await work(attempt.lock);
  } finally {
    await attempt.lock.release();
  }
}
