/**
 * Folding of a token for lexicon lookup: accents and similar marks dropped from Latin,
 * Greek and Cyrillic letters and Arabic vowel marks dropped, so `Übermittelt`, `übermittelt`
 * and `ubermittelt` read the same, as do `utilisé` and `utilise`. The lexicons are
 * folded the same way on load, so a phrase is written once. Other scripts are kept as
 * they are (Devanagari vowel signs carry meaning).
 */

/** Marks dropped after canonical decomposition. */
const DROPPED_MARKS = /[\u0300-\u036f\u064b-\u065f\u0670]/g;
/** Letters that decomposition leaves whole but readers treat as their base letter. */
const BASE_LETTER: Readonly<Record<string, string>> = {
  ı: "i",
  ß: "ss",
  æ: "ae",
  œ: "oe",
  ø: "o",
  đ: "d",
  ł: "l",
  ё: "е",
  ى: "ي",
  ة: "ه",
  ی: "ي",
  ک: "ك",
  ـ: "",
};
const NEEDS_FOLD = /[\u00c0-\u052f\u0600-\u06ff]/;
const SPECIAL = /[ıßæœøđłёىةیکـ]/g;

/**
 * A lower-case token folded for lookup; ASCII tokens come back as they are.
 *
 * @example
 * ```ts
 * import { foldToken } from "./fold.js";
 * console.log(foldToken("übermittelt")); // "ubermittelt"
 * ```
 */
export function foldToken(token: string): string {
  if (!NEEDS_FOLD.test(token)) return token;
  return token
    .normalize("NFD")
    .replace(DROPPED_MARKS, "")
    .replace(SPECIAL, (ch) => BASE_LETTER[ch]!)
    .normalize("NFC");
}
