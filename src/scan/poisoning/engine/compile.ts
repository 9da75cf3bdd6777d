/**
 * Lexicons compiled into lookup tables: phrases indexed by their first word (exact, by a
 * four-letter head for stems, by a five-letter tail for suffixes) and, for scripts
 * without spaces, by their first character. Matching a token costs three map lookups
 * whatever the number of phrases, so the work is linear in the text and independent of
 * how many languages are loaded.
 */
import { CONCEPT_ID, type Concept } from "../concepts.js";
import type { LanguageLexicon, WordConcept } from "../lexicon/types.js";
import { DetectorDataError } from "./data-error.js";
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
  /** Phrases by their first word, when their second word is not an exact word too. */
  readonly exact: ReadonlyMap<string, readonly WordPhrase[]>;
  /**
   * Phrases of two exact words or more, by their first and then their second word: a
   * token as common as "the" opens a hundred phrases, and the word after it picks the
   * few that can match.
   */
  readonly pairs: ReadonlyMap<string, ReadonlyMap<string, readonly WordPhrase[]>>;
  /** Every exact first word of a phrase (the English words the lexicon knows). */
  readonly firstWords: ReadonlySet<string>;
  /** Stems by their first four letters. */
  readonly stems: ReadonlyMap<string, readonly WordPhrase[]>;
  /** Suffixes by their last five letters. */
  readonly suffixes: ReadonlyMap<string, readonly WordPhrase[]>;
  /** Run phrases by their first character. */
  readonly runs: ReadonlyMap<string, readonly RunPhrase[]>;
  readonly longestRun: number;
}

/** A lexicon phrase that cannot be compiled; thrown when the lexicons are loaded. */
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
    if (text.length < STEM_HEAD) throw new DetectorDataError(`stem too short in "${phrase}"`);
    return { text, mode: 1 };
  }
  if (raw.startsWith("*")) {
    const text = foldToken(raw.slice(1));
    if (text.length < SUFFIX_TAIL) throw new DetectorDataError(`suffix too short in "${phrase}"`);
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
 * console.log(compileLexicons(LEXICONS).firstWords.has("password")); // true
 * ```
 */
export function compileLexicons(lexicons: readonly LanguageLexicon[]): Matcher {
  const exact = new Map<string, WordPhrase[]>();
  const pairs = new Map<string, Map<string, WordPhrase[]>>();
  const firstWords = new Set<string>();
  const stems = new Map<string, WordPhrase[]>();
  const suffixes = new Map<string, WordPhrase[]>();
  const runs = new Map<string, RunPhrase[]>();
  let longestRun = 0;
  for (const { language, lexicon } of lexicons) {
    for (const [tag, phrases] of Object.entries(lexicon) as [WordConcept, readonly string[]][]) {
      const concept = CONCEPT_ID[tag as Concept];
      if (concept === undefined)
        throw new DetectorDataError(`unknown concept ${tag} in ${language}`);
      for (const phrase of phrases) {
        const lower = phrase.toLowerCase().normalize("NFKC");
        if (RUN_SCRIPT.test(lower)) {
          if (/\s/.test(lower)) throw new DetectorDataError(`spaces in run phrase "${phrase}"`);
          push(runs, lower[0]!, { concept, text: lower, language });
          longestRun = Math.max(longestRun, lower.length);
          continue;
        }
        const parts = lower.split(/[\s_'’-]+/).filter((w) => w !== "");
        if (parts.length === 0) throw new DetectorDataError(`empty phrase in ${language}.${tag}`);
        const words = parts.map((w) => readWord(w, phrase));
        if (words[0]!.mode === 3 || words[words.length - 1]!.mode === 3)
          throw new DetectorDataError(`a gap must sit between words in "${phrase}"`);
        const entry: WordPhrase = { concept, words, language };
        const first = words[0]!;
        const second = words[1];
        if (first.mode === 0) firstWords.add(first.text);
        if (first.mode === 0 && second !== undefined && second.mode === 0) {
          let bySecond = pairs.get(first.text);
          if (bySecond === undefined) {
            bySecond = new Map();
            pairs.set(first.text, bySecond);
          }
          push(bySecond, second.text, entry);
        } else if (first.mode === 0) push(exact, first.text, entry);
        else if (first.mode === 1) push(stems, first.text.slice(0, STEM_HEAD), entry);
        else push(suffixes, first.text.slice(-SUFFIX_TAIL), entry);
      }
    }
  }
  return { exact, pairs, firstWords, stems, suffixes, runs, longestRun };
}

/** True when `token` matches `word`. */
export function wordMatches(word: WordPattern, token: string): boolean {
  if (word.mode === 0) return token === word.text;
  if (word.mode === 3) return false;
  if (word.mode === 1) return token.startsWith(word.text);
  return token.length > word.text.length && token.endsWith(word.text);
}

/**
 * Candidate phrases whose first word may match `token`; `next` is the word token right
 * after it in the same sentence, if any (phrases of two exact words need it).
 */
export function candidatesOf(
  matcher: Matcher,
  token: string,
  out: (readonly WordPhrase[])[],
  next?: string,
): void {
  const e = matcher.exact.get(token);
  if (e !== undefined) out.push(e);
  if (next !== undefined) {
    const p = matcher.pairs.get(token)?.get(next);
    if (p !== undefined) out.push(p);
  }
  if (token.length >= STEM_HEAD) {
    const s = matcher.stems.get(token.slice(0, STEM_HEAD));
    if (s !== undefined) out.push(s);
  }
  if (token.length > SUFFIX_TAIL) {
    const x = matcher.suffixes.get(token.slice(-SUFFIX_TAIL));
    if (x !== undefined) out.push(x);
  }
}
