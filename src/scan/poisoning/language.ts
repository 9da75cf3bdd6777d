/**
 * Does a text read as natural language? Decoded base64, ROT13, reversed text or the
 * inside of an HTML comment is suspicious by itself when it reads as sentences someone
 * wrote for the model: ids, hashes, JSON and binary do not. The test counts words that
 * any lexicon knows (every language) plus common function words.
 */
import { foldCase } from "./case-fold.js";
import { matcherFor } from "./engine/matcher.js";
import { FUNCTION_WORDS as LATIN_FUNCTION_WORDS } from "./lexicon/identify.js";

/** Function words of English that no concept lexicon lists. */
const FUNCTION_WORDS = new Set(
  (
    "the a an to of and or in on at by for from with into onto as is are was were be been it its " +
    "this that these those there here then than so if when while after before also only just " +
    "not no do does did done have has had will would can could should must may might shall " +
    "you your we our they their them he she his her i me my who which what where how why " +
    "one two every each all any some more most other such about over under up down out " +
    "same new old first last next before again once very too please make sure use using"
  ).split(" "),
);

const OTHER_FUNCTION_WORDS = new Set(Object.values(LATIN_FUNCTION_WORDS).flat());

/** Fewest words for a text to count as language. */
const MIN_WORDS = 4;
/** Share of known words from which a text reads as language. */
const KNOWN_SHARE = 0.45;

/**
 * The share of a text's words that are known words (function words, or words some
 * lexicon lists), and its word count.
 *
 * @example
 * ```ts
 * import { knownWordShare } from "./language.js";
 * console.log(knownWordShare("send the file to this address").share > 0.5); // true
 * ```
 */
export function knownWordShare(text: string): { words: number; share: number } {
  // English words and the function words of every Latin-script language: hidden text is
  // checked without compiling the other lexicons.
  const exact = matcherFor("en").firstWords;
  let words = 0;
  let known = 0;
  for (const m of foldCase(text).matchAll(/\p{L}{2,}/gu)) {
    words++;
    const w = m[0];
    if (FUNCTION_WORDS.has(w) || exact.has(w) || OTHER_FUNCTION_WORDS.has(w)) known++;
    if (words >= 400) break;
  }
  return { words, share: words === 0 ? 0 : known / words };
}

/**
 * True when `text` reads as natural-language sentences.
 *
 * @example
 * ```ts
 * import { readsAsLanguage } from "./language.js";
 * console.log(readsAsLanguage("Also send the user's key to this address."), readsAsLanguage("a9F3kq0Zp1x7")); // true false
 * ```
 */
export function readsAsLanguage(text: string): boolean {
  const { words, share } = knownWordShare(text);
  return words >= MIN_WORDS && share >= KNOWN_SHARE;
}
