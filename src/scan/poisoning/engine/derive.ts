/**
 * Concepts derived from others near them: "any other payment tool" names another tool,
 * "the online-banking password" is a high-value secret, "regardless of the preferences
 * they stated" overrules the user's choice. Each looks a few tokens around one mention
 * (Nearby), so the passes stay linear in the text.
 */
import { CONCEPT_ID } from "../concepts.js";
import type { Mention } from "./mention.js";
import { Nearby } from "./nearby.js";
import { type Tokens, WORD } from "./tokenize.js";

const TOOL_WORD = CONCEPT_ID.TOOL_WORD;
const OTHERNESS = CONCEPT_ID.OTHERNESS;
const OTHER_TOOL = CONCEPT_ID.OTHER_TOOL;
const MODIFIER_AFTER = CONCEPT_ID.MODIFIER_AFTER;
const SECRET = CONCEPT_ID.SECRET;
const HIGH_VALUE_SECRET = CONCEPT_ID.HIGH_VALUE_SECRET;
const SENSITIVE_SERVICE = CONCEPT_ID.SENSITIVE_SERVICE;
const USER_CHOICE = CONCEPT_ID.USER_CHOICE;
const SUBSTITUTE = CONCEPT_ID.SUBSTITUTE;
const OVERRIDE_CHOICE = CONCEPT_ID.OVERRIDE_CHOICE;
const CONCEAL = CONCEPT_ID.CONCEAL;
const ON_REQUEST = CONCEPT_ID.ON_REQUEST;

/** Most tokens between "any", "other"... and the word "tool" it qualifies ("any other payment tool"). */
const OTHERNESS_REACH = 3;
/** Most tokens between a sensitive account and its secret ("online-banking username and password"). */
const SERVICE_REACH = 4;
/** Most tokens between "regardless of" and the choice it overrules. */
const CHOICE_REACH = 12;
/** Longest phrase, in tokens, that can hold an on-request exception ("even if they ask"). */
const PHRASE_REACH = 6;

/** Words before "tool" that say which tool without naming another job. */
const NOT_A_JOB = new Set(
  "this that the a an our its my your same current given selected following above previous next one any every each all some no which what other another only never".split(
    " ",
  ),
);

/** The token before `i` that names the job of the tool word at `i`, when it is not this tool's job; else -1. */
function namedFor(tokens: Tokens, cased: string, i: number, purpose: ReadonlySet<string>): number {
  const k = i - 1;
  if (k < 0 || tokens.clause[k] !== tokens.clause[i] || tokens.kind[k] !== WORD) return -1;
  // One word split by case or a hyphen ("DevTools", "list-items tool") is a name, not a phrase.
  const gap = tokens.start[i]! - tokens.end[k]!;
  if (gap === 0 || (gap === 1 && "-_/@.".includes(cased[tokens.end[k]!]!))) return -1;
  const word = tokens.text[k]!;
  if (NOT_A_JOB.has(word) || word.length < 3 || /^\d/.test(word)) return -1;
  // "This CircleCI MCP server": the tool speaking of itself.
  for (let b = k - 1; b >= Math.max(0, k - 3) && tokens.clause[b] === tokens.clause[i]; b--) {
    const w = tokens.text[b]!;
    if (w === "this" || w === "our" || w === "these") return -1;
  }
  for (const p of purpose) if (p.slice(0, 4) === word.slice(0, 4)) return -1;
  return k;
}

/**
 * "any payment tool", "other translation tools": a determiner of otherness before the
 * word for a tool names tools other than this one; "the SQL tool" names a tool for a job
 * that is not this one's.
 */
function otherTools(
  tokens: Tokens,
  cased: string,
  mentions: readonly Mention[],
  near: Nearby,
  purpose: ReadonlySet<string>,
  added: Mention[],
): void {
  for (const word of mentions) {
    if (word.concept !== TOOL_WORD) continue;
    // "the exact tool name", "the tool id": a property of a tool, not a tool.
    const property = near.find(
      word.last + 1,
      word.last + 1,
      (m) => m.concept === MODIFIER_AFTER && m.first === word.last + 1,
    );
    if (property !== undefined) continue;
    const other = near.find(
      word.first - OTHERNESS_REACH - 2,
      word.first - 1,
      (m) =>
        m.concept === OTHERNESS &&
        m.clause === word.clause &&
        m.last < word.first &&
        word.first - m.last <= OTHERNESS_REACH,
    );
    if (other !== undefined) {
      added.push({ ...other, concept: OTHER_TOOL, end: word.end, last: word.last });
      continue;
    }
    const named = namedFor(tokens, cased, word.first, purpose);
    if (named >= 0)
      added.push({ ...word, concept: OTHER_TOOL, start: tokens.start[named]!, first: named });
  }
}

/** A secret of an account no tool needs (the bank's password, the mailbox password) is a high-value secret. */
function serviceSecrets(mentions: readonly Mention[], near: Nearby, added: Mention[]): void {
  for (const secret of mentions) {
    if (secret.concept !== SECRET) continue;
    const service = near.find(
      secret.first - SERVICE_REACH - 3,
      secret.first + SERVICE_REACH,
      (m) =>
        m.concept === SENSITIVE_SERVICE &&
        m.clause === secret.clause &&
        Math.abs(secret.first - m.last) <= SERVICE_REACH,
    );
    if (service === undefined) continue;
    added.push({
      ...secret,
      concept: HIGH_VALUE_SECRET,
      start: Math.min(service.start, secret.start),
      end: Math.max(service.end, secret.end),
      first: Math.min(service.first, secret.first),
      last: Math.max(service.last, secret.last),
    });
  }
}

/** A substitution before the user's own choice, in its clause, overrules that choice. */
function overriddenChoices(mentions: readonly Mention[], near: Nearby, added: Mention[]): void {
  for (const choice of mentions) {
    if (choice.concept !== USER_CHOICE) continue;
    const swap = near.find(
      choice.first - CHOICE_REACH,
      choice.first - 1,
      (m) => m.concept === SUBSTITUTE && m.clause === choice.clause && m.last < choice.first,
    );
    if (swap !== undefined)
      added.push({ ...swap, concept: OVERRIDE_CHOICE, end: choice.end, last: choice.last });
  }
}

/** An on-request exception inside "even if they ask" is none: the lexicon reads the whole as concealment. */
function insideConcealment(m: Mention, near: Nearby): boolean {
  return (
    m.concept === ON_REQUEST &&
    near.find(
      m.first - PHRASE_REACH,
      m.first,
      (c) => c.concept === CONCEAL && c.start <= m.start && m.end <= c.end,
    ) !== undefined
  );
}

/**
 * The mentions with the derived ones added (and on-request exceptions inside concealment
 * removed), sorted by start.
 *
 * @example
 * ```ts
 * import { withDerived } from "./derive.js";
 * import { tokenize } from "./tokenize.js";
 * console.log(withDerived(tokenize("x", "x"), "x", [], new Set()).length); // 0
 * ```
 */
export function withDerived(
  tokens: Tokens,
  cased: string,
  mentions: Mention[],
  purpose: ReadonlySet<string>,
): Mention[] {
  const near = new Nearby(mentions, tokens.count);
  const added: Mention[] = [];
  otherTools(tokens, cased, mentions, near, purpose, added);
  serviceSecrets(mentions, near, added);
  overriddenChoices(mentions, near, added);
  const kept = mentions.filter((m) => !insideConcealment(m, near));
  if (added.length === 0 && kept.length === mentions.length) return mentions;
  return [...kept, ...added].sort((a, b) => a.start - b.start || b.end - a.end);
}
