/**
 * The flow lexicons as one table of bits per word, so reading a token costs one lookup
 * instead of one per list (as name-evidence.ts does for capabilities). The words stay in
 * lexicon.ts; this file only indexes them.
 */
import { READ_VERBS } from "../vocabulary.js";
import {
  ADDRESS_ARGUMENTS,
  BROWSER_CONTENT_WORDS,
  BROWSER_INPUT_WORDS,
  BROWSER_TOKENS,
  COMPUTE_VERBS,
  DESTRUCTIVE_VERBS,
  DETACHABLE_WORDS,
  FILLER_WORDS,
  FREE_TEXT_ARGUMENTS,
  HOST_ARGUMENTS,
  PATH_ARGUMENTS,
  PUBLIC_DATA_WORDS,
  RECIPIENT_ARGUMENTS,
  SINK_LEADS,
  SINK_OBJECTS,
  SINK_VERBS,
  UNTRUSTED_NOUNS,
} from "./lexicon.js";

/** One bit per lexicon. */
export const W = Object.freeze({
  BROWSER: 1,
  BROWSER_CONTENT: 2,
  BROWSER_INPUT: 4,
  DESTRUCTIVE_VERB: 8,
  DETACHABLE: 16,
  SINK_VERB: 32,
  SINK_LEAD: 64,
  SINK_OBJECT: 128,
  UNTRUSTED_NOUN: 256,
  PUBLIC: 512,
  COMPUTE: 1024,
  FILLER: 2048,
  READ_VERB: 4096,
  ADDRESS: 8192,
  PATH: 16384,
  RECIPIENT: 32768,
  FREE_TEXT: 65536,
  HOST: 131072,
});

const FLAGS = new Map<string, number>();
for (const [words, bit] of [
  [BROWSER_TOKENS, W.BROWSER],
  [BROWSER_CONTENT_WORDS, W.BROWSER_CONTENT],
  [BROWSER_INPUT_WORDS, W.BROWSER_INPUT],
  [DESTRUCTIVE_VERBS, W.DESTRUCTIVE_VERB],
  [DETACHABLE_WORDS, W.DETACHABLE],
  [SINK_VERBS, W.SINK_VERB],
  [SINK_LEADS, W.SINK_LEAD],
  [SINK_OBJECTS, W.SINK_OBJECT],
  [UNTRUSTED_NOUNS, W.UNTRUSTED_NOUN],
  [PUBLIC_DATA_WORDS, W.PUBLIC],
  [COMPUTE_VERBS, W.COMPUTE],
  [FILLER_WORDS, W.FILLER],
  [READ_VERBS, W.READ_VERB],
  [ADDRESS_ARGUMENTS, W.ADDRESS],
  [PATH_ARGUMENTS, W.PATH],
  [RECIPIENT_ARGUMENTS, W.RECIPIENT],
  [FREE_TEXT_ARGUMENTS, W.FREE_TEXT],
  [HOST_ARGUMENTS, W.HOST],
] as const)
  for (const w of words) FLAGS.set(w, (FLAGS.get(w) ?? 0) | bit);

/** Tokens with their bits, and the union of the bits (a quick "none of them"). */
export interface FlaggedTokens {
  tokens: readonly string[];
  flags: readonly number[];
  all: number;
}

/** Index `tokens` once. */
export function flagTokens(tokens: readonly string[]): FlaggedTokens {
  const flags: number[] = new Array(tokens.length);
  let all = 0;
  for (let i = 0; i < tokens.length; i++) {
    const f = FLAGS.get(tokens[i]!) ?? 0;
    flags[i] = f;
    all |= f;
  }
  return { tokens, flags, all };
}

/** The first token with `bit`, or undefined. */
export function firstWith(t: FlaggedTokens, bit: number): string | undefined {
  if ((t.all & bit) === 0) return undefined;
  for (let i = 0; i < t.tokens.length; i++) if ((t.flags[i]! & bit) !== 0) return t.tokens[i];
  return undefined;
}
