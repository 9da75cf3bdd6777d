/**
 * The description phrases flow inference reads: a read tool that says it returns the
 * open web, a writing tool that says its change cannot be taken back. Each lexicon list
 * compiles once into one pattern of literal alternatives between word boundaries
 * (linear in the text; no nested quantifiers).
 */
import { DESTRUCTIVE_WORDS, WEB_DESCRIPTION_BIGRAMS } from "./lexicon.js";

/** One case-insensitive pattern over whole words; `_` in an entry stands for spaces or a dash. */
function phrasePattern(entries: ReadonlySet<string>): RegExp {
  const alternatives = [...entries]
    .sort((a, b) => b.length - a.length)
    .map((e) =>
      e
        .split("_")
        .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
        .join("[\\s-]+"),
    );
  return new RegExp(`\\b(?:${alternatives.join("|")})\\b`, "i");
}

const WEB = phrasePattern(WEB_DESCRIPTION_BIGRAMS);
const DESTRUCTION = phrasePattern(DESTRUCTIVE_WORDS);

/**
 * Every web phrase holds one of these words: a text without any is no match, found by a
 * literal search that is much cheaper than the phrase pattern (checked in
 * test/scan/flows/infer.test.ts against the lexicon).
 */
export const WEB_PHRASE_WORDS: readonly string[] = Object.freeze([
  "web",
  "internet",
  "engine",
  "url",
]);
const MAY_BE_WEB = new RegExp(WEB_PHRASE_WORDS.join("|"), "i");

/** The first phrase of `text` that says it returns the open web ("the web"), or null. */
export function describesTheWeb(text: string): string | null {
  if (!MAY_BE_WEB.test(text)) return null;
  return WEB.exec(text)?.[0].toLowerCase() ?? null;
}

/** The first word of `text` that says a change cannot be taken back ("permanently"), or null. */
export function describesDestruction(text: string): string | null {
  return DESTRUCTION.exec(text)?.[0].toLowerCase() ?? null;
}
