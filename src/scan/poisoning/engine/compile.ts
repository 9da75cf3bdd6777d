/**
 * Lexicons compiled into lookup tables: phrases indexed by their first word (exact, by a
 * four-letter head for stems, by a five-letter tail for suffixes) and, for scripts
 * without spaces, by their first character. Matching a token costs three map lookups
 * whatever the number of phrases, so the work is linear in the text and independent of
 * how many languages are loaded.
 */
import { CONCEPT_ID, type Concept } from "../concepts.js";
import type { LanguageLexicon, WordConcept } from "../lexicon/types.js";
import { foldToken } from "./fold.js";

/** One word of a phrase. */
export interface WordPattern {
  readonly text: string;
  /** 0 exact, 1 prefix (stem), 2 suffix, 3 a gap of up to three tokens (`~`). */
  readonly mode: 0 | 1 | 2 | 3;
}

/** A phrase of words: its concept, its words, and the language it came from. */
export interface WordPhrase {
  readonly concept: number;
  readonly words: readonly WordPattern[];
  readonly language: string;
}

/** A phrase in a script without spaces, matched as a substring of a run. */
export interface RunPhrase {
  readonly concept: number;
  readonly text: string;
  readonly language: string;
}

/** The compiled matcher tables. */
export interface Matcher {
  readonly exact: ReadonlyMap<string, readonly WordPhrase[]>;
  /** Stems by their first four letters. */
  readonly stems: ReadonlyMap<string, readonly WordPhrase[]>;
  /** Suffixes by their last five letters. */
  readonly suffixes: ReadonlyMap<string, readonly WordPhrase[]>;
  /** Run phrases by their first character. */
  readonly runs: ReadonlyMap<string, readonly RunPhrase[]>;
  readonly longestRun: number;
}

/** A lexicon phrase that cannot be compiled; thrown when the lexicons are loaded. */
export class LexiconError extends Error {
  override readonly name = "LexiconError";
}

const RUN_SCRIPT =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]/u;
const STEM_HEAD = 4;
const SUFFIX_TAIL = 5;

/** Most tokens a `~` gap in a phrase stands for ("bring ~ up" reads "bring the forwarding up"). */
export const MAX_GAP = 3;

function readWord(raw: string, phrase: string): WordPattern {
  if (raw === "~") return { text: "", mode: 3 };
  if (raw.endsWith("*")) {
    const text = foldToken(raw.slice(0, -1));
    if (text.length < STEM_HEAD) throw new LexiconError(`stem too short in "${phrase}"`);
    return { text, mode: 1 };
  }
  if (raw.startsWith("*")) {
    const text = foldToken(raw.slice(1));
    if (text.length < SUFFIX_TAIL) throw new LexiconError(`suffix too short in "${phrase}"`);
    return { text, mode: 2 };
  }
  return { text: foldToken(raw), mode: 0 };
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

/**
 * The matcher for a list of lexicons.
 *
 * @example
 * ```ts
 * import { compileLexicons } from "./compile.js";
 * import { LEXICONS } from "../lexicon/index.js";
 * console.log(compileLexicons(LEXICONS).exact.has("password")); // true
 * ```
 */
export function compileLexicons(lexicons: readonly LanguageLexicon[]): Matcher {
  const exact = new Map<string, WordPhrase[]>();
  const stems = new Map<string, WordPhrase[]>();
  const suffixes = new Map<string, WordPhrase[]>();
  const runs = new Map<string, RunPhrase[]>();
  let longestRun = 0;
  for (const { language, lexicon } of lexicons) {
    for (const [tag, phrases] of Object.entries(lexicon) as [WordConcept, readonly string[]][]) {
      const concept = CONCEPT_ID[tag as Concept];
      if (concept === undefined) throw new LexiconError(`unknown concept ${tag} in ${language}`);
      for (const phrase of phrases) {
        const lower = phrase.toLowerCase().normalize("NFKC");
        if (RUN_SCRIPT.test(lower)) {
          if (/\s/.test(lower)) throw new LexiconError(`spaces in run phrase "${phrase}"`);
          push(runs, lower[0]!, { concept, text: lower, language });
          longestRun = Math.max(longestRun, lower.length);
          continue;
        }
        const parts = lower.split(/[\s_'’-]+/).filter((w) => w !== "");
        if (parts.length === 0) throw new LexiconError(`empty phrase in ${language}.${tag}`);
        const words = parts.map((w) => readWord(w, phrase));
        if (words[0]!.mode === 3 || words[words.length - 1]!.mode === 3)
          throw new LexiconError(`a gap must sit between words in "${phrase}"`);
        const entry: WordPhrase = { concept, words, language };
        const first = words[0]!;
        if (first.mode === 0) push(exact, first.text, entry);
        else if (first.mode === 1) push(stems, first.text.slice(0, STEM_HEAD), entry);
        else push(suffixes, first.text.slice(-SUFFIX_TAIL), entry);
      }
    }
  }
  return { exact, stems, suffixes, runs, longestRun };
}

/** True when `token` matches `word`. */
export function wordMatches(word: WordPattern, token: string): boolean {
  if (word.mode === 0) return token === word.text;
  if (word.mode === 3) return false;
  if (word.mode === 1) return token.startsWith(word.text);
  return token.length > word.text.length && token.endsWith(word.text);
}

/** Candidate phrases whose first word may match `token`. */
export function candidatesOf(
  matcher: Matcher,
  token: string,
  out: (readonly WordPhrase[])[],
): void {
  const e = matcher.exact.get(token);
  if (e !== undefined) out.push(e);
  if (token.length >= STEM_HEAD) {
    const s = matcher.stems.get(token.slice(0, STEM_HEAD));
    if (s !== undefined) out.push(s);
  }
  if (token.length > SUFFIX_TAIL) {
    const x = matcher.suffixes.get(token.slice(-SUFFIX_TAIL));
    if (x !== undefined) out.push(x);
  }
}
