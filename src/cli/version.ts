import { readFileSync } from "node:fs";

// A plain read, not `createRequire(...)("../../package.json")`: a CommonJS resolution of
// a JSON file costs about 1 ms at start-up, this about 0.1 ms. Two levels up from src/cli,
// dist/cli and dist/bundle alike (see location.ts).
const manifest = new URL("../../package.json", import.meta.url);

/**
 * The package version, read from package.json.
 *
 * @example
 * ```ts
 * import { VERSION } from "./version.js";
 * console.log(`agent-airlock ${VERSION}`);
 * ```
 */
export const VERSION: string = (JSON.parse(readFileSync(manifest, "utf8")) as { version: string })
  .version;
