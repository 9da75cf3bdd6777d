/**
 * Reading the scanner's input files: the callback forms of node:fs, as promises.
 * node:fs/promises does the same but loads Node's stream and readline internals with it,
 * a few milliseconds of every `airlock scan-tools` start.
 */
import {
  readdir as readdirCallback,
  readFile as readFileCallback,
  type Stats,
  stat as statCallback,
} from "node:fs";

/**
 * `fs.stat`, as a promise.
 *
 * @example
 * ```ts
 * import { stat } from "./files.js";
 * console.log((await stat(".")).isDirectory()); // true
 * ```
 */
export function stat(path: string): Promise<Stats> {
  return new Promise((resolve, reject) =>
    statCallback(path, (err, info) => (err ? reject(err) : resolve(info))),
  );
}

/**
 * `fs.readdir` (names only), as a promise.
 *
 * @example
 * ```ts
 * import { readdir } from "./files.js";
 * console.log(Array.isArray(await readdir("."))); // true
 * ```
 */
export function readdir(path: string): Promise<string[]> {
  return new Promise((resolve, reject) =>
    readdirCallback(path, (err, names) => (err ? reject(err) : resolve(names))),
  );
}

/**
 * `fs.readFile` as UTF-8 text, as a promise.
 *
 * @example
 * ```ts
 * import { readFile } from "./files.js";
 * console.log((await readFile("package.json", "utf8")).startsWith("{")); // true
 * ```
 */
export function readFile(path: string, encoding: "utf8"): Promise<string> {
  return new Promise((resolve, reject) =>
    readFileCallback(path, encoding, (err, text) => (err ? reject(err) : resolve(text))),
  );
}
