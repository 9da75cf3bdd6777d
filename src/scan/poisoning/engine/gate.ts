/**
 * The concept gate: a cheap pass that says whether any signal could fire on a text,
 * before mentions are built and judged. Most tool texts carry concepts no rule combines,
 * so they stop here. The gate over-approximates, never under: every phrase whose first
 * word matches counts as present (the rest of the phrase unchecked), a shape counts in
 * every sentence as soon as its hint is in the text, derived concepts count when what
 * they are derived from does, and polarity, order and context conditions are ignored.
 * So a text the gate turns away is one no rule can fire on, with any tool around it.
 */
import { CONCEPT_ID, CONCEPT_LIST, type Concept } from "../concepts.js";
import { SHAPES } from "../lexicon/neutral.js";
import { COMPILED_SIGNALS } from "../signals/index.js";
import { candidatesOf, type WordPhrase } from "./compile.js";
import type { TextKind } from "./judge.js";
import { sentenceLanguages } from "./language.js";
import { borrowedMatcher, matcherFor } from "./matcher.js";
import { phraseAt } from "./phrase.js";
import { RUN, type Tokens, WORD } from "./tokenize.js";

const WORDS = Math.ceil(CONCEPT_LIST.length / 32);

function set(mask: Uint32Array, at: number, concept: number): void {
  const i = at + (concept >>> 5);
  mask[i] = mask[i]! | (1 << (concept & 31));
}

function has(mask: Uint32Array, at: number, concept: number): boolean {
  return (mask[at + (concept >>> 5)]! & (1 << (concept & 31))) !== 0;
}

/** Concepts the tagger derives from others, and what each is derived from. */
const DERIVED: readonly [Concept, readonly Concept[]][] = [
  ["OTHER_TOOL", ["TOOL_WORD"]],
  ["HIGH_VALUE_SECRET", ["SECRET"]],
  ["OVERRIDE_CHOICE", ["USER_CHOICE"]],
  ["PARAM_REF", ["TOOL_REF"]],
  ["SELF", ["TOOL_REF"]],
];
const DERIVED_IDS = DERIVED.map(
  ([to, from]) => [CONCEPT_ID[to], from.map((c) => CONCEPT_ID[c])] as const,
);
/** Identifier shapes are read as another tool, a parameter or the tool itself. */
const TOOL_REF = CONCEPT_ID.TOOL_REF;

const NEGATORS = (() => {
  const mask = new Uint32Array(WORDS);
  set(mask, 0, CONCEPT_ID.NEGATION);
  set(mask, 0, CONCEPT_ID.NEGATION_AFTER);
  return mask;
})();

/**
 * Rules as need masks, with where they apply. A need that only a negated act meets
 * ("TELL-") also needs a negator in reach, which a sentence without one lacks.
 */
const GATED = COMPILED_SIGNALS.flatMap((s) =>
  s.rules.map((rule) => ({
    ...rule,
    masks: rule.onlyNegated ? [...rule.masks, NEGATORS] : rule.masks,
  })),
);

/**
 * Concepts some rule's needs (or a derivation's sources) name: the gate marks only these.
 * A concept read only for context (a tool's job, `unlessPurpose`) or only as a rule's
 * `none` cannot make a rule meet, so its phrases are not looked up here.
 */
const GATE_CONCEPTS = (() => {
  const used = new Uint8Array(CONCEPT_LIST.length);
  for (const rule of GATED) {
    for (const need of rule.masks) {
      for (let c = 0; c < CONCEPT_LIST.length; c++) if (has(need, 0, c)) used[c] = 1;
    }
  }
  for (const [, from] of DERIVED_IDS) for (const c of from) used[c] = 1;
  return used;
})();

/** The word token after `i` in its sentence, which a phrase's second word must be. */
function nextWord(tokens: Tokens, i: number): string | undefined {
  const k = i + 1;
  if (k >= tokens.count || tokens.kind[k] !== WORD || tokens.sentence[k] !== tokens.sentence[i])
    return undefined;
  return tokens.text[k];
}

function markWords(tokens: Tokens, cased: string, mask: Uint32Array): void {
  const languages = sentenceLanguages(tokens, cased);
  const lists: (readonly WordPhrase[])[] = [];
  for (let i = 0; i < tokens.count; i++) {
    const sentence = tokens.sentence[i]!;
    const language = languages[sentence]!;
    const matcher = matcherFor(language);
    const at = sentence * WORDS;
    if (tokens.kind[i] === RUN) {
      const run = tokens.text[i]!;
      for (let p = 0; p < run.length; p++) {
        for (const phrase of matcher.runs.get(run[p]!) ?? []) {
          if (GATE_CONCEPTS[phrase.concept] === 1 && run.startsWith(phrase.text, p))
            set(mask, at, phrase.concept);
        }
      }
      continue;
    }
    lists.length = 0;
    const next = nextWord(tokens, i);
    candidatesOf(matcher, tokens.text[i]!, lists, next);
    if (language !== "en") candidatesOf(borrowedMatcher(), tokens.text[i]!, lists, next);
    for (const list of lists) {
      for (const phrase of list) {
        if (
          GATE_CONCEPTS[phrase.concept] === 1 &&
          !has(mask, at, phrase.concept) &&
          phraseAt(tokens, i, phrase) >= 0
        )
          set(mask, at, phrase.concept);
      }
    }
  }
}

/** Shapes whose hint alone says little (a colon, a bracket): their pattern is run. */
const RUN_PATTERN = new Set<string>(["ROLE_LABEL", "AUTHORITY_MARKUP"]);

function markShapes(cased: string, sentences: number, mask: Uint32Array): void {
  for (const shape of SHAPES) {
    if (!shape.hint.test(cased)) continue;
    if (RUN_PATTERN.has(shape.concept)) {
      shape.pattern.lastIndex = 0;
      const found = shape.pattern.test(cased);
      shape.pattern.lastIndex = 0;
      if (!found) continue;
    }
    const concept = CONCEPT_ID[shape.concept];
    for (let s = 0; s < sentences; s++) {
      set(mask, s * WORDS, concept);
      if (concept === TOOL_REF) {
        set(mask, s * WORDS, CONCEPT_ID.PARAM_REF);
        set(mask, s * WORDS, CONCEPT_ID.SELF);
      }
    }
  }
}

function markDerived(sentences: number, mask: Uint32Array): void {
  for (let s = 0; s < sentences; s++) {
    const at = s * WORDS;
    for (const [to, from] of DERIVED_IDS) if (from.some((c) => has(mask, at, c))) set(mask, at, to);
  }
}

function needsMet(
  masks: readonly Uint32Array[],
  mask: Uint32Array,
  from: number,
  to: number,
): boolean {
  for (const need of masks) {
    let found = false;
    for (let s = from; s < to && !found; s++) {
      for (let w = 0; w < WORDS; w++) {
        if ((mask[s * WORDS + w]! & need[w]!) !== 0) {
          found = true;
          break;
        }
      }
    }
    if (!found) return false;
  }
  return true;
}

/**
 * False when no concept rule can fire on the text of `tokens` (its cased form `cased`)
 * as a text of `kind`, whatever tool it belongs to.
 *
 * @example
 * ```ts
 * import { mayFire } from "./gate.js";
 * import { tokenize } from "./tokenize.js";
 * const text = "the repository owner";
 * console.log(mayFire(tokenize(text, text), text, "schema-description")); // false
 * ```
 */
export function mayFire(tokens: Tokens, cased: string, kind: TextKind): boolean {
  const sentences = Math.max(1, tokens.sentences);
  const mask = new Uint32Array(sentences * WORDS);
  markWords(tokens, cased, mask);
  markShapes(cased, sentences, mask);
  markDerived(sentences, mask);
  // Every concept of the text in one mask: a rule whose needs the whole text cannot meet
  // is skipped without a look at each sentence (most rules, on most texts).
  const union = new Uint32Array(WORDS);
  for (let k = 0; k < mask.length; k++) union[k % WORDS] = union[k % WORDS]! | mask[k]!;
  for (const rule of GATED) {
    if (rule.sites !== undefined && !rule.sites.has(kind)) continue;
    if (!needsMet(rule.masks, union, 0, 1)) continue;
    if (rule.scope === "text") return true;
    const reach = rule.scope === "window" ? 2 : 1;
    for (let s = 0; s < sentences; s++) {
      if (needsMet(rule.masks, mask, s, Math.min(sentences, s + reach))) return true;
    }
  }
  return false;
}
