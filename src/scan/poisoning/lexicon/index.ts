/**
 * LEXICONS: the one list of languages the poisoning detector reads. A new language is a
 * new file in this folder and one line here; nothing else changes.
 */
import { EN } from "./en.js";
import type { LanguageLexicon } from "./types.js";

/**
 * Every lexicon, English first.
 *
 * @example
 * ```ts
 * import { LEXICONS } from "./index.js";
 * console.log(LEXICONS[0]?.language); // "en"
 * ```
 */
export const LEXICONS: readonly LanguageLexicon[] = Object.freeze([
  { language: "en", lexicon: EN },
]);
