/**
 * The matchers, one per language, each compiled from its lexicon the first time a
 * sentence of that language is read: a listing in English never pays for the other
 * twelve, and importing the scan module pays for none.
 */
import { CONCEPT_LIST } from "../concepts.js";
import { LEXICONS } from "../lexicon/index.js";
import type { Lexicon } from "../lexicon/types.js";
import { compileLexicons, type Matcher } from "./compile.js";
import { BORROWED } from "./language.js";

const compiled = new Map<string, Matcher>();
let borrowed: Matcher | undefined;

/**
 * The matcher of `language` (an ISO 639-1 code LEXICONS lists), or English for any other.
 *
 * @example
 * ```ts
 * import { matcherFor } from "./matcher.js";
 * console.log(matcherFor("en").firstWords.has("password")); // true
 * ```
 */
export function matcherFor(language: string): Matcher {
  const known = compiled.get(language);
  if (known !== undefined) return known;
  const entry = LEXICONS.find((l) => l.language === language) ?? LEXICONS[0]!;
  const matcher = compileLexicons([entry]);
  compiled.set(language, matcher);
  return matcher;
}

/**
 * English phrases of the borrowed technical nouns (API key, system prompt), read in
 * sentences of every other language.
 *
 * @example
 * ```ts
 * import { borrowedMatcher } from "./matcher.js";
 * console.log(borrowedMatcher().firstWords.has("password")); // true
 * ```
 */
export function borrowedMatcher(): Matcher {
  if (borrowed !== undefined) return borrowed;
  const english = LEXICONS[0]!;
  const lexicon = Object.fromEntries(
    Object.entries(english.lexicon).map(([tag, phrases]) => [
      tag,
      BORROWED.has(CONCEPT_LIST.indexOf(tag as never)) ? phrases : [],
    ]),
  ) as unknown as Lexicon;
  borrowed = compileLexicons([{ language: "en", lexicon }]);
  return borrowed;
}
