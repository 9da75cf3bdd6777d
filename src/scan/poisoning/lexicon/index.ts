/**
 * LEXICONS: the one list of languages the poisoning detector reads. A new language is a
 * new file in this folder and one line here; nothing else changes.
 */

import { AR } from "./ar.js";
import { DE } from "./de.js";
import { EN } from "./en.js";
import { ES } from "./es.js";
import { FR } from "./fr.js";
import { HI } from "./hi.js";
import { IT } from "./it.js";
import { JA } from "./ja.js";
import { KO } from "./ko.js";
import { PT } from "./pt.js";
import { RU } from "./ru.js";
import { TR } from "./tr.js";
import type { LanguageLexicon } from "./types.js";
import { ZH } from "./zh.js";

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
  { language: "es", lexicon: ES },
  { language: "fr", lexicon: FR },
  { language: "pt", lexicon: PT },
  { language: "it", lexicon: IT },
  { language: "de", lexicon: DE },
  { language: "tr", lexicon: TR },
  { language: "ru", lexicon: RU },
  { language: "ar", lexicon: AR },
  { language: "hi", lexicon: HI },
  { language: "zh", lexicon: ZH },
  { language: "ja", lexicon: JA },
  { language: "ko", lexicon: KO },
]);
