/**
 * Mentions by token, so every "is there a negator just before this act?" question looks
 * at a few tokens, not at every mention of the text: the tagger's passes stay linear in
 * the text however many mentions a hostile text holds.
 */
import type { Mention } from "./mention.js";

/** Most mentions kept per starting token (a repeated phrase stacks them; a few tell the story). */
const MAX_PER_TOKEN = 32;

/**
 * Mentions indexed by their first token.
 *
 * @example
 * ```ts
 * import { Nearby } from "./nearby.js";
 * const m = { concept: 1, start: 0, end: 3, first: 2, last: 2, sentence: 0, clause: 0, language: "en", negated: false, imperative: false, quoted: false, example: false };
 * console.log(new Nearby([m], 4).find(0, 3, (x) => x.concept === 1) === m); // true
 * ```
 */
export class Nearby {
  private readonly byFirst: (Mention[] | undefined)[];

  constructor(mentions: readonly Mention[], tokens: number) {
    this.byFirst = new Array(Math.max(tokens, 1));
    for (const m of mentions) {
      const list = this.byFirst[m.first];
      if (list === undefined) this.byFirst[m.first] = [m];
      else if (list.length < MAX_PER_TOKEN) list.push(m);
    }
  }

  /** The first mention starting at a token in `from..to` (inclusive) that `test` accepts. */
  find(from: number, to: number, test: (m: Mention) => boolean): Mention | undefined {
    const lo = Math.max(0, from);
    const hi = Math.min(this.byFirst.length - 1, to);
    for (let t = lo; t <= hi; t++) {
      const list = this.byFirst[t];
      if (list === undefined) continue;
      for (const m of list) if (test(m)) return m;
    }
    return undefined;
  }

  /** Every mention starting at a token in `from..to` that `test` accepts. */
  filter(from: number, to: number, test: (m: Mention) => boolean): Mention[] {
    const out: Mention[] = [];
    const lo = Math.max(0, from);
    const hi = Math.min(this.byFirst.length - 1, to);
    for (let t = lo; t <= hi; t++) {
      const list = this.byFirst[t];
      if (list === undefined) continue;
      for (const m of list) if (test(m)) out.push(m);
    }
    return out;
  }
}
