/**
 * What surrounds each mention: is the act negated ("never pass"), given as an order
 * ("send", "must be obeyed", 送ってください), quoted, introduced as an example; is a user
 * the one who speaks ("the user did not mention") rather than the one told; is a data
 * noun only a property ("password reset", "page token"). Every question looks a bounded
 * number of tokens around the mention (Nearby), so the pass is linear in the text.
 */
import { CONCEPT_ID, POLAR, SPEECH_ACTS } from "../concepts.js";
import { DESCRIPTIVE_FORMS, VERB_FINAL, WITHOUT_WORDS } from "../lexicon/identify.js";
import type { Mention } from "./mention.js";
import { Nearby } from "./nearby.js";
import { RUN, type Tokens } from "./tokenize.js";

const NEGATION = CONCEPT_ID.NEGATION;
const NEGATION_AFTER = CONCEPT_ID.NEGATION_AFTER;
const DIRECTIVE = CONCEPT_ID.DIRECTIVE;
const PERMISSION = CONCEPT_ID.PERMISSION;
const EXAMPLE = CONCEPT_ID.EXAMPLE;
const IMPERATIVE_MARK = CONCEPT_ID.IMPERATIVE_MARK;
const SEQUENCE = CONCEPT_ID.SEQUENCE;
const ALSO = CONCEPT_ID.ALSO;
const MODIFIER_AFTER = CONCEPT_ID.MODIFIER_AFTER;
const MODIFIER_BEFORE = CONCEPT_ID.MODIFIER_BEFORE;
const USER = CONCEPT_ID.USER;
const TELL = CONCEPT_ID.TELL;
const POLAR_IDS = new Set([...POLAR].map((c) => CONCEPT_ID[c]));
const SPEECH_IDS = new Set([...SPEECH_ACTS].map((c) => CONCEPT_ID[c]));
/** Nouns a neighbouring "id", "name", "page"... turns into a property of something else. */
const DATA_NOUNS = new Set(
  (["SECRET", "PII", "CONTEXT", "USER_DATA", "HIGH_VALUE_SECRET"] as const).map(
    (c) => CONCEPT_ID[c],
  ),
);
/** Acts a user right before them performs themselves ("the user pastes"). */
const USERS_OWN_ACTS = new Set([CONCEPT_ID.TRANSFER, CONCEPT_ID.READ, CONCEPT_ID.OBEY]);

/** Most tokens a negator may stand before the act it negates, auxiliaries not counted. */
const NEGATION_REACH = 4;
/** Most characters between a negator and its act inside one run of a script without spaces. */
const RUN_NEGATION_REACH = 8;
/** Raw tokens looked at around a mention (reaches plus the auxiliaries they skip). */
const LOOK = 12;

/** Words between a negator and its act that do not count towards the reach ("not need to be told"). */
const AUXILIARIES = new Set(
  "be been being is are was were to need needs have has had do does did will would shall should can could may might must ever really actually necessarily get got explicitly directly also even".split(
    " ",
  ),
);

/** Tokens from `from` to `to`, auxiliaries between them not counted. */
function distance(tokens: Tokens, from: number, to: number): number {
  let d = 0;
  for (let k = from + 1; k < to; k++) if (!AUXILIARIES.has(tokens.text[k]!)) d++;
  return d + 1;
}

/** An English gerund ("modifying"), not a pronoun or preposition that ends the same way. */
function isGerund(word: string): boolean {
  return (
    word.length > 5 &&
    word.endsWith("ing") &&
    !word.endsWith("thing") &&
    !NOT_GERUNDS.has(word) &&
    !AUXILIARIES.has(word)
  );
}
const NOT_GERUNDS = new Set([
  "during",
  "string",
  "strings",
  "nothing",
  "morning",
  "evening",
  "pending",
]);

function negates(tokens: Tokens, n: Mention, m: Mention): boolean {
  if (n.clause !== m.clause || (n.start < m.end && m.start < n.end)) return false;
  if (tokens.kind[m.first] === RUN && n.first === m.first) {
    // Inside one run: by characters, before the act (不要告诉) or after it (送信しないで).
    if (n.concept === NEGATION_AFTER)
      return n.start >= m.end && n.start - m.end <= RUN_NEGATION_REACH;
    return n.end <= m.start && m.start - n.end <= RUN_NEGATION_REACH;
  }
  if (n.first === m.first && n.last === m.last) return false;
  if (n.concept === NEGATION_AFTER)
    return n.first > m.last && distance(tokens, m.last, n.first) <= NEGATION_REACH + 1;
  if (n.last < m.first) {
    // "rules about not modifying CI have been retired": a negator right before a gerund
    // negates that gerund, not an act further on.
    const next = tokens.text[n.last + 1] ?? "";
    if (n.last + 1 < m.first && isGerund(next)) return false;
    return distance(tokens, n.last, m.first) <= NEGATION_REACH;
  }
  return false;
}

/**
 * Whether the negators that reach an act negate it. Overlapping ones ("not necessary to"
 * and its "not") count once; "never ... without" cancels, since "without" negates the
 * act and the other negator negates "without".
 */
function negatedBy(tokens: Tokens, found: Mention[]): boolean {
  let count = 0;
  let without = false;
  let end = -1;
  for (const n of [...found].sort((a, b) => a.start - b.start)) {
    if (n.start >= end) {
      count++;
      if (WITHOUT_WORDS.has(tokens.text[n.first]!)) without = true;
    }
    end = Math.max(end, n.end);
  }
  return count === 1 || (count > 1 && !without);
}

function isAllCaps(cased: string, tokens: Tokens, i: number): boolean {
  const word = cased.slice(tokens.start[i]!, tokens.end[i]!);
  return word.length >= 3 && word === word.toUpperCase() && word !== word.toLowerCase();
}

function opensClause(tokens: Tokens, i: number): boolean {
  return i === 0 || tokens.clause[i - 1] !== tokens.clause[i];
}

interface Reading {
  readonly tokens: Tokens;
  readonly cased: string;
  readonly near: Nearby;
  readonly purposeSentence: boolean;
  readonly isNegator: (m: Mention) => boolean;
}

/** An imperative ending after the act: してください, 하세요, करें (same run, or the next tokens). */
function hasEnding(r: Reading, m: Mention): boolean {
  const run = r.tokens.kind[m.first] === RUN;
  return (
    r.near.find(run ? m.first : m.last, run ? m.first : m.last + 3, (e) => {
      if (e.concept !== IMPERATIVE_MARK || e.clause !== m.clause || e.start < m.end) return false;
      return run ? e.start - m.end <= 8 : e.first - m.last <= 2;
    }) !== undefined
  );
}

/** A directive (must, should, please) ending within two tokens before token `i`. */
function afterDirective(r: Reading, m: Mention, i: number): boolean {
  return (
    r.near.find(
      i - LOOK,
      i - 1,
      (d) =>
        d.concept === DIRECTIVE &&
        d.last < i &&
        distance(r.tokens, d.last, i) <= 2 &&
        d.clause === m.clause,
    ) !== undefined
  );
}

function isImperative(r: Reading, m: Mention): boolean {
  const { tokens } = r;
  const i = m.first;
  if (hasEnding(r, m)) return true;
  if (tokens.kind[i] === RUN) {
    return (
      r.near.find(
        i - LOOK,
        i,
        (d) => d.concept === DIRECTIVE && d.clause === m.clause && d.end <= m.start,
      ) !== undefined
    );
  }
  const clauseEnd = m.last + 1 >= tokens.count || tokens.clause[m.last + 1] !== m.clause;
  // Verb-final languages order with the bare verb at the end of its clause ("भेजो"); in
  // Turkish only a form the lexicon knows as an order does ("gönder", not "gönderir").
  if (VERB_FINAL.has(m.language) && clauseEnd) return true;
  if (m.language === "tr" && clauseEnd)
    return (
      r.near.find(
        i - 3,
        i,
        (d) => d.concept === DIRECTIVE && d.start <= m.start && m.end <= d.end,
      ) !== undefined
    );
  // After must, should, please...: an order whatever the form ("must be obeyed").
  if (afterDirective(r, m, i)) return true;
  // Third person and participles describe the tool; the bare form orders.
  if (DESCRIPTIVE_FORMS[m.language]?.test(tokens.text[i]!)) return false;
  // An all-caps word inside a sentence is a literal (GET, COPY, PURGE), not an order.
  if (i > 0 && tokens.sentence[i - 1] === tokens.sentence[i] && isAllCaps(r.cased, tokens, i))
    return false;
  if (opensClause(tokens, i)) {
    // A description's first clause states the tool's job: "Envía un correo", "Delete a file".
    return !(r.purposeSentence && tokens.clause[i] === 0);
  }
  if (
    r.near.find(
      i - 3,
      i - 1,
      (l) => (l.concept === SEQUENCE || l.concept === ALSO) && l.last === i - 1,
    )
  )
    return true;
  // "do not ask", "never tell": a negator that opens the clause.
  return (
    r.near.find(
      i - 5,
      i - 1,
      (n) =>
        r.isNegator(n) &&
        !WITHOUT_WORDS.has(tokens.text[n.first]!) &&
        n.last < i &&
        i - n.last <= 2 &&
        opensClause(tokens, n.first),
    ) !== undefined
  );
}

function markActs(r: Reading, mentions: readonly Mention[]): void {
  for (const m of mentions) {
    if (POLAR_IDS.has(m.concept)) {
      const around = r.near.filter(m.first - LOOK, m.last + LOOK, r.isNegator);
      // A phrase that holds its own negator ("no longer relevant", "doesn't apply") is read
      // as written; a negator outside it belongs to another act.
      const own = around.some((n) => n.start >= m.start && n.end <= m.end);
      m.negated =
        !own &&
        negatedBy(
          r.tokens,
          around.filter((n) => negates(r.tokens, n, m)),
        );
      m.imperative = isImperative(r, m);
    }
    if (!SPEECH_IDS.has(m.concept)) m.quoted = false;
    const example = r.near.find(
      m.first - 6,
      m.first - 1,
      (e) =>
        e.concept === EXAMPLE &&
        e.sentence === m.sentence &&
        e.last < m.first &&
        m.first - e.last <= 3,
    );
    if (example !== undefined) m.example = true;
  }
}

function isPassive(tokens: Tokens, i: number): boolean {
  for (let k = i - 1; k >= Math.max(0, i - 2); k--) {
    const w = tokens.text[k]!;
    if (
      w === "be" ||
      w === "been" ||
      w === "being" ||
      w === "is" ||
      w === "are" ||
      w === "was" ||
      w === "were" ||
      w === "get"
    )
      return true;
  }
  return false;
}

/**
 * "the user did not mention": a user right before a verb of telling is who speaks, not
 * who is told (the user mention goes); "the conversation the user pastes in": the user's
 * own act, not one asked of the model (the act goes). A passive ("the user is not told")
 * keeps the user as the one kept in the dark.
 */
function speakers(r: Reading, mentions: readonly Mention[], drop: Set<Mention>): void {
  for (const user of mentions) {
    if (user.concept !== USER) continue;
    for (const m of r.near.filter(user.last + 1, user.last + 8, () => true)) {
      if (m.clause !== user.clause || m.first <= user.last) continue;
      if (distance(r.tokens, user.last, m.first) > 2 || isPassive(r.tokens, m.first)) continue;
      if (m.concept === TELL) drop.add(user);
      else if (USERS_OWN_ACTS.has(m.concept)) drop.add(m);
    }
  }
}

function precededByTo(tokens: Tokens, i: number): boolean {
  for (let k = i - 1; k >= Math.max(0, i - 2); k--) {
    if (tokens.clause[k] !== tokens.clause[i]) return false;
    if (tokens.text[k] === "to") return true;
  }
  return false;
}

/** "password reset", "page token", "send to all contacts": the noun is a property, a handle or the destination. */
function properties(r: Reading, mentions: readonly Mention[], drop: Set<Mention>): void {
  for (const m of mentions) {
    if (!DATA_NOUNS.has(m.concept)) continue;
    const after = r.near.find(
      m.last + 1,
      m.last + 1,
      (x) => x.concept === MODIFIER_AFTER && x.clause === m.clause,
    );
    const before = r.near.find(
      m.first - 3,
      m.first - 1,
      (x) => x.concept === MODIFIER_BEFORE && x.last === m.first - 1 && x.clause === m.clause,
    );
    if (after !== undefined || before !== undefined || precededByTo(r.tokens, m.first)) drop.add(m);
  }
}

/**
 * Mark every mention in context, and return the mentions that remain (speakers,
 * users' own acts and property nouns removed).
 *
 * @example
 * ```ts
 * import { inContext } from "./context.js";
 * import { tokenize } from "./tokenize.js";
 * console.log(inContext(tokenize("x", "x"), "x", [], false).length); // 0
 * ```
 */
export function inContext(
  tokens: Tokens,
  cased: string,
  mentions: Mention[],
  purposeSentence: boolean,
): Mention[] {
  const near = new Nearby(mentions, tokens.count);
  // A negator inside "don't forget to", "no dudes en", "vergiss nicht" is part of an order.
  const isNegator = (m: Mention): boolean =>
    (m.concept === NEGATION || m.concept === NEGATION_AFTER) &&
    near.find(
      m.first - 4,
      m.first,
      (o) =>
        (o.concept === DIRECTIVE || o.concept === PERMISSION) &&
        o.start <= m.start &&
        m.end <= o.end,
    ) === undefined;
  const reading: Reading = { tokens, cased, near, purposeSentence, isNegator };
  markActs(reading, mentions);
  const drop = new Set<Mention>();
  speakers(reading, mentions, drop);
  properties(reading, mentions, drop);
  return drop.size === 0 ? mentions : mentions.filter((m) => !drop.has(m));
}
