/**
 * The shape of a lexicon: for each concept a language carries, the phrases that carry
 * it. Data only; the compiler (engine/compile.ts) folds and indexes it.
 *
 * Phrase syntax, one phrase per string:
 * - words are separated by single spaces and match whole tokens (the tokenizer splits
 *   at spaces, punctuation, apostrophes, `_`, `-` and camelCase, so `api key` also
 *   reads `api_key`, `api-key` and `apiKey`);
 * - a word ending in `*` matches any token that starts with it (`delet*`: delete,
 *   deleted, deletion); such a stem needs at least four letters before the `*`;
 * - a word starting with `*` matches any token that ends with it (`*partner` reads the
 *   German compound `Analysepartner`); at least five letters after the `*`;
 * - a phrase written in a script without spaces (Chinese, Japanese, Korean, Thai) is
 *   matched as a substring of a run of that script, so particles and compounds around
 *   it do not hide it.
 *
 * Case and diacritics are folded on load and on the text alike (`Übermittelt` reads
 * `ubermittelt`), so a lexicon writes each phrase once, in lower case.
 */
import type { Concept } from "../concepts.js";

/** Concepts found by shape in any language (lexicon/neutral.ts), never by a word list. */
export type ShapeConcept =
  | "SECRET_PATH"
  | "ENV_SECRET"
  | "DESTINATION"
  | "ACCOUNT"
  | "PARAM_REF"
  | "TOOL_REF"
  | "DESTRUCTIVE_COMMAND"
  | "ROLE_LABEL"
  | "AUTHORITY_MARKUP"
  | "HIDDEN_MARKUP";

/** Concepts a language's lexicon lists words for. */
export type WordConcept = Exclude<Concept, ShapeConcept>;

/**
 * One language's phrases. Every word concept is listed; `[]` says on purpose that the
 * language has no words of its own for it (a test checks that every key is present).
 */
export type Lexicon = Readonly<Record<WordConcept, readonly string[]>>;

/** A lexicon with its language code (ISO 639-1). */
export interface LanguageLexicon {
  readonly language: string;
  readonly lexicon: Lexicon;
}
