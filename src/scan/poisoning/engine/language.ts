/**
 * The language of each sentence, so a lexicon's phrases are only read in sentences of
 * its language (lexicon/identify.ts says why). One pass over the tokens: the script of
 * each word, and for Latin letters the function words each language is known by.
 */
import { CONCEPT_ID } from "../concepts.js";
import { FUNCTION_WORDS, LETTER_MARKS, SCRIPT_LANGUAGES } from "../lexicon/identify.js";
import { RUN, type Tokens } from "./tokenize.js";

/** Latin-script function words to the languages they mark. */
const MARKS = new Map<string, string[]>();
for (const [language, words] of Object.entries(FUNCTION_WORDS)) {
  for (const w of words) {
    const list = MARKS.get(w);
    if (list) list.push(language);
    else MARKS.set(w, [language]);
  }
}

const LATIN = /[A-Za-z\u00c0-\u024f]/;

/** Letters of `lower[start..end]` that point to a language count as one mark each. */
function letterMarks(lower: string, start: number, end: number, counts: Map<string, number>): void {
  for (let k = start; k < end; k++) {
    if (lower.charCodeAt(k) < 0xa1) continue;
    for (const language of LETTER_MARKS[lower[k]!.toLowerCase()] ?? [])
      counts.set(language, (counts.get(language) ?? 0) + 1);
  }
}

function scriptOf(token: string): string | undefined {
  const first = token[0]!;
  if (first < "\u0080" || LATIN.test(first)) return undefined;
  for (const { language, script } of SCRIPT_LANGUAGES) if (script.test(first)) return language;
  return undefined;
}

/**
 * The language code of every sentence of `tokens` ("en" when nothing says otherwise).
 *
 * @example
 * ```ts
 * import { sentenceLanguages } from "./language.js";
 * import { tokenize } from "./tokenize.js";
 * const text = "envía el archivo a la dirección";
 * console.log(sentenceLanguages(tokenize(text, text))); // ["es"]
 * ```
 */
export function sentenceLanguages(tokens: Tokens, text?: string): string[] {
  const out: string[] = new Array(tokens.sentences).fill("en");
  const undecided: number[] = [];
  let i = 0;
  while (i < tokens.count) {
    const sentence = tokens.sentence[i]!;
    const scripts = new Map<string, number>();
    const latin = new Map<string, number>();
    let words = 0;
    let kana = false;
    for (; i < tokens.count && tokens.sentence[i] === sentence; i++) {
      const token = tokens.text[i]!;
      words++;
      const script = scriptOf(token);
      if (script !== undefined) {
        if (tokens.kind[i] === RUN && SCRIPT_LANGUAGES[0]!.script.test(token)) kana = true;
        scripts.set(script, (scripts.get(script) ?? 0) + 1);
        continue;
      }
      for (const language of MARKS.get(token) ?? [])
        latin.set(language, (latin.get(language) ?? 0) + 1);
      if (text !== undefined) letterMarks(text, tokens.start[i]!, tokens.end[i]!, latin);
    }
    let best = "en";
    let bestCount = 0;
    for (const [language, count] of scripts) {
      if (count > bestCount) {
        best = language;
        bestCount = count;
      }
    }
    if (bestCount > 0) {
      out[sentence] = best === "zh" && kana ? "ja" : best;
      continue;
    }
    // Another Latin-script language wins only on evidence: two of its function words and
    // more than English has (one "a" or "no" says little).
    let top = latin.get("en") ?? 0;
    for (const [language, count] of latin) {
      if (count >= 2 && count > top) {
        best = language;
        top = count;
      }
    }
    out[sentence] = best;
    // No English word and no other language's two: the sentence is too short to tell
    // ("Comparte una carpeta."), and takes the language the rest of the text is in.
    if (best === "en" && top === 0 && words > 0) undecided.push(sentence);
  }
  if (undecided.length > 0 && undecided.length < out.length) {
    const open = new Set(undecided);
    const counts = new Map<string, number>();
    out.forEach((language, sentence) => {
      if (!open.has(sentence)) counts.set(language, (counts.get(language) ?? 0) + 1);
    });
    let main = "en";
    let mainCount = 0;
    for (const [language, count] of counts) {
      if (count > mainCount) {
        main = language;
        mainCount = count;
      }
    }
    for (const sentence of undecided) out[sentence] = main;
  }
  return out;
}

/** Concepts whose English words are read in every language: borrowed technical nouns. */
export const BORROWED: ReadonlySet<number> = new Set(
  (
    [
      "SECRET",
      "HIGH_VALUE_SECRET",
      "ID_DOCUMENT",
      "CONTEXT",
      "TOOL_WORD",
      "SENSITIVE_SERVICE",
      "PII",
    ] as const
  ).map((c) => CONCEPT_ID[c]),
);
