import { fileURLToPath } from "node:url";

// This module sits directly in the CLI's directory: src/cli (development), dist/cli (the
// tsc output) or dist/bundle (scripts/bundle-cli.mjs inlines it into a chunk there). All
// three are two levels below the package root, so these paths hold in each; version.ts
// relies on the same depth for `../../package.json`.

/**
 * The directory of the running CLI's entry points (`bin.js`, or `bin.ts` in development),
 * with a trailing separator.
 *
 * @example
 * ```ts
 * import { join } from "node:path";
 * import { CLI_DIRECTORY } from "./location.js";
 * console.log(join(CLI_DIRECTORY, "bin.js"));
 * ```
 */
export const CLI_DIRECTORY: string = fileURLToPath(new URL("./", import.meta.url));

/**
 * The root of the installed agent-airlock package (where package.json and examples/data
 * are), with a trailing separator.
 *
 * @example
 * ```ts
 * import { join } from "node:path";
 * import { PACKAGE_ROOT } from "./location.js";
 * console.log(join(PACKAGE_ROOT, "examples", "data"));
 * ```
 */
export const PACKAGE_ROOT: string = fileURLToPath(new URL("../../", import.meta.url));
