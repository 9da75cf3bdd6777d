/**
 * How the scanner reads its input files. Two ways with one shape: through Node's thread
 * pool (the callback forms of node:fs, as promises), or with blocking calls, which a
 * one-shot process such as the CLI reads faster (no wait for the event loop between a
 * file's open, stat, read and close). node:fs/promises is not used: it loads Node's
 * stream and readline internals with it, a few milliseconds of every CLI start. File
 * contents go through the one bounded reader of src/lib (regular files only, a size cap),
 * the same that reads pin files and client configs.
 */
import { readdir, readdirSync, type Stats, stat, statSync } from "node:fs";
import { type BoundedRead, readBoundedFile, readBoundedFileSync } from "../lib/bounded-read.js";
import { type StrictText, strictUtf8Text } from "../lib/utf8.js";

/** File reads as promises; a failure rejects with Node's error (its `code` intact). */
export interface Files {
  stat(path: string): Promise<Stats>;
  /** Entry names of a directory. */
  readdir(path: string): Promise<string[]>;
  /** A regular file's bytes, at most `maxBytes` (never rejects: a bad file is a value). */
  readBytes(path: string, maxBytes: number): Promise<BoundedRead>;
}

/**
 * Reads through Node's thread pool: the event loop runs on meanwhile.
 *
 * @example
 * ```ts
 * import { ASYNC_FILES } from "./files.js";
 * console.log((await ASYNC_FILES.stat(".")).isDirectory()); // true
 * ```
 */
export const ASYNC_FILES: Files = {
  stat: (path) =>
    new Promise((resolve, reject) =>
      stat(path, (err, info) => (err ? reject(err) : resolve(info))),
    ),
  readdir: (path) =>
    new Promise((resolve, reject) =>
      readdir(path, (err, names) => (err ? reject(err) : resolve(names))),
    ),
  readBytes: readBoundedFile,
};

/** A blocking read as a promise: its result, or its error as a rejection. */
function settled<T>(read: () => T): Promise<T> {
  try {
    return Promise.resolve(read());
  } catch (err) {
    return Promise.reject(err);
  }
}

/**
 * Reads with blocking calls, each handed back as a settled promise.
 *
 * @example
 * ```ts
 * import { BLOCKING_FILES } from "./files.js";
 * const read = await BLOCKING_FILES.readBytes("package.json", 1 << 20);
 * console.log(read.ok); // true
 * ```
 */
export const BLOCKING_FILES: Files = {
  stat: (path) => settled(() => statSync(path)),
  readdir: (path) => settled(() => readdirSync(path)),
  readBytes: (path, maxBytes) => settled(() => readBoundedFileSync(path, maxBytes)),
};

/**
 * A configuration file's text (a policy, a suppressions list): a regular file of at most
 * `maxBytes`, well-formed UTF-8; or the reason it is not one.
 *
 * @example
 * ```ts
 * import { readConfigText } from "./files.js";
 * console.log((await readConfigText("package.json", 1 << 20)).ok); // true
 * ```
 */
export async function readConfigText(path: string, maxBytes: number): Promise<StrictText> {
  const read = await ASYNC_FILES.readBytes(path, maxBytes);
  return read.ok ? strictUtf8Text(read.bytes) : { ok: false, reason: read.reason };
}
