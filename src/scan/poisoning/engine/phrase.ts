/**
 * Where a lexicon phrase ends when it starts at a token: its words matched one by one
 * within the sentence, a `~` gap taking the fewest tokens that let the rest match. The
 * tagger and the gate both read phrases this way.
 */
import { MAX_GAP, type WordPhrase, wordMatches } from "./compile.js";
import { type Tokens, WORD } from "./tokenize.js";

/**
 * The last token of `phrase` matched at token `i`, or -1.
 *
 * @example
 * ```ts
 * import { phraseAt } from "./phrase.js";
 * import { tokenize } from "./tokenize.js";
 * const t = tokenize("bring the forwarding up", "bring the forwarding up");
 * const phrase = { concept: 0, language: "en", words: [{ text: "bring", mode: 0 }, { text: "", mode: 3 }, { text: "up", mode: 0 }] } as const;
 * console.log(phraseAt(t, 0, phrase)); // 3
 * ```
 */
export function phraseAt(tokens: Tokens, i: number, phrase: WordPhrase): number {
  const words = phrase.words;
  const sentence = tokens.sentence[i]!;
  let t = i;
  for (let w = 1; w < words.length; w++) {
    const word = words[w]!;
    if (word.mode === 3) {
      const next = words[w + 1]!;
      let found = -1;
      for (let k = t + 1; k <= t + 1 + MAX_GAP && k < tokens.count; k++) {
        if (tokens.sentence[k] !== sentence) break;
        if (tokens.kind[k] === WORD && wordMatches(next, tokens.text[k]!)) {
          found = k;
          break;
        }
      }
      if (found < 0) return -1;
      t = found;
      w++;
      continue;
    }
    t++;
    if (t >= tokens.count || tokens.kind[t] !== WORD || tokens.sentence[t] !== sentence) return -1;
    if (!wordMatches(word, tokens.text[t]!)) return -1;
  }
  return t;
}
