import { main } from "./program.js";

/**
 * Entry of the scan-tools script: scripts/bundle-cli.mjs bundles the CLI from here as
 * one CommonJS file that code-cache.ts runs with V8's code cache. Same program, same
 * output as the ES module bundle.
 *
 * @example
 * ```ts
 * import { run } from "./scan-tools-script.js";
 * await run(["node", "airlock", "scan-tools", "--help"]);
 * ```
 */
export function run(argv: string[]): Promise<void> {
  return main(argv);
}
