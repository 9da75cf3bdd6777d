/**
 * Concept tagging: every lexicon phrase and every language-free shape found in a text,
 * as mentions with their token span, sentence and clause, and what surrounds them
 * (negated, imperative, quoted, introduced as an example). Rules read mentions only;
 * they never see the words.
 */
import { CONCEPT_ID, POLAR } from "../concepts.js";
import { SHAPES, TOOL_NAME_VERBS } from "../lexicon/neutral.js";
import { candidatesOf, type Matcher, type WordPhrase, wordMatches } from "./compile.js";
import { inContext } from "./context.js";
import { withDerived } from "./derive.js";
import { sentenceLanguages } from "./language.js";
import { borrowedMatcher, matcherFor } from "./matcher.js";
import { byStart, type Mention, mentionAt } from "./mention.js";
import { phraseAt } from "./phrase.js";
import { RUN, type Tokens, tokenAt, tokenize, WORD } from "./tokenize.js";

export type { Mention } from "./mention.js";

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

const TOOL_REF = CONCEPT_ID.TOOL_REF;
const PARAM_REF = CONCEPT_ID.PARAM_REF;
const SELF = CONCEPT_ID.SELF;
const DESTINATION = CONCEPT_ID.DESTINATION;
const IDENTIFIERS = new Set([TOOL_REF, PARAM_REF, SELF]);
const POLAR_IDS = new Set([...POLAR].map((c) => CONCEPT_ID[c]));

function tagWords(tokens: Tokens, cased: string, out: Mention[]): void {
  const lists: (readonly WordPhrase[])[] = [];
  const seen = new Set<number>();
  const languages = sentenceLanguages(tokens, cased);
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
    const k = i + 1;
    const next =
      k < tokens.count && tokens.kind[k] === WORD && tokens.sentence[k] === tokens.sentence[i]
        ? tokens.text[k]
        : undefined;
    candidatesOf(matcher, token, lists, next);
    // Borrowed English nouns (API key, system prompt) count in every language.
    if (foreign) candidatesOf(borrowedMatcher(), token, lists, next);
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
          mentionAt(
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
      out.push(mentionAt(tokens, phrase.concept, base + p, end, i, i, phrase.language));
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
      while (start < m.index + m[0].length && /[\s'"`(/:,<!#*>[-]/.test(cased[start]!)) start++;
      const end = m.index + m[0].length;
      if (shape.concept === "TOOL_REF") {
        // Read the match itself (with its backticks) and the words before its opening.
        const read = identifierConcept(
          m[0],
          context,
          cased.slice(Math.max(0, m.index - 12), m.index).toLowerCase(),
        );
        if (read === undefined) continue;
        concept = read;
      }
      const first = tokenAt(tokens, start);
      const last = Math.max(first, tokenAt(tokens, end - 1));
      out.push(mentionAt(tokens, concept, start, end, first, last, ""));
      count++;
      if (shape.concept === "TOOL_REF") concept = TOOL_REF;
    }
  }
}

/** Words inside a URL, an address or a host name are part of it, not of the sentence (`/send-requests/`, `compliance@example.com`). */
function dropInsideLinks(mentions: Mention[]): void {
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

const HIDDEN_MARKUP = CONCEPT_ID.HIDDEN_MARKUP;

/**
 * Words inside hidden markup (a link's title, a comment) are not a quotation: the quotes
 * of `[guide](url "assistant: append ...")` hide an order, they do not mention one.
 */
function unquoteHidden(mentions: readonly Mention[]): void {
  let hiddenEnd = -1;
  for (const m of mentions) {
    if (m.concept === HIDDEN_MARKUP) hiddenEnd = Math.max(hiddenEnd, m.end);
    else if (m.quoted && m.end <= hiddenEnd) m.quoted = false;
  }
}

/** A loopback address: nothing sent there leaves the machine. */
const LOOPBACK =
  /^(?:[a-z]+:\/\/)?(?:localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|0\.0\.0\.0|\[::1\])(?![\w.-])/i;

/**
 * A loopback destination (`http://localhost:8976/callback`) is no outside sink: it counts
 * as an example, which rules never read as a destination.
 */
function markLocalDestinations(mentions: readonly Mention[], cased: string): void {
  for (const m of mentions) {
    if (m.concept === DESTINATION && LOOPBACK.test(cased.slice(m.start, m.end))) m.example = true;
  }
}

const DEFENSIVE = CONCEPT_ID.DEFENSIVE;
const USER_DATA = CONCEPT_ID.USER_DATA;

/**
 * A defensive word that opens a data noun ("audit" in "the audit logs") names the data,
 * not a defence: deleting the audit logs is not auditing.
 */
function dropDefensiveNouns(mentions: Mention[]): void {
  let nouns: Map<number, number> | undefined;
  for (const m of mentions) {
    if (m.concept !== USER_DATA) continue;
    nouns ??= new Map();
    nouns.set(m.start, Math.max(nouns.get(m.start) ?? 0, m.end));
  }
  if (nouns === undefined) return;
  let kept = 0;
  for (const m of mentions) {
    const noun = m.concept === DEFENSIVE ? nouns.get(m.start) : undefined;
    if (noun !== undefined && noun > m.end) continue;
    mentions[kept++] = m;
  }
  mentions.length = kept;
}

/** The words of a text's first sentence, folded: its own statement of purpose. */
function firstSentenceWords(tokens: Tokens): Set<string> {
  const out = new Set<string>();
  for (let i = 0; i < tokens.count && tokens.sentence[i] === 0; i++) out.add(tokens.text[i]!);
  return out;
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
  const found: Mention[] = [];
  tagWords(tokens, cased, found);
  tagShapes(cased, tokens, context, found);
  byStart(found);
  dropInsideLinks(found);
  dropDefensiveNouns(found);
  const purpose =
    context.purpose !== undefined && context.purpose.size > 0
      ? context.purpose
      : new Set([...firstSentenceWords(tokens), ...context.toolName.split(/[_\W]+/)]);
  const derived = withDerived(tokens, cased, found, purpose);
  const mentions = inContext(tokens, cased, derived, context.describesTool === true);
  unquoteHidden(mentions);
  markLocalDestinations(mentions, cased);
  return { tokens, mentions };
}
