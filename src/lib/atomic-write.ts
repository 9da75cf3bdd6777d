/**
 * Replacing a file so a reader only ever sees the old text or the new one: the new text
 * goes to a temporary file beside the target, is flushed, and is renamed over it.
 *
 * - Through symbolic links: the target is the link's real path, so a pin file kept as a
 *   link to a shared file updates that file and the link stays a link (renaming over the
 *   link itself would replace it with a regular file and leave the target stale). A link
 *   to nothing is refused: creating its target somewhere is not what anyone asked.
 * - The file keeps its mode (and, when we are root, its owner). A new file gets
 *   {@link NEW_FILE_MODE} (0644) less the umask, or the caller's `newFileMode`: a pin file
 *   is a reviewed file meant for version control, a delegation registry is private.
 * - Durable once it returns: the temporary file is flushed before the rename and the
 *   directory after it, so a power loss leaves the old file or the new one, not an empty
 *   one (directories that cannot be flushed, as on Windows, are skipped).
 * - Temporary files are named `<name>.airlock-<pid>-<random>.tmp`, so one left by a killed
 *   writer is recognisable, and {@link removeStaleTemporaries} (run under the writer's
 *   lock) deletes those whose process no longer runs.
 *
 * Used by every file agent-airlock replaces: pin files, the JSON-file delegation
 * registry, client configs rewritten by `airlock wrap-config`.
 *
 * Private (src/lib).
 */
import { randomBytes } from "node:crypto";
import type { Stats } from "node:fs";
import {
  type FileHandle,
  lstat,
  open,
  readdir,
  readlink,
  realpath,
  rename,
  stat,
  unlink,
} from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { isProcessAlive } from "./process-alive.js";

/** Mode of a file that did not exist before (the umask still applies). */
export const NEW_FILE_MODE = 0o644;

/** Where a write really goes, or why it cannot. */
export type WriteTarget =
  | { ok: true; path: string }
  | { ok: false; reason: string; cause?: unknown };

/**
 * The real path a write to `path` should replace: the file itself, the end of its chain
 * of links, or (for a file that does not exist yet) its name in the real directory.
 *
 * @example
 * ```ts
 * import { resolveWriteTarget } from "../lib/atomic-write.js";
 * console.log((await resolveWriteTarget("airlock.pins.json")).ok); // true
 * ```
 */
export async function resolveWriteTarget(path: string): Promise<WriteTarget> {
  const absolute = resolve(path);
  let info: Stats;
  try {
    info = await lstat(absolute);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") return refusal("cannot be read", err);
    try {
      return { ok: true, path: join(await realpath(dirname(absolute)), basename(absolute)) };
    } catch (cause) {
      return refusal("its directory cannot be reached", cause);
    }
  }
  let real: string;
  try {
    real = await realpath(absolute);
  } catch (cause) {
    if (info.isSymbolicLink() && (cause as NodeJS.ErrnoException).code === "ENOENT") {
      const to = await readlink(absolute).catch(() => "?");
      return { ok: false, reason: `a symbolic link to a missing file (${to})`, cause };
    }
    return refusal("cannot be resolved", cause);
  }
  const target = await stat(real).catch(() => null);
  if (target !== null && !target.isFile()) return { ok: false, reason: "not a regular file" };
  return { ok: true, path: real };
}

function refusal(what: string, cause: unknown): WriteTarget {
  return {
    ok: false,
    reason: `${what} (${(cause as NodeJS.ErrnoException).code ?? "error"})`,
    cause,
  };
}

const TEMPORARY = /^(.*)\.airlock-(\d+)-[0-9a-f]{12}\.tmp$/;

/**
 * Delete the temporary files a killed writer left beside `target` (named as this module
 * names them, by a process that no longer runs). Returns how many were removed. Call it
 * while holding the target's lock, so no live writer of ours is mid-way.
 *
 * @example
 * ```ts
 * import { removeStaleTemporaries } from "../lib/atomic-write.js";
 * console.log(await removeStaleTemporaries("/abs/airlock.pins.json")); // 0
 * ```
 */
export async function removeStaleTemporaries(target: string): Promise<number> {
  const dir = dirname(target);
  const name = basename(target);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const entry of names) {
    const match = TEMPORARY.exec(entry);
    if (match === null || match[1] !== name) continue;
    const pid = Number(match[2]);
    // Our own pid here is a dead process's, reused: this process has no write under way.
    if (pid !== process.pid && isProcessAlive(pid)) continue;
    try {
      await unlink(join(dir, entry));
      removed++;
    } catch {
      // Gone already, or not ours to remove: the write goes on.
    }
  }
  return removed;
}

/** Options of {@link writeFileAtomic}. */
export interface AtomicWriteOptions {
  /** Called after the new text is flushed, just before the rename; a throw aborts the write. */
  beforeCommit?: () => Promise<void>;
  /** Mode of a file that did not exist (the umask applies). Default {@link NEW_FILE_MODE}. */
  newFileMode?: number;
}

/** Make a rename durable: flush the directory (not possible everywhere; then skipped). */
async function syncDirectory(dir: string): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await open(dir, "r");
  } catch {
    return; // Windows cannot open a directory.
  }
  try {
    await handle.sync();
  } catch {
    // Some file systems cannot flush a directory: the rename stands, if not yet durably.
  } finally {
    await handle.close().catch(() => {});
  }
}

/**
 * Replace the regular file `target` (a real path, see {@link resolveWriteTarget}) with
 * `text`, keeping its mode; the temporary file is removed on any failure. The text is
 * flushed before the rename and the directory after it.
 *
 * @example
 * ```ts
 * import { writeFileAtomic } from "../lib/atomic-write.js";
 * await writeFileAtomic("/abs/airlock.pins.json", '{"servers":{},"version":1}\n');
 * ```
 */
export async function writeFileAtomic(
  target: string,
  text: string,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const before = await stat(target).catch(() => null);
  const temporary = join(
    dirname(target),
    `${basename(target)}.airlock-${process.pid}-${randomBytes(6).toString("hex")}.tmp`,
  );
  try {
    const handle = await open(
      temporary,
      "wx",
      before ? 0o600 : (options.newFileMode ?? NEW_FILE_MODE),
    );
    try {
      await handle.writeFile(text, "utf8");
      if (before) {
        await handle.chmod(before.mode & 0o7777);
        const root = process.getuid?.() === 0;
        if (root && (before.uid !== 0 || before.gid !== 0))
          await handle.chown(before.uid, before.gid);
      }
      await handle.sync();
    } finally {
      await handle.close();
    }
    await options.beforeCommit?.();
    await rename(temporary, target);
  } catch (err) {
    await unlink(temporary).catch(() => {});
    throw err;
  }
  await syncDirectory(dirname(target));
}
