import type { LiteralsIn } from "./literal-gate.js";
import type { InjectionSignal, RawHit } from "./types.js";

/**
 * One phrase rule: a linear-time pattern over the matching text plus an optional check
 * on the match in context. Patterns obey three constraints, checked by a test over every
 * exported rule: no quantifier on a group other than `?`, no back-references, and every
 * open-ended window is a bounded character class (`[^\n]{0,80}`). With those, the work per
 * start position is bounded by a constant, so a scan is linear in the text length.
 */
export interface PhraseRule {
  readonly signal: InjectionSignal;
  readonly pattern: RegExp;
  readonly why: string;
  /** Extra check on the match; `false` drops it. */
  readonly accept?: (text: string, match: RegExpExecArray) => boolean;
}

/** At most this many hits per rule and text: a repeated phrase is one story, not a flood. */
export const MAX_HITS_PER_RULE = 8;

/**
 * Run `rules` over `text` and collect hits. With `literals`, a rule whose required
 * literals are absent from the text is skipped (it cannot match).
 */
export function runRules(
  rules: readonly PhraseRule[],
  text: string,
  hits: RawHit[],
  literals?: LiteralsIn,
): void {
  const ids = literals?.idsOf(rules);
  for (let r = 0; r < rules.length; r++) {
    const rule = rules[r]!;
    if (ids !== undefined && !literals!.passes(ids[r]!)) continue;
    const pattern = rule.pattern;
    // No match starts before the first of the literals every match starts with.
    pattern.lastIndex = ids === undefined ? 0 : literals!.startOf(ids[r]!);
    let count = 0;
    for (;;) {
      const match = pattern.exec(text);
      if (match === null) break;
      if (match[0].length === 0) pattern.lastIndex++;
      if (rule.accept && !rule.accept(text, match)) continue;
      hits.push({
        signal: rule.signal,
        start: match.index,
        end: match.index + match[0].length,
        why: rule.why,
      });
      if (++count >= MAX_HITS_PER_RULE) break;
    }
  }
}

const NEGATION =
  /\b(?:never|not|no|cannot|can't|won't|doesn't|don't|does not|do not|without|nor)\s(?:[a-z]{1,12}\s)?$/i;

/** True when the word at `index` is negated by the few words before it ("never reads ..."). */
export function isNegated(text: string, index: number): boolean {
  return NEGATION.test(text.slice(Math.max(0, index - 30), index));
}

const DEFENSIVE =
  /\b(?:detect|detects|detecting|prevent|prevents|block|blocks|flag|flags|scan|scans|stop|stops|protect|protects|guard|guards|against|attempts? to|tries to|trying to|never|not|cannot|n't|report|reports)\b[^\n]{0,20}$/i;

/** True when the words before `index` describe defending against the act, not doing it. */
export function isDefensive(text: string, index: number): boolean {
  return DEFENSIVE.test(text.slice(Math.max(0, index - 40), index));
}

/**
 * The sentence around a span, bounded to 400 characters each side: from the last
 * `. `, `! `, `? ` or line break before `start` to the next one after `end`.
 */
export function sentenceAround(text: string, start: number, end: number): string {
  const lo = Math.max(0, start - 400);
  const hi = Math.min(text.length, end + 400);
  let s = lo;
  for (let i = start - 1; i >= lo; i--) {
    const c = text.charCodeAt(i);
    if (c === 0x0a) {
      s = i + 1;
      break;
    }
    if (c === 0x20 && i > 0) {
      const p = text.charCodeAt(i - 1);
      if (p === 0x2e || p === 0x21 || p === 0x3f) {
        s = i + 1;
        break;
      }
    }
  }
  let e = hi;
  for (let i = end; i < hi; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x0a) {
      e = i;
      break;
    }
    if (
      (c === 0x2e || c === 0x21 || c === 0x3f) &&
      (i + 1 >= text.length || text.charCodeAt(i + 1) === 0x20 || text.charCodeAt(i + 1) === 0x0a)
    ) {
      e = i + 1;
      break;
    }
  }
  return text.slice(s, e);
}
