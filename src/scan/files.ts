/**
 * How the scanner reads its input files. Two ways with one shape: through Node's thread
 * pool (the callback forms of node:fs, as promises), or with blocking calls, which a
 * one-shot process such as the CLI reads faster (no wait for the event loop between a
 * file's open, stat, read and close). node:fs/promises is not used: it loads Node's
 * stream and readline internals with it, a few milliseconds of every CLI start.
 */
import { readdir, readdirSync, readFile, readFileSync, type Stats, stat, statSync } from "node:fs";

/** File reads as promises; a failure rejects with Node's error (its `code` intact). */
export interface Files {
  stat(path: string): Promise<Stats>;
  /** Entry names of a directory. */
  readdir(path: string): Promise<string[]>;
  /** A file as UTF-8 text. */
  readFile(path: string): Promise<string>;
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
  readFile: (path) =>
    new Promise((resolve, reject) =>
      readFile(path, "utf8", (err, text) => (err ? reject(err) : resolve(text))),
    ),
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
 * console.log((await BLOCKING_FILES.readFile("package.json")).startsWith("{")); // true
 * ```
 */
export const BLOCKING_FILES: Files = {
  stat: (path) => settled(() => statSync(path)),
  readdir: (path) => settled(() => readdirSync(path)),
  readFile: (path) => settled(() => readFileSync(path, "utf8")),
};
