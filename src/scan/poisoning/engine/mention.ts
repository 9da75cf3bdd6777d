/**
 * A mention: one tagged span of a text, with where it sits (tokens, sentence, clause)
 * and what surrounds it (negated, an order, quoted, an example). Rules read mentions
 * only; they never see the words.
 */
import type { Tokens } from "./tokenize.js";

/** One tagged span. */
export interface Mention {
  readonly concept: number;
  /** Offsets in the matching text. */
  readonly start: number;
  readonly end: number;
  /** First and last token. */
  readonly first: number;
  readonly last: number;
  readonly sentence: number;
  readonly clause: number;
  /** Language of the phrase, or "" for a shape. */
  readonly language: string;
  /** A polar act under a negation ("never pass", "without telling"). */
  negated: boolean;
  /** An act given as an order: at the start of its clause, or right after must, please, then... */
  imperative: boolean;
  /** Inside a short quotation (speech acts there are mentioned, not used). */
  quoted: boolean;
  /** Introduced as an example (e.g., such as). */
  example: boolean;
}

/**
 * A mention of `concept` over tokens `first..last`, placed in their sentence and clause.
 *
 * @example
 * ```ts
 * import { mentionAt } from "./mention.js";
 * import { tokenize } from "./tokenize.js";
 * const tokens = tokenize("send it", "send it");
 * console.log(mentionAt(tokens, 3, 0, 4, 0, 0, "en").clause); // 0
 * ```
 */
export function mentionAt(
  tokens: Tokens,
  concept: number,
  start: number,
  end: number,
  first: number,
  last: number,
  language: string,
): Mention {
  const at = Math.min(first, tokens.count - 1);
  return {
    concept,
    start,
    end,
    first,
    last,
    sentence: at >= 0 ? tokens.sentence[at]! : 0,
    clause: at >= 0 ? tokens.clause[at]! : 0,
    language,
    negated: false,
    imperative: false,
    quoted: at >= 0 && tokens.quoted[at] === 1,
    example: false,
  };
}

/**
 * Sort mentions by start (longest first at one start) in place, and return them.
 *
 * @example
 * ```ts
 * import { byStart } from "./mention.js";
 * console.log(byStart([{ start: 3, end: 4 }, { start: 1, end: 2 }] as never[]).map((m: { start: number }) => m.start)); // [1, 3]
 * ```
 */
export function byStart(mentions: Mention[]): Mention[] {
  return mentions.sort((a, b) => a.start - b.start || b.end - a.end);
}
