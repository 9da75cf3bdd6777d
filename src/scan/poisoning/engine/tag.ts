/**
 * Concept tagging: every lexicon phrase and every language-free shape found in a text,
 * as mentions with their token span, sentence and clause, and what surrounds them
 * (negated, imperative, quoted, introduced as an example). Rules read mentions only;
 * they never see the words.
 */
import { CONCEPT_ID, POLAR, SPEECH_ACTS } from "../concepts.js";
import { DESCRIPTIVE_FORMS, VERB_FINAL, WITHOUT_WORDS } from "../lexicon/identify.js";
import { SHAPES, TOOL_NAME_VERBS } from "../lexicon/neutral.js";
import { candidatesOf, type Matcher, type WordPhrase, wordMatches } from "./compile.js";
import { phraseAt } from "./phrase.js";
import { sentenceLanguages } from "./language.js";
import { borrowedMatcher, matcherFor } from "./matcher.js";
import { RUN, type Tokens, tokenAt, tokenize, WORD } from "./tokenize.js";

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

/** What the tagger knows about the text's tool. */
export interface TagContext {
  /** The tool's own name, lower case. */
  readonly toolName: string;
  /** The tool's parameter names, lower case. */
  readonly params: ReadonlySet<string>;
  /**
   * Words of the tool's own job: its name and the first sentence of its description,
   * folded. "the SQL tool" names another tool unless SQL is this tool's job. Empty when
   * unknown (a description then supplies its own first sentence).
   */
  readonly purpose?: ReadonlySet<string>;
  /** The text is a tool's description: its first sentence states the tool's job, not orders. */
  readonly describesTool?: boolean;
}

/** The tagged text: its tokens and mentions (sorted by start). */
export interface Tagged {
  readonly tokens: Tokens;
  readonly mentions: Mention[];
}

const NEGATION = CONCEPT_ID.NEGATION;
const NEGATION_AFTER = CONCEPT_ID.NEGATION_AFTER;
const DIRECTIVE = CONCEPT_ID.DIRECTIVE;
const EXAMPLE = CONCEPT_ID.EXAMPLE;
const IMPERATIVE_MARK = CONCEPT_ID.IMPERATIVE_MARK;
const PERMISSION = CONCEPT_ID.PERMISSION;
const SEQUENCE = CONCEPT_ID.SEQUENCE;
const ALSO = CONCEPT_ID.ALSO;
const MODIFIER_AFTER = CONCEPT_ID.MODIFIER_AFTER;
const TOOL_REF = CONCEPT_ID.TOOL_REF;
const PARAM_REF = CONCEPT_ID.PARAM_REF;
const SELF = CONCEPT_ID.SELF;
const DESTINATION = CONCEPT_ID.DESTINATION;
const IDENTIFIERS = new Set([CONCEPT_ID.TOOL_REF, CONCEPT_ID.PARAM_REF, CONCEPT_ID.SELF]);
const TOOL_WORD = CONCEPT_ID.TOOL_WORD;
const OTHERNESS = CONCEPT_ID.OTHERNESS;
const OTHER_TOOL = CONCEPT_ID.OTHER_TOOL;
const SECRET = CONCEPT_ID.SECRET;
const HIGH_VALUE_SECRET = CONCEPT_ID.HIGH_VALUE_SECRET;
const SENSITIVE_SERVICE = CONCEPT_ID.SENSITIVE_SERVICE;
const USER_CHOICE = CONCEPT_ID.USER_CHOICE;
const SUBSTITUTE = CONCEPT_ID.SUBSTITUTE;
const OVERRIDE_CHOICE = CONCEPT_ID.OVERRIDE_CHOICE;
const CONCEAL = CONCEPT_ID.CONCEAL;
const ON_REQUEST = CONCEPT_ID.ON_REQUEST;
const USER = CONCEPT_ID.USER;
const TELL = CONCEPT_ID.TELL;
const POLAR_IDS = new Set([...POLAR].map((c) => CONCEPT_ID[c]));
const SPEECH_IDS = new Set([...SPEECH_ACTS].map((c) => CONCEPT_ID[c]));
/** Nouns a following "id", "name", "count"... turns into a property of something else. */
const DATA_NOUNS = new Set(
  (["SECRET", "PII", "CONTEXT", "USER_DATA", "HIGH_VALUE_SECRET"] as const).map(
    (c) => CONCEPT_ID[c],
  ),
);
/** Words that put the verb after them in the imperative ("then send", "also add"). */

/** Most tokens a negator may stand before the act it negates. */
const NEGATION_REACH = 4;

function mention(
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

function tagWords(tokens: Tokens, out: Mention[]): void {
  const lists: (readonly WordPhrase[])[] = [];
  const seen = new Set<number>();
  const languages = sentenceLanguages(tokens);
  let sentence = -1;
  let matcher = matcherFor("en");
  let foreign = false;
  for (let i = 0; i < tokens.count; i++) {
    if (tokens.sentence[i] !== sentence) {
      sentence = tokens.sentence[i]!;
      const language = languages[sentence]!;
      matcher = matcherFor(language);
      foreign = language !== "en";
    }
    if (tokens.kind[i] === RUN) {
      tagRun(tokens, i, matcher, out);
      continue;
    }
    const token = tokens.text[i]!;
    lists.length = 0;
    candidatesOf(matcher, token, lists);
    // Borrowed English nouns (API key, system prompt) count in every language.
    if (foreign) candidatesOf(borrowedMatcher(), token, lists);
    if (lists.length === 0) continue;
    seen.clear();
    for (const list of lists) {
      for (const phrase of list) {
        if (!wordMatches(phrase.words[0]!, token)) continue;
        const last = phraseAt(tokens, i, phrase);
        if (last < 0) continue;
        const key = phrase.concept * 64 + (last - i);
        if (seen.has(key)) continue;
        seen.add(key);
        out.push(
          mention(
            tokens,
            phrase.concept,
            tokens.start[i]!,
            tokens.end[last]!,
            i,
            last,
            phrase.language,
          ),
        );
      }
    }
  }
}

function tagRun(tokens: Tokens, i: number, matcher: Matcher, out: Mention[]): void {
  const run = tokens.text[i]!;
  const base = tokens.start[i]!;
  for (let p = 0; p < run.length; p++) {
    const list = matcher.runs.get(run[p]!);
    if (list === undefined) continue;
    for (const phrase of list) {
      if (!run.startsWith(phrase.text, p)) continue;
      const end = base + p + phrase.text.length;
      out.push(mention(tokens, phrase.concept, base + p, end, i, i, phrase.language));
    }
  }
}

/** Identifier shapes read against the tool: a parameter, the tool itself, or another tool. */
function identifierConcept(raw: string, context: TagContext, before: string): number | undefined {
  const ticked = raw.startsWith("`");
  const name = (ticked ? raw.slice(1, -1) : raw).toLowerCase();
  if (name === context.toolName) return SELF;
  if (context.params.has(name)) return PARAM_REF;
  if (/^[A-Z0-9_]+$/.test(ticked ? raw.slice(1, -1) : raw)) return undefined;
  const parts = name.split(/[_-]/);
  // Two-part hyphenated words are ordinary English (copy-paste, read-only) unless ticked.
  const enough = ticked || name.includes("_") || parts.length > 2;
  if (enough && parts.length > 1 && parts.some((p) => TOOL_NAME_VERBS.has(p))) return TOOL_REF;
  if (ticked && /(?:call|use|using|via|through|invoke|run|with)\s$/.test(before)) return TOOL_REF;
  return undefined;
}

function tagShapes(cased: string, tokens: Tokens, context: TagContext, out: Mention[]): void {
  for (const shape of SHAPES) {
    if (!shape.hint.test(cased)) continue;
    const pattern = shape.pattern;
    pattern.lastIndex = 0;
    let concept = CONCEPT_ID[shape.concept];
    let count = 0;
    for (let m = pattern.exec(cased); m !== null && count < 64; m = pattern.exec(cased)) {
      if (m[0].length === 0) {
        pattern.lastIndex++;
        continue;
      }
      let start = m.index;
      // Shapes that may start at a separator: the mention starts at the shape itself.
      while (start < m.index + m[0].length && /[\s'"`(/:,<!#*>[\-]/.test(cased[start]!)) start++;
      const end = m.index + m[0].length;
      if (shape.concept === "TOOL_REF") {
        const read = identifierConcept(
          cased.slice(start, end),
          context,
          cased.slice(Math.max(0, start - 12), start).toLowerCase(),
        );
        if (read === undefined) continue;
        concept = read;
      }
      const first = tokenAt(tokens, start);
      const last = Math.max(first, tokenAt(tokens, end - 1));
      out.push(mention(tokens, concept, start, end, first, last, ""));
      count++;
      if (shape.concept === "TOOL_REF") concept = TOOL_REF;
    }
  }
}

/** Most tokens between "any", "other"... and the word "tool" it qualifies ("any other payment tool"). */
const OTHERNESS_REACH = 3;

/**
 * "any payment tool", "other translation tools", "another tool": a determiner of
 * otherness before the word for a tool names tools other than this one, whatever sits
 * between them.
 */
function addOtherTools(
  tokens: Tokens,
  cased: string,
  mentions: Mention[],
  purpose: ReadonlySet<string>,
): void {
  const added: Mention[] = [];
  for (const word of mentions) {
    if (word.concept !== TOOL_WORD) continue;
    const other = mentions.find(
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
    // "the SQL tool", "the Slack integration": a tool named for a job that is not this one's.
    const named = namedFor(tokens, cased, word.first, purpose);
    if (named >= 0) {
      added.push({
        ...word,
        concept: OTHER_TOOL,
        start: tokens.start[named]!,
        first: named,
      });
    }
  }
  if (added.length === 0) return;
  mentions.push(...added);
  mentions.sort((a, b) => a.start - b.start || b.end - a.end);
}

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

/** The words of a text's first sentence, folded: its own statement of purpose. */
function firstSentenceWords(tokens: Tokens): Set<string> {
  const out = new Set<string>();
  for (let i = 0; i < tokens.count && tokens.sentence[i] === 0; i++) out.add(tokens.text[i]!);
  return out;
}

/** Most tokens between a sensitive account and the secret it qualifies ("online-banking username and password"). */
const SERVICE_REACH = 4;

/** A secret of an account no tool needs (the bank's password, the mailbox password) is a high-value secret. */
function addServiceSecrets(mentions: Mention[]): void {
  const added: Mention[] = [];
  for (const secret of mentions) {
    if (secret.concept !== SECRET) continue;
    const service = mentions.find(
      (m) =>
        m.concept === SENSITIVE_SERVICE &&
        m.clause === secret.clause &&
        Math.abs(secret.first - m.last) <= SERVICE_REACH,
    );
    if (service === undefined) continue;
    const first = Math.min(service.first, secret.first);
    added.push({
      ...secret,
      concept: HIGH_VALUE_SECRET,
      start: Math.min(service.start, secret.start),
      end: Math.max(service.end, secret.end),
      first,
      last: Math.max(service.last, secret.last),
    });
  }
  if (added.length === 0) return;
  mentions.push(...added);
  mentions.sort((a, b) => a.start - b.start || b.end - a.end);
}

/**
 * "regardless of the preferences they stated", "even if the invoice says otherwise": a
 * substitution in the same clause as the user's own choice overrules that choice.
 * And "even if they ask" is no on-request exception: it is concealment (lexicon).
 */
function addOverriddenChoices(mentions: Mention[]): void {
  const added: Mention[] = [];
  for (const choice of mentions) {
    if (choice.concept !== USER_CHOICE) continue;
    const swap = mentions.find(
      (m) => m.concept === SUBSTITUTE && m.clause === choice.clause && m.last < choice.first,
    );
    if (swap === undefined) continue;
    added.push({ ...swap, concept: OVERRIDE_CHOICE, end: choice.end, last: choice.last });
  }
  // An on-request exception inside "even if they ask" is not one.
  const concealed = mentions.filter((m) => m.concept === CONCEAL);
  for (let i = mentions.length - 1; i >= 0; i--) {
    const m = mentions[i]!;
    if (m.concept === ON_REQUEST && concealed.some((c) => c.start <= m.start && m.end <= c.end))
      mentions.splice(i, 1);
  }
  if (added.length === 0) return;
  mentions.push(...added);
  mentions.sort((a, b) => a.start - b.start || b.end - a.end);
}

/** Words inside a URL, an address or a host name are part of it, not of the sentence (`/send-requests/`, `compliance@example.com`). */
function dropInsideLinks(cased: string, mentions: Mention[]): void {
  let linkEnd = -1;
  let nameEnd = -1;
  let kept = 0;
  for (const m of mentions) {
    if (m.concept === DESTINATION) {
      mentions[kept++] = m;
      linkEnd = Math.max(linkEnd, m.end);
      continue;
    }
    if (m.start < linkEnd && m.end <= linkEnd) continue;
    if (IDENTIFIERS.has(m.concept)) {
      mentions[kept++] = m;
      nameEnd = Math.max(nameEnd, m.end);
      continue;
    }
    // The words of an identifier (`include_home`) are a name, not an act; what it names
    // (`ssh_private_key`) still counts.
    if (m.start < nameEnd && m.end <= nameEnd && POLAR_IDS.has(m.concept)) continue;
    mentions[kept++] = m;
  }
  mentions.length = kept;
}

function markContext(tagged: Tagged, cased: string, purposeSentence: boolean): void {
  const { tokens, mentions } = tagged;
  const byFirst = new Map<number, Mention[]>();
  for (const m of mentions) {
    const list = byFirst.get(m.first);
    if (list) list.push(m);
    else byFirst.set(m.first, [m]);
  }
  // A negator inside "don't forget to", "no dudes en", "vergiss nicht" is part of an order.
  const orders = mentions.filter((m) => m.concept === DIRECTIVE || m.concept === PERMISSION);
  const negators = mentions.filter(
    (m) =>
      (m.concept === NEGATION || m.concept === NEGATION_AFTER) &&
      !orders.some((o) => o.start <= m.start && m.end <= o.end),
  );
  const directives = mentions.filter((m) => m.concept === DIRECTIVE);
  const examples = mentions.filter((m) => m.concept === EXAMPLE);
  const endings = mentions.filter((m) => m.concept === IMPERATIVE_MARK);
  const leads = mentions.filter((m) => m.concept === SEQUENCE || m.concept === ALSO);
  for (const m of mentions) {
    if (POLAR_IDS.has(m.concept)) {
      // "never ... without showing": two negators cancel.
      m.negated = isNegated(
        tokens,
        negators.filter((n) => negates(tokens, n, m)),
      );
      m.imperative = isImperative(
        cased,
        tokens,
        m,
        directives,
        negators,
        endings,
        leads,
        purposeSentence,
      );
    }
    if (!SPEECH_IDS.has(m.concept)) m.quoted = false;
    if (
      examples.some((e) => e.sentence === m.sentence && e.last < m.first && m.first - e.last <= 3)
    )
      m.example = true;
  }
  dropSpeakers(tokens, mentions);
  // "password reset", "token count", "session id": the noun names a property, not the data.
  const demoted = new Set<Mention>();
  for (const m of mentions) {
    if (!DATA_NOUNS.has(m.concept)) continue;
    const next = byFirst.get(m.last + 1);
    if (next?.some((x) => x.concept === MODIFIER_AFTER && x.clause === m.clause)) demoted.add(m);
    // "send to all contacts": the noun after "to" is where it goes, not what is sent.
    else if (precededByTo(tokens, m.first)) demoted.add(m);
  }
  if (demoted.size > 0) {
    for (let i = mentions.length - 1; i >= 0; i--)
      if (demoted.has(mentions[i]!)) mentions.splice(i, 1);
  }
}

/**
 * "the user did not mention": a user right before a verb of telling is who speaks, not
 * who is told; such a mention is no audience. A passive ("the user is not told") or a
 * verb of learning ("the user does not need to know") keeps the user as the one kept
 * in the dark.
 */
function dropSpeakers(tokens: Tokens, mentions: Mention[]): void {
  for (let i = mentions.length - 1; i >= 0; i--) {
    const user = mentions[i]!;
    if (user.concept !== USER) continue;
    const tell = mentions.find(
      (m) =>
        m.concept === TELL &&
        m.clause === user.clause &&
        m.first > user.last &&
        distance(tokens, user.last, m.first) <= 2 &&
        !isPassive(tokens, m.first),
    );
    if (tell !== undefined) mentions.splice(i, 1);
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

function precededByTo(tokens: Tokens, i: number): boolean {
  for (let k = i - 1; k >= Math.max(0, i - 2); k--) {
    if (tokens.clause[k] !== tokens.clause[i]) return false;
    if (tokens.text[k] === "to") return true;
  }
  return false;
}

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

/**
 * Whether the negators that reach an act negate it. Overlapping ones ("not necessary to"
 * and its "not") count once; "never ... without" cancels, since "without" negates the
 * act and the other negator negates "without".
 */
function isNegated(tokens: Tokens, found: Mention[]): boolean {
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

/** Most characters between a negator and its act inside one run of a script without spaces. */
const RUN_NEGATION_REACH = 4;

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
  if (n.last < m.first) return distance(tokens, n.last, m.first) <= NEGATION_REACH;
  return false;
}

function isAllCaps(cased: string, tokens: Tokens, i: number): boolean {
  const word = cased.slice(tokens.start[i]!, tokens.end[i]!);
  return word.length >= 3 && word === word.toUpperCase() && word !== word.toLowerCase();
}

function isImperative(
  cased: string,
  tokens: Tokens,
  m: Mention,
  directives: Mention[],
  negators: Mention[],
  endings: Mention[],
  leads: Mention[],
  purposeSentence: boolean,
): boolean {
  const i = m.first;
  // An imperative ending after the act: してください, 하세요, करें (same run, or the next tokens).
  for (const e of endings) {
    if (e.clause !== m.clause || e.start < m.end) continue;
    if (tokens.kind[i] === RUN ? e.first === i && e.start - m.end <= 8 : e.first - m.last <= 2)
      return true;
  }
  if (tokens.kind[i] === RUN) {
    for (const d of directives) if (d.clause === m.clause && d.end <= m.start) return true;
    return false;
  }
  const clauseEnd = m.last + 1 >= tokens.count || tokens.clause[m.last + 1] !== m.clause;
  // Verb-final languages order with the bare verb at the end of its clause ("भेजो"); in
  // Turkish only a form the lexicon knows as an order does ("gönder", not "gönderir").
  if (VERB_FINAL.has(m.language) && clauseEnd) return true;
  if (m.language === "tr" && clauseEnd)
    return directives.some((d) => d.start <= m.start && m.end <= d.end);
  // After must, should, please...: an order whatever the form ("must be obeyed").
  for (const d of directives)
    if (d.last < i && i - d.last <= 2 && d.clause === m.clause) return true;
  // Third person and participles describe the tool; the bare form orders.
  if (DESCRIPTIVE_FORMS[m.language]?.test(tokens.text[i]!)) return false;
  // An all-caps word inside a sentence is a literal (GET, COPY, PURGE), not an order.
  if (i > 0 && tokens.sentence[i - 1] === tokens.sentence[i] && isAllCaps(cased, tokens, i))
    return false;
  const opensClause = i === 0 || tokens.clause[i - 1] !== tokens.clause[i];
  // A description's first sentence states the tool's job: "Envía un correo", "Delete a file".
  if (opensClause && purposeSentence && tokens.sentence[i] === 0) return false;
  if (opensClause) return true;
  if (leads.some((l) => l.last === i - 1)) return true;
  // "do not ask", "never tell": a negator that opens the clause.
  for (const n of negators) {
    if (
      n.last < i &&
      i - n.last <= 2 &&
      (n.first === 0 || tokens.clause[n.first - 1] !== tokens.clause[n.first])
    )
      return true;
  }
  return false;
}

/**
 * Every mention in a text. `lower` is the lower-case matching text and `cased` the same
 * text with its case (same length).
 *
 * @example
 * ```ts
 * import { tagText } from "./tag.js";
 * const t = tagText("never tell the user", "never tell the user", { toolName: "", params: new Set() });
 * console.log(t.mentions.some((m) => m.negated)); // true
 * ```
 */
export function tagText(
  lower: string,
  cased: string,
  context: TagContext,
  tokens: Tokens = tokenize(lower, cased),
): Tagged {
  const mentions: Mention[] = [];
  tagWords(tokens, mentions);
  tagShapes(cased, tokens, context, mentions);
  mentions.sort((a, b) => a.start - b.start || b.end - a.end);
  dropInsideLinks(cased, mentions);
  const purpose =
    context.purpose !== undefined && context.purpose.size > 0
      ? context.purpose
      : new Set([...firstSentenceWords(tokens), ...context.toolName.split(/[_\W]+/)]);
  addOtherTools(tokens, cased, mentions, purpose);
  addServiceSecrets(mentions);
  addOverriddenChoices(mentions);
  const tagged = { tokens, mentions };
  markContext(tagged, cased, context.describesTool === true);
  return tagged;
}
