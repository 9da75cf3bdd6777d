/**
 * The matcher compiled once from LEXICONS, when the detector is first used (importing
 * the scan module does not pay for it).
 */
import { LEXICONS } from "../lexicon/index.js";
import { compileLexicons, type Matcher } from "./compile.js";

let compiled: Matcher | undefined;

/**
 * The shared matcher.
 *
 * @example
 * ```ts
 * import { matcher } from "./matcher.js";
 * console.log(matcher().exact.size > 0); // true
 * ```
 */
export function matcher(): Matcher {
  compiled ??= compileLexicons(LEXICONS);
  return compiled;
}
