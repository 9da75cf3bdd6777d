/**
 * A delegation registry persisted as one JSON file, rewritten atomically (write a
 * temporary file beside it with mode 0600, then rename) on every change. One process
 * writes it at a time; it is loaded once when opened.
 *
 * @module
 */
import { randomBytes } from "node:crypto";
import type { Stats } from "node:fs";
import { open, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { RegistryError } from "../delegation/errors.js";
import { MemoryRegistry, type RegistrySnapshot } from "./memory.js";
import type { RegisteredChain, RegistryLimits } from "./registry.js";

/**
 * The version of the registry file format (`{"version": 1, "chains": [...], "revoked": [...]}`).
 *
 * @example
 * ```ts
 * import { REGISTRY_FILE_VERSION } from "agent-airlock/guard";
 * console.log(REGISTRY_FILE_VERSION); // 1
 * ```
 */
export const REGISTRY_FILE_VERSION = 1;
/**
 * Largest registry file read, in bytes; a larger one is refused (`REGISTRY_INVALID`).
 *
 * @example
 * ```ts
 * import { MAX_REGISTRY_FILE_BYTES } from "agent-airlock/guard";
 * console.log(MAX_REGISTRY_FILE_BYTES); // 67108864
 * ```
 */
export const MAX_REGISTRY_FILE_BYTES = 64 * 1024 * 1024;

function parseFile(text: string, path: string): RegistrySnapshot {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (cause) {
    throw new RegistryError("REGISTRY_INVALID", `${path} is not JSON`, { cause });
  }
  const d = data as { version?: unknown; chains?: unknown; revoked?: unknown } | null;
  if (typeof d !== "object" || d === null || Array.isArray(d)) {
    throw new RegistryError(
      "REGISTRY_INVALID",
      `${path} is not a registry file (expected an object)`,
    );
  }
  if (d.version !== REGISTRY_FILE_VERSION) {
    throw new RegistryError(
      "REGISTRY_INVALID",
      `${path} has version ${JSON.stringify(d.version)}; expected ${REGISTRY_FILE_VERSION}`,
    );
  }
  if (!Array.isArray(d.chains) || !Array.isArray(d.revoked)) {
    throw new RegistryError("REGISTRY_INVALID", `${path} needs "chains" and "revoked" arrays`);
  }
  const chains = d.chains.map((entry: unknown, i: number): RegisteredChain => {
    const e = entry as Partial<RegisteredChain> | null;
    if (
      typeof e !== "object" ||
      e === null ||
      !Array.isArray(e.chain) ||
      !Number.isSafeInteger(e.registeredAt)
    ) {
      throw new RegistryError(
        "REGISTRY_INVALID",
        `${path}: chains[${i}] needs "chain" and "registeredAt"`,
      );
    }
    return e as RegisteredChain;
  });
  return { chains, revoked: d.revoked as string[] };
}

/**
 * A registry stored in a JSON file. Open it with {@link openFileRegistry}.
 *
 * Every operation first checks whether the file changed on disk (another process, such as
 * `airlock delegate revoke`, rewrote it) and reloads it if so, so a revocation written
 * elsewhere is honoured at once and never overwritten. Operations run one at a time.
 * Several processes writing at the same moment can still race: use SQLite for that.
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
  readonly path: string;
  #tail: Promise<unknown> = Promise.resolve();
  /** Identity of the file as last read or written: inode, size, modification time. */
  #seen: string | undefined;

  constructor(path: string, limits?: RegistryLimits) {
    super(limits);
    this.path = path;
  }

  /** Load the file (a missing file is created empty). */
  async load(): Promise<void> {
    await this.#exclusive(() => this.#load());
  }

  async #load(): Promise<void> {
    // Until a load succeeds, every operation retries it (and fails): a half-read file is
    // never used.
    this.#seen = undefined;
    let text: string;
    let seen: string;
    try {
      const handle = await open(this.path, "r");
      try {
        const info = await handle.stat();
        if (info.size > MAX_REGISTRY_FILE_BYTES) {
          throw new RegistryError(
            "REGISTRY_INVALID",
            `${this.path} is larger than ${MAX_REGISTRY_FILE_BYTES} bytes`,
          );
        }
        text = await handle.readFile("utf8");
        seen = identity(info);
      } finally {
        await handle.close();
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") {
        await this.#write();
        return;
      }
      if (err instanceof RegistryError) throw err;
      throw new RegistryError(
        "REGISTRY_IO",
        `cannot read ${this.path}: ${(err as Error).message}`,
        { cause: err },
      );
    }
    try {
      this.restore(parseFile(text, this.path));
      this.#seen = seen;
    } catch (err) {
      if (err instanceof RegistryError && err.code !== "REGISTRY_FULL") {
        throw new RegistryError("REGISTRY_INVALID", `${this.path}: ${err.message}`, { cause: err });
      }
      throw err;
    }
  }

  /** Reload when someone else rewrote the file since we last read or wrote it. */
  async #refresh(): Promise<void> {
    let info: Stats;
    try {
      info = await stat(this.path);
    } catch (err) {
      // Deleted under us: keep what we hold; the next change writes it back.
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
      throw new RegistryError(
        "REGISTRY_IO",
        `cannot stat ${this.path}: ${(err as Error).message}`,
        {
          cause: err,
        },
      );
    }
    if (identity(info) !== this.#seen) await this.#load();
  }

  /** Run operations one at a time, each on a fresh view of the file. */
  #exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.#tail.then(fn);
    this.#tail = next.catch(() => {});
    return next;
  }

  async #write(): Promise<void> {
    const snapshot = this.snapshot();
    const body = `${JSON.stringify({ version: REGISTRY_FILE_VERSION, chains: snapshot.chains, revoked: snapshot.revoked }, null, 2)}\n`;
    const tmp = join(
      dirname(this.path),
      `.${basename(this.path)}.${randomBytes(6).toString("hex")}.tmp`,
    );
    try {
      const handle = await open(tmp, "wx", 0o600);
      try {
        await handle.writeFile(body, "utf8");
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(tmp, this.path);
      this.#seen = identity(await stat(this.path));
    } catch (err) {
      await rm(tmp, { force: true }).catch(() => {});
      throw new RegistryError(
        "REGISTRY_IO",
        `cannot write ${this.path}: ${(err as Error).message}`,
        { cause: err },
      );
    }
  }

  override register(chain: readonly string[]): Promise<RegisteredChain> {
    return this.#exclusive(async () => {
      await this.#refresh();
      const before = this.changes;
      const record = await super.register(chain);
      if (this.changes === before) return record;
      try {
        await this.#write();
      } catch (err) {
        // Keep memory and file in step: a chain that is not on disk is not registered.
        await super.unregister(record.id);
        throw err;
      }
      return record;
    });
  }

  override unregister(id: string): Promise<boolean> {
    return this.#exclusive(async () => {
      await this.#refresh();
      const removed = await super.unregister(id);
      if (removed) await this.#write();
      return removed;
    });
  }

  override revoke(jti: string): Promise<void> {
    return this.#exclusive(async () => {
      await this.#refresh();
      const before = this.changes;
      await super.revoke(jti);
      if (this.changes !== before) await this.#write();
    });
  }

  override chainsFor(agent: string): Promise<RegisteredChain[]> {
    return this.#exclusive(async () => {
      await this.#refresh();
      return super.chainsFor(agent);
    });
  }

  override list(): Promise<RegisteredChain[]> {
    return this.#exclusive(async () => {
      await this.#refresh();
      return super.list();
    });
  }

  override isRevoked(jti: string): Promise<boolean> {
    return this.#exclusive(async () => {
      await this.#refresh();
      return super.isRevoked(jti);
    });
  }

  override async close(): Promise<void> {
    await this.#tail;
  }
}

function identity(info: Stats): string {
  return `${info.dev}:${info.ino}:${info.size}:${info.mtimeMs}`;
}

/**
 * Open (or create) a JSON-file registry.
 *
 * @throws {RegistryError} `REGISTRY_INVALID` for a file that is not a registry,
 * `REGISTRY_IO` when it cannot be read or created.
 * @example
 * ```ts
 * import { openFileRegistry } from "agent-airlock/guard";
 * const registry = await openFileRegistry("delegations.json");
 * await registry.register(chain);
 * ```
 */
export async function openFileRegistry(
  path: string,
  limits?: RegistryLimits,
): Promise<FileRegistry> {
  const registry = new FileRegistry(path, limits);
  await registry.load();
  return registry;
}
