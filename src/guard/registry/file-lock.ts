/**
 * The cross-process lock of the JSON-file registry: a lock file beside the registry
 * (`<file>.lock`), created with `O_EXCL` so exactly one process holds it, naming its holder
 * (`{pid, host, nonce, at}`). Every change to the registry file is a read, change and
 * write under it, so no process ever writes from a state that misses another's change.
 *
 * A lock whose holder is gone is taken over: at once when the holder was a process of this
 * host and PID namespace (container) that no longer runs (killed mid-write), or that had
 * this process's pid without being this process (a restarted container); otherwise only
 * once the lock is older than `staleMs`, since a pid from elsewhere says nothing here. A holder checks it still holds the lock right before it replaces the file, so
 * a holder that stalled past `staleMs` and lost the lock refuses its write instead of
 * overwriting the new holder's. Written for local file systems (see docs/threat-model.md).
 *
 * @module
 */
import { randomBytes } from "node:crypto";
import { readlinkSync } from "node:fs";
import { link, open, rename, rm } from "node:fs/promises";
import { hostname } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { RegistryError } from "../delegation/errors.js";

/** How long to wait for the lock and when to take it from a holder that is gone. */
export interface FileLockSettings {
  /** Give up (`REGISTRY_BUSY`) after this many milliseconds of waiting. */
  readonly timeoutMs: number;
  /** A lock older than this is taken over even when its holder cannot be shown to be gone. */
  readonly staleMs: number;
}

/** Throws `REGISTRY_BUSY` unless the caller still holds the lock. */
export type LockCheck = () => Promise<void>;

/** Largest lock file read: a holder record is well under 200 bytes. */
const MAX_LOCK_BYTES = 1024;

interface LockFileState {
  text: string;
  ino: number;
  mtimeMs: number;
}

async function readLockFile(path: string): Promise<LockFileState | undefined> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, "r");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw lockIo(path, err);
  }
  try {
    const info = await handle.stat();
    const buffer = Buffer.alloc(MAX_LOCK_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, MAX_LOCK_BYTES, 0);
    return {
      text: buffer.subarray(0, bytesRead).toString("utf8"),
      ino: info.ino,
      mtimeMs: info.mtimeMs,
    };
  } catch (err) {
    throw lockIo(path, err);
  } finally {
    await handle.close();
  }
}

interface Holder {
  pid: number;
  host: string;
  /** The holder's PID namespace (Linux: the inode of /proc/self/ns/pid), "" elsewhere. */
  pidns: string;
  nonce: string;
}

/** This process's PID namespace: pids of another namespace cannot be checked from here. */
const PID_NAMESPACE = (() => {
  try {
    return readlinkSync("/proc/self/ns/pid");
  } catch {
    return "";
  }
})();

/** The nonces of the locks this process holds now. */
const heldHere = new Set<string>();

function readHolder(text: string): Holder | undefined {
  try {
    const value = JSON.parse(text) as Partial<Holder> | null;
    if (
      typeof value?.pid === "number" &&
      typeof value.host === "string" &&
      typeof value.pidns === "string" &&
      typeof value.nonce === "string"
    ) {
      return { pid: value.pid, host: value.host, pidns: value.pidns, nonce: value.nonce };
    }
  } catch {
    // A lock file cut short by a crash between create and write: judged by its age.
  }
  return undefined;
}

function isRunning(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

function isStale(state: LockFileState, staleMs: number): boolean {
  const holder = readHolder(state.text);
  if (holder !== undefined && holder.host === hostname() && holder.pidns === PID_NAMESPACE) {
    if (holder.pid === process.pid) return !heldHere.has(holder.nonce);
    if (!isRunning(holder.pid)) return true;
  }
  return Date.now() - state.mtimeMs > staleMs;
}

/**
 * Remove the lock at `path` if it is stale. Removes exactly the lock it judged: it moves
 * the file aside and puts it back when another process replaced it in the meantime.
 * Returns whether the caller should try to take the lock again at once.
 */
async function breakIfStale(path: string, staleMs: number): Promise<boolean> {
  const judged = await readLockFile(path);
  if (judged === undefined) return true;
  if (!isStale(judged, staleMs)) return false;
  const aside = `${path}.${randomBytes(6).toString("hex")}.stale`;
  try {
    await rename(path, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return true;
    throw lockIo(path, err);
  }
  const moved = await readLockFile(aside);
  if (moved !== undefined && (moved.ino !== judged.ino || moved.text !== judged.text)) {
    // A live lock taken between our look and our move: give it back to its holder.
    await link(aside, path).catch(() => {});
  }
  await rm(aside, { force: true });
  return true;
}

async function tryCreate(path: string, body: string): Promise<boolean> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, "wx", 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw lockIo(path, err);
  }
  try {
    await handle.writeFile(body, "utf8");
  } catch (err) {
    await handle.close();
    await rm(path, { force: true });
    throw lockIo(path, err);
  }
  await handle.close();
  return true;
}

async function describeHolder(path: string): Promise<string> {
  const state = await readLockFile(path).catch(() => undefined);
  const holder = state === undefined ? undefined : readHolder(state.text);
  return holder === undefined ? "another process" : `process ${holder.pid} on ${holder.host}`;
}

async function acquire(path: string, settings: FileLockSettings): Promise<Holder> {
  const holder: Holder = {
    pid: process.pid,
    host: hostname(),
    pidns: PID_NAMESPACE,
    nonce: randomBytes(12).toString("hex"),
  };
  const body = JSON.stringify({ ...holder, at: Date.now() });
  const deadline = Date.now() + settings.timeoutMs;
  for (let attempt = 0; ; attempt++) {
    // Marked before the file exists: another lock of this process never takes it for stale.
    heldHere.add(holder.nonce);
    if (await tryCreate(path, body)) return holder;
    heldHere.delete(holder.nonce);
    if (await breakIfStale(path, settings.staleMs)) continue;
    if (Date.now() >= deadline) {
      throw new RegistryError(
        "REGISTRY_BUSY",
        `${path} is held by ${await describeHolder(path)} for longer than ${settings.timeoutMs} ms; if no airlock process uses the registry, remove the lock file`,
      );
    }
    // Jittered backoff, 2 ms growing to 50 ms: writers hold the lock for milliseconds.
    await sleep(Math.min(50, 2 * 1.5 ** attempt) * (0.5 + Math.random()));
  }
}

/**
 * Run `fn` holding the lock file `path`. `fn` receives a check to call right before it
 * makes its change visible.
 *
 * @internal
 * @throws {RegistryError} `REGISTRY_BUSY` when the lock cannot be had within
 * `settings.timeoutMs` (or was lost), `REGISTRY_IO` when the lock file cannot be made.
 */
export async function withFileLock<T>(
  path: string,
  settings: FileLockSettings,
  fn: (stillHeld: LockCheck) => Promise<T>,
): Promise<T> {
  const holder = await acquire(path, settings);
  const ours = (state: LockFileState | undefined) =>
    state !== undefined && readHolder(state.text)?.nonce === holder.nonce;
  const stillHeld: LockCheck = async () => {
    if (!ours(await readLockFile(path))) {
      throw new RegistryError(
        "REGISTRY_BUSY",
        `lost the lock ${path} (held past ${settings.staleMs} ms and taken over); nothing was written`,
      );
    }
  };
  try {
    return await fn(stillHeld);
  } finally {
    // Only our own lock is removed: one taken over from us belongs to its new holder.
    if (ours(await readLockFile(path).catch(() => undefined))) {
      await rm(path, { force: true }).catch(() => {});
    }
    heldHere.delete(holder.nonce);
  }
}

function lockIo(path: string, err: unknown): RegistryError {
  if (err instanceof RegistryError) return err;
  return new RegistryError(
    "REGISTRY_IO",
    `cannot use the lock file ${path}: ${(err as Error).message}`,
    {
      cause: err,
    },
  );
}
