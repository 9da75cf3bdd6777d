import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Script } from "node:vm";
import { CLI_DIRECTORY } from "./location.js";

// `airlock scan-tools` is the command CI runs on every push, so its start-up counts. A
// fresh Node process spends a good part of a scan compiling the CLI's JavaScript. V8 can
// keep that work in a code cache, but Node 20 offers one only for scripts, not ES
// modules. So scripts/bundle-cli.mjs also writes the scan-tools command as one CommonJS
// script, `scan-tools.cjs`, and a code cache made by a first run on the bundled example
// data, `scan-tools.cache`, both next to the bundled bin. The cache is only ever read at
// run time, never written: it is built with the package and as trusted as its code. V8
// checks it against its own version, its flags and the script, and compiles from source
// when it does not fit (another Node version): the run is then only slower. The same
// source runs either way, so the output is the same; test/cli/code-cache.test.ts holds it.

/** The scan-tools script and its code cache, next to the running bin. */
export const SCAN_TOOLS_SCRIPT = "scan-tools.cjs";
export const SCAN_TOOLS_CACHE = "scan-tools.cache";

/** What the scan-tools script exports. */
interface ScanToolsScript {
  run(argv: string[]): Promise<void>;
}

interface Loaded {
  script: Script;
  exports: ScanToolsScript;
  /** "accepted", "rejected" (V8 compiled from source) or "absent". */
  cache: "accepted" | "rejected" | "absent";
}

/** Compile and evaluate a CommonJS script file with V8's code cache, as Node's loader would wrap it. */
function load(file: string, cacheFile: string): Loaded {
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  const source = readFileSync(file, "utf8");
  const script = new Script(
    `(function (exports, require, module, __filename, __dirname) {${source}\n})`,
    { filename: file, cachedData },
  );
  const module = { exports: {} as ScanToolsScript };
  const wrapper = script.runInThisContext() as (
    exports: unknown,
    require: NodeJS.Require,
    module: unknown,
    filename: string,
    dirname: string,
  ) => void;
  wrapper(module.exports, createRequire(file), module, file, dirname(file));
  const cache =
    cachedData === undefined ? "absent" : script.cachedDataRejected ? "rejected" : "accepted";
  return { script, exports: module.exports, cache };
}

/**
 * Run `airlock scan-tools` from the cached script when `argv` names that command and the
 * script sits next to the running bin (the bundle); false otherwise, and the caller runs
 * the CLI as usual. `AIRLOCK_DEBUG_CODE_CACHE=1` reports on stderr whether V8 took the
 * cache.
 *
 * @example
 * ```ts
 * import { runScanToolsFromCache } from "./code-cache.js";
 * // In dist/cli (no script beside it) this declines, and the caller runs the CLI itself.
 * console.log(await runScanToolsFromCache(["node", "airlock", "--version"])); // false
 * ```
 */
export async function runScanToolsFromCache(argv: string[]): Promise<boolean> {
  if (argv[2] !== "scan-tools") return false;
  const file = join(CLI_DIRECTORY, SCAN_TOOLS_SCRIPT);
  if (!existsSync(file)) return false;
  let loaded: Loaded;
  try {
    loaded = load(file, join(CLI_DIRECTORY, SCAN_TOOLS_CACHE));
  } catch {
    // A script that does not compile or load (a damaged install): the ES module CLI
    // runs the command instead. Nothing of the command has run yet.
    return false;
  }
  if (process.env.AIRLOCK_DEBUG_CODE_CACHE === "1") {
    process.stderr.write(`airlock: code cache ${loaded.cache}\n`);
  }
  await loaded.exports.run(argv);
  return true;
}

/**
 * Build time (scripts/bundle-cli.mjs): run the scan-tools script once on `argv` and write
 * the code cache V8 made of everything that run compiled.
 *
 * @example
 * ```ts
 * import { writeScanToolsCache } from "./code-cache.js";
 * // await writeScanToolsCache("dist/bundle/scan-tools.cjs", "dist/bundle/scan-tools.cache",
 * //   ["node", "airlock", "scan-tools", "examples/data/scan", "--output", "json"]);
 * console.log(typeof writeScanToolsCache); // "function"
 * ```
 */
export async function writeScanToolsCache(
  file: string,
  cacheFile: string,
  argv: string[],
): Promise<void> {
  const { script, exports } = load(file, `${cacheFile}.none`);
  await exports.run(argv);
  writeFileSync(cacheFile, script.createCachedData());
}
