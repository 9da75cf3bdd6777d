/**
 * A delegation registry persisted as one JSON file that several processes may share (a
 * `serve`, `airlock delegate revoke` runs, a second `serve`) on one host:
 *
 * - every change is a read, change and write under the registry's lock file
 *   (`file-lock.ts`, the shared lock of src/lib/file-lock.ts): re-read the file, apply
 *   the change to what it holds (limits are checked there), and replace the file with
 *   the shared atomic write (src/lib/atomic-write.ts: a temporary file flushed and
 *   renamed over it, the folder flushed; through a symbolic link; mode kept, a new file
 *   0600); temporary files a killed writer left are removed under the lock;
 * - every read first reloads the file when another process replaced it, so a revocation
 *   made elsewhere counts from the next question on.
 *
 * A replaced file is noticed by its identity (device, inode, size, modification and change
 * times in nanoseconds). Two replacements within one timestamp tick can leave the same
 * identity (the second reusing the first's freed inode, with the same size), so a file
 * last seen less than {@link RACY_MS} after it was replaced is compared by content instead
 * (git's "racy clean" rule).
 *
 * @module
 */
import { createHash } from "node:crypto";
import type { BigIntStats } from "node:fs";
import { open, stat } from "node:fs/promises";
import { resolve } from "node:path";
import {
  removeStaleTemporaries,
  resolveWriteTarget,
  writeFileAtomic,
} from "../../lib/atomic-write.js";
import { RegistryError } from "../delegation/errors.js";
import { formatRegistryFile, MAX_REGISTRY_FILE_BYTES, parseRegistryFile } from "./file-format.js";
import { type FileLockSettings, type LockCheck, withFileLock } from "./file-lock.js";
import { MemoryRegistry } from "./memory.js";
import type { RegisteredChain, RegistryLimits } from "./registry.js";

export { MAX_REGISTRY_FILE_BYTES, REGISTRY_FILE_VERSION } from "./file-format.js";

/**
 * Default for `FileRegistryOptions.lockTimeoutMs`: how long a change waits for another
 * process's lock before it fails with `REGISTRY_BUSY`.
 *
 * @example
 * ```ts
 * import { DEFAULT_LOCK_TIMEOUT_MS, openFileRegistry } from "agent-airlock/guard";
 * await openFileRegistry("delegations.json", { lockTimeoutMs: DEFAULT_LOCK_TIMEOUT_MS * 3 });
 * ```
 */
export const DEFAULT_LOCK_TIMEOUT_MS = 10_000;
/**
 * Default for `FileRegistryOptions.staleLockMs`: a lock older than this is taken over even
 * when its holder may still run. Writers hold it for milliseconds.
 *
 * @example
 * ```ts
 * import { DEFAULT_STALE_LOCK_MS } from "agent-airlock/guard";
 * console.log(DEFAULT_STALE_LOCK_MS); // 30000
 * ```
 */
export const DEFAULT_STALE_LOCK_MS = 30_000;

/** A file replaced less than this many milliseconds before we last read it is compared by content. */
const RACY_MS = 3000;

/** Options of {@link openFileRegistry}: the registry limits and the lock's timing. */
export interface FileRegistryOptions extends RegistryLimits {
  /**
   * Most milliseconds a change waits for the lock another process holds, then fails with
   * `REGISTRY_BUSY` (default {@link DEFAULT_LOCK_TIMEOUT_MS}, 10,000; 0 to 600,000).
   */
  lockTimeoutMs?: number;
  /**
   * A lock older than this many milliseconds is taken over even when its holder may still
   * run (default {@link DEFAULT_STALE_LOCK_MS}, 30,000; 1,000 to 3,600,000). The lock of a
   * process of this host and PID namespace that has ended is taken over at once.
   */
  staleLockMs?: number;
}

function readMs(value: unknown, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new RegistryError(
      "REGISTRY_MISCONFIGURED",
      `${name} must be a whole number of milliseconds from ${min} to ${max}; got ${String(value).slice(0, 40)}`,
    );
  }
  return value;
}

/** The lock settings of `options`, validated. */
function readLockSettings(options: FileRegistryOptions | undefined): FileLockSettings {
  return Object.freeze({
    timeoutMs: readMs(options?.lockTimeoutMs, "lockTimeoutMs", DEFAULT_LOCK_TIMEOUT_MS, 0, 600_000),
    staleMs: readMs(options?.staleLockMs, "staleLockMs", DEFAULT_STALE_LOCK_MS, 1000, 3_600_000),
  });
}

/** What we last read or wrote: the file's identity, its content digest, when we read it. */
interface Seen {
  identity: string;
  digest: string;
  /** Milliseconds since the epoch when that content was known to be current. */
  verifiedAt: number;
  /** The file's change time, milliseconds. */
  changedAt: number;
}

function identity(info: BigIntStats): string {
  return `${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
}

function sha256(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

function io(what: string, path: string, err: unknown): RegistryError {
  return new RegistryError("REGISTRY_IO", `cannot ${what} ${path}: ${(err as Error).message}`, {
    cause: err,
  });
}

/**
 * A registry stored in a JSON file. Open it with {@link openFileRegistry}.
 *
 * Changes from any number of processes on one host are never lost: each is made under the
 * registry's lock file on what the file holds at that moment. Every read first reloads the
 * file when another process (such as `airlock delegate revoke`) replaced it, so a
 * revocation made elsewhere is honoured on the next question. Operations of one registry
 * object run one at a time.
 *
 * @example
 * ```ts
 * import { openFileRegistry } from "agent-airlock/guard";
 * const registry = await openFileRegistry("delegations.json");
 * await registry.revoke("link-2");
 * await registry.close();
 * ```
 */
export class FileRegistry extends MemoryRegistry {
  /** The path as given. */
  readonly path: string;
  readonly #lock: FileLockSettings;
  /** The file itself (links and relative parts resolved), and its lock file. */
  #file: string;
  #tail: Promise<unknown> = Promise.resolve();
  /** Undefined until a load succeeds: every operation retries it (and fails) till then. */
  #seen: Seen | undefined;

  constructor(path: string, options?: FileRegistryOptions) {
    super(options);
    this.path = path;
    this.#file = resolve(path);
    this.#lock = readLockSettings(options);
  }

  /** Load the file (a missing file is created empty, under the lock). */
  async load(): Promise<void> {
    this.#file = await resolveFile(this.path);
    // An existing file is only read: reading needs no lock (files are replaced whole, by
    // rename), so a registry in a folder this process cannot write still answers reads.
    const missing = await this.#exclusive(() => this.#refresh(true));
    if (missing) await this.#change(async () => undefined);
  }

  /** Run operations one at a time. */
  #exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.#tail.then(fn);
    this.#tail = next.catch(() => {});
    return next;
  }

  /** A read: on a fresh view of the file. */
  #view<T>(fn: () => Promise<T>): Promise<T> {
    return this.#exclusive(async () => {
      await this.#refresh(false);
      return fn();
    });
  }

  /** A change: under the lock, on the file as it is now, written back before the lock goes. */
  #change<T>(fn: () => Promise<T>): Promise<T> {
    return this.#exclusive(() =>
      withFileLock(`${this.#file}.lock`, this.#lock, async (stillHeld) => {
        await removeStaleTemporaries(this.#file);
        const missing = await this.#refresh(true);
        const before = this.changes;
        const result = await fn();
        // A file deleted under us is written back with what we hold (revocations included).
        if (this.changes !== before || missing) {
          try {
            await this.#write(stillHeld);
          } catch (err) {
            // Memory may now hold what the file does not: reload before the next answer.
            this.#seen = undefined;
            throw err;
          }
        }
        return result;
      }),
    );
  }

  /**
   * Make memory match the file. `exact` (under the lock) always compares content; otherwise
   * an unchanged identity is trusted unless the file was replaced just before we read it.
   * Returns true when there is no file.
   */
  async #refresh(exact: boolean): Promise<boolean> {
    const seen = this.#seen;
    if (seen !== undefined && !exact) {
      const info = await this.#stat();
      // Deleted under us: keep what we hold; the next change writes it back.
      if (info === undefined) return true;
      if (identity(info) === seen.identity && seen.verifiedAt - seen.changedAt >= RACY_MS) {
        return false;
      }
    }
    const verifiedAt = Date.now();
    const file = await this.#read();
    if (file === undefined) {
      if (seen !== undefined) return true;
      if (!exact) {
        throw new RegistryError(
          "REGISTRY_IO",
          `${this.path} does not exist (deleted, or never written)`,
        );
      }
      this.restore({ chains: [], revoked: [] });
      return true;
    }
    const next: Seen = {
      identity: identity(file.info),
      digest: sha256(file.text),
      verifiedAt,
      changedAt: Number(file.info.ctimeNs / 1_000_000n),
    };
    if (seen === undefined || next.digest !== seen.digest) {
      this.#seen = undefined;
      try {
        this.restore(parseRegistryFile(file.text, this.path));
      } catch (err) {
        if (err instanceof RegistryError && err.code !== "REGISTRY_FULL") {
          throw new RegistryError("REGISTRY_INVALID", `${this.path}: ${err.message}`, {
            cause: err,
          });
        }
        throw err;
      }
    }
    this.#seen = next;
    return false;
  }

  async #stat(): Promise<BigIntStats | undefined> {
    try {
      return await stat(this.#file, { bigint: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw io("stat", this.path, err);
    }
  }

  /** The file's text and identity, read from one handle; undefined when there is none. */
  async #read(): Promise<{ text: string; info: BigIntStats } | undefined> {
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(this.#file, "r");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw io("read", this.path, err);
    }
    try {
      const info = await handle.stat({ bigint: true });
      if (info.size > BigInt(MAX_REGISTRY_FILE_BYTES)) {
        throw new RegistryError(
          "REGISTRY_INVALID",
          `${this.path} is larger than ${MAX_REGISTRY_FILE_BYTES} bytes`,
        );
      }
      return { text: await handle.readFile("utf8"), info };
    } catch (err) {
      if (err instanceof RegistryError) throw err;
      throw io("read", this.path, err);
    } finally {
      await handle.close();
    }
  }

  async #write(stillHeld: LockCheck): Promise<void> {
    const body = formatRegistryFile(this.snapshot());
    try {
      await writeFileAtomic(this.#file, body, { newFileMode: 0o600, beforeCommit: stillHeld });
    } catch (err) {
      if (err instanceof RegistryError) throw err;
      throw io("write", this.path, err);
    }
    const info = await this.#stat();
    if (info === undefined) throw io("write", this.path, new Error("the file vanished"));
    this.#seen = {
      identity: identity(info),
      digest: sha256(body),
      verifiedAt: Date.now(),
      changedAt: Number(info.ctimeNs / 1_000_000n),
    };
  }

  override register(chain: readonly string[]): Promise<RegisteredChain> {
    return this.#change(() => super.register(chain));
  }

  override unregister(id: string): Promise<boolean> {
    return this.#change(() => super.unregister(id));
  }

  override revoke(jti: string): Promise<void> {
    return this.#change(() => super.revoke(jti));
  }

  override chainsFor(agent: string): Promise<RegisteredChain[]> {
    return this.#view(() => super.chainsFor(agent));
  }

  override list(): Promise<RegisteredChain[]> {
    return this.#view(() => super.list());
  }

  override isRevoked(jti: string): Promise<boolean> {
    return this.#view(() => super.isRevoked(jti));
  }

  override async close(): Promise<void> {
    await this.#tail;
  }
}

/**
 * The file a registry path names: through a link to its target (so a write replaces the
 * target, not the link), and the same for every spelling of the path, so that every
 * process locks the same lock file. A link to nothing, or a path that is not a regular
 * file, is refused.
 */
async function resolveFile(path: string): Promise<string> {
  const target = await resolveWriteTarget(path);
  if (!target.ok) {
    throw new RegistryError("REGISTRY_IO", `cannot open ${path}: ${target.reason}`, {
      cause: target.cause,
    });
  }
  return target.path;
}

/**
 * Open (or create) a JSON-file registry.
 *
 * @throws {RegistryError} `REGISTRY_INVALID` for a file that is not a registry,
 * `REGISTRY_IO` when it cannot be read or created, `REGISTRY_BUSY` when another process
 * holds its lock past `lockTimeoutMs`, `REGISTRY_MISCONFIGURED` for a bad option.
 * @example
 * ```ts
 * import { openFileRegistry } from "agent-airlock/guard";
 * const registry = await openFileRegistry("delegations.json");
 * await registry.register(chain);
 * ```
 */
export async function openFileRegistry(
  path: string,
  options?: FileRegistryOptions,
): Promise<FileRegistry> {
  const registry = new FileRegistry(path, options);
  await registry.load();
  return registry;
}
