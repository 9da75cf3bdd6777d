/**
 * Pin files on disk: reading with the input bounds every airlock reader has (a regular
 * file, at most {@link MAX_PIN_FILE_BYTES}, well-formed UTF-8), and writing so that no
 * writer's work is lost: {@link updatePinFile} takes the pin file's lock, re-reads the
 * file under it, applies the caller's change to what is there now, and replaces the file
 * atomically (through a symbolic link, keeping its mode). Two `airlock pin` runs on one
 * file therefore both land, or one is refused with a code; neither is dropped silently.
 * Readers take no lock: a write is a rename, so a reader sees the old file or the new one.
 */
import { PinFileError } from "../errors.js";
import {
  removeStaleTemporaries,
  resolveWriteTarget,
  writeFileAtomic,
} from "../lib/atomic-write.js";
import { readBoundedFile } from "../lib/bounded-read.js";
import { type LockRefusal, withFileLock } from "../lib/file-lock.js";
import { findUtf8Fault } from "../lib/utf8.js";
import {
  MAX_PIN_FILE_BYTES,
  type PinFile,
  parsePinFile,
  readPinFileValue,
  serializePinFile,
} from "./pin-file.js";

/**
 * How long a write waits for another writer's lock on the pin file (ms).
 *
 * @example
 * ```ts
 * import { DEFAULT_PIN_FILE_LOCK_TIMEOUT_MS } from "agent-airlock";
 * console.log(DEFAULT_PIN_FILE_LOCK_TIMEOUT_MS); // 30000
 * ```
 */
export const DEFAULT_PIN_FILE_LOCK_TIMEOUT_MS = 30_000;

/** Longest lock wait accepted (ms): ten minutes. */
const MAX_LOCK_TIMEOUT_MS = 600_000;

/** Options of {@link writePinFile} and {@link updatePinFile}. */
export interface PinFileWriteOptions {
  /**
   * How long to wait for another writer holding the pin file's lock, in ms (a positive
   * integer up to 600,000). Default {@link DEFAULT_PIN_FILE_LOCK_TIMEOUT_MS}. Past it the
   * write is refused with `PIN_FILE_LOCKED`.
   */
  lockTimeoutMs?: number;
}

/** What {@link updatePinFile} did. */
export interface PinFileUpdate {
  /** The pin file as it now is on disk. */
  file: PinFile;
  /** False when the change was already there (the file was left as it was). */
  written: boolean;
}

function readWriteOptions(options: PinFileWriteOptions): { lockTimeoutMs: number } {
  if (typeof options !== "object" || options === null) {
    throw new PinFileError("PIN_FILE_MISCONFIGURED", "pin file options must be an object");
  }
  const timeout = options.lockTimeoutMs ?? DEFAULT_PIN_FILE_LOCK_TIMEOUT_MS;
  if (!Number.isSafeInteger(timeout) || timeout < 1 || timeout > MAX_LOCK_TIMEOUT_MS) {
    throw new PinFileError(
      "PIN_FILE_MISCONFIGURED",
      `lockTimeoutMs must be an integer from 1 to ${MAX_LOCK_TIMEOUT_MS} (ms), not ${String(timeout).slice(0, 40)}`,
    );
  }
  return { lockTimeoutMs: timeout };
}

function unreadable(path: string, reason: string, cause?: unknown): PinFileError {
  return new PinFileError(
    "PIN_FILE_UNREADABLE",
    `pin file ${path}: ${reason}`,
    cause === undefined ? undefined : { cause },
  );
}

/** A pin file as read: its text and what it holds (internal, for `airlock pin`). */
export interface PinFileRead {
  text: string;
  file: PinFile;
}

/**
 * The file at `path`, or null when there is none; `shown` is the name messages use. When
 * the text is `known`'s, `known` is returned as it is (its file is not parsed again).
 */
async function readIfPresent(
  path: string,
  shown: string,
  known: PinFileRead | null = null,
): Promise<PinFileRead | null> {
  const read = await readBoundedFile(path, MAX_PIN_FILE_BYTES);
  if (!read.ok) {
    if (read.fault === "missing") return null;
    throw unreadable(shown, read.reason, read.cause);
  }
  const fault = findUtf8Fault(read.bytes);
  if (fault !== null) {
    throw new PinFileError(
      "PIN_FILE_INVALID",
      `pin file ${shown}: not UTF-8 (an invalid byte sequence at byte ${fault.offset}, ${fault.count} in all); a reviewed lock file must read the same everywhere: restore it from version control`,
    );
  }
  const text = read.bytes.toString("utf8");
  if (known !== null && text === known.text) return known;
  try {
    return { text, file: parsePinFile(text) };
  } catch (err) {
    if (err instanceof PinFileError) {
      throw new PinFileError(err.code, err.message.replace(/^pin file:/, `pin file ${shown}:`), {
        cause: err.cause,
      });
    }
    throw err;
  }
}

/**
 * Read and check a pin file. Only a regular file of at most {@link MAX_PIN_FILE_BYTES}
 * is read (a FIFO or a device is refused at once); a missing, special, oversized or
 * unreadable file is `PIN_FILE_UNREADABLE`, text that is not UTF-8 is `PIN_FILE_INVALID`.
 *
 * @example
 * ```ts
 * import { guardFromPinFile, readPinFile } from "agent-airlock";
 * const guard = guardFromPinFile(await readPinFile("airlock.pins.json"), { server: "weather" });
 * ```
 */
export async function readPinFile(path: string): Promise<PinFile> {
  const read = await readIfPresent(path, path);
  if (read === null) throw unreadable(path, "no such file or directory");
  return read.file;
}

/**
 * {@link readPinFile} with the text it parsed, or null for a missing file. Internal: what
 * `airlock pin` hands back to {@link updatePinFileFrom} so an unchanged file is not parsed
 * a second time under the lock.
 *
 * @example
 * ```ts
 * import { readPinFileText } from "./pin-file-io.js";
 * console.log(await readPinFileText("missing.pins.json")); // null
 * ```
 */
export function readPinFileText(path: string): Promise<PinFileRead | null> {
  return readIfPresent(path, path);
}

/** A refusal of the pin file's lock, as this module's codes. */
function lockRefusal(shown: string, refusal: LockRefusal): PinFileError {
  if (refusal.fault === "held") {
    return new PinFileError(
      "PIN_FILE_LOCKED",
      `pin file ${shown}: another writer holds its lock (${refusal.reason}); nothing was written`,
    );
  }
  return unreadable(shown, `cannot write (${refusal.reason})`, refusal.cause);
}

/**
 * Change a pin file safely against other writers: take its lock, re-read it (`null` when
 * it does not exist yet), pass it to `update`, and write what `update` returns
 * atomically. `update` may keep or change the object it gets (it was read for it); a
 * `PinFileError` it throws (for example
 * `PIN_FILE_CONFLICT` when the part it changes moved on disk) aborts without writing.
 * The write goes through a symbolic link to its target and keeps the file's mode; a new
 * file gets 0644 less the umask. Temporary files a killed writer left beside it are
 * removed first. Another writer holding the lock past `lockTimeoutMs` is `PIN_FILE_LOCKED`.
 *
 * @example
 * ```ts
 * import { ToolDefinitionPinGuard, pinFileFromGuard, updatePinFile } from "agent-airlock";
 * const guard = new ToolDefinitionPinGuard();
 * guard.approve({ name: "add" });
 * await updatePinFile("airlock.pins.json", (current) =>
 *   pinFileFromGuard(guard, { server: "calculator", ...(current ? { into: current } : {}) }),
 * );
 * ```
 */
export async function updatePinFile(
  path: string,
  update: (current: PinFile | null) => PinFile,
  options: PinFileWriteOptions = {},
): Promise<PinFileUpdate> {
  const { read, written } = await updatePinFileFrom(path, update, options, null);
  return { file: read.file, written };
}

/**
 * {@link updatePinFile}, given the file as the caller last read it (`known`, unmodified):
 * when the text under the lock is still that text, `update` gets `known.file` and the
 * file is not parsed again. Returns the file as written, with its text. Internal.
 *
 * @example
 * ```ts
 * import { readPinFileText, updatePinFileFrom } from "./pin-file-io.js";
 * const known = await readPinFileText("airlock.pins.json");
 * await updatePinFileFrom("airlock.pins.json", (current) => current ?? { version: 1, servers: {} }, {}, known);
 * ```
 */
export async function updatePinFileFrom(
  path: string,
  update: (current: PinFile | null) => PinFile,
  options: PinFileWriteOptions,
  known: PinFileRead | null,
): Promise<{ read: PinFileRead; written: boolean }> {
  const { lockTimeoutMs } = readWriteOptions(options);
  if (typeof update !== "function") {
    throw new PinFileError("PIN_FILE_MISCONFIGURED", "updatePinFile needs an update function");
  }
  const target = await resolveWriteTarget(path);
  if (!target.ok) throw unreadable(path, `cannot write: ${target.reason}`, target.cause);
  return withFileLock(
    `${target.path}.lock`,
    { timeoutMs: lockTimeoutMs },
    (refusal) => lockRefusal(path, refusal),
    async (lock) => {
      await removeStaleTemporaries(target.path);
      const current = await readIfPresent(target.path, path, known);
      const text = serializePinFile(update(current?.file ?? null));
      // Never write a file that would not load back. The text is ours, so it holds no
      // duplicate key; a file already holding exactly this text is left alone.
      const read: PinFileRead = { text, file: readPinFileValue(JSON.parse(text)) };
      if (text === current?.text) return { read, written: false };
      try {
        await writeFileAtomic(target.path, text, {
          beforeCommit: async () => {
            if (!(await lock.stillHeld())) {
              throw new PinFileError(
                "PIN_FILE_LOCKED",
                `pin file ${path}: its lock was taken over while this write was prepared; nothing was written`,
              );
            }
          },
        });
      } catch (err) {
        if (err instanceof PinFileError) throw err;
        throw unreadable(path, `cannot write (${(err as Error).message})`, err);
      }
      return { read, written: true };
    },
  );
}

/**
 * Write a pin file as {@link updatePinFile} does (lock, atomic replacement through
 * symbolic links, mode kept), replacing whatever the file holds with `file`.
 *
 * @example
 * ```ts
 * import { ToolDefinitionPinGuard, pinFileFromGuard, writePinFile } from "agent-airlock";
 * const guard = new ToolDefinitionPinGuard();
 * guard.approve({ name: "add", description: "Add two numbers" });
 * await writePinFile("airlock.pins.json", pinFileFromGuard(guard, { server: "calculator" }));
 * ```
 */
export async function writePinFile(
  path: string,
  file: PinFile,
  options: PinFileWriteOptions = {},
): Promise<void> {
  readWriteOptions(options);
  // Checked (and copied) before the lock is taken: a file that would not load back is
  // refused without waiting for anyone.
  const checked = readPinFileValue(JSON.parse(serializePinFile(file)));
  await updatePinFile(path, () => checked, options);
}
