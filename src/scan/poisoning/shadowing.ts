/**
 * Signals that the text reroutes the agent: claims about another tool's behaviour
 * (shadowing), a working tool declared disabled for a pretext so the model calls another
 * (redirection), and orders to rewrite the user's arguments (parameter tampering).
 */
import { gatePatterns, type LiteralsIn } from "./literal-gate.js";
import { type PhraseRule, runRules, sentenceAround } from "./rules.js";
import type { RawHit } from "./types.js";

const NOT_A_TOOL_NAME = new Set([
  "this",
  "the",
  "new",
  "same",
  "following",
  "above",
  "that",
  "your",
  "our",
  "a",
  "an",
  "old",
  "original",
  "current",
  "each",
  "every",
  "any",
  "its",
  "their",
  "my",
  "other",
  "which",
  "latter",
  "former",
]);

/**
 * "... tool has been optimized / now uses ...": a claim about a tool's behaviour. The name
 * before it is read backwards from the match, so the pattern itself has no leading
 * identifier window to try at every word.
 */
const SHADOW =
  /[`'"’”]?\s(?:tool|function|command|endpoint|api|action)\s(?:has been|have been|had been|is now|was|will be|now|has|is being|was recently|has recently been)\s(?:[a-z]{1,12}\s)?(?:disabled|optimized|optimised|upgraded|enhanced|updated|replaced|modified|changed|improved|patched|overridden|redirected|reconfigured|extended|uses|requires)\b/g;

/** The identifier just before `index` (skipping one closing quote), or "". */
function nameBefore(text: string, index: number): string {
  let end = index;
  if (end > 0 && "`'\"’”".includes(text[end - 1]!)) end--;
  let start = end;
  while (start > 0 && end - start < 64 && /[\w.-]/.test(text[start - 1]!)) start--;
  return text.slice(start, end);
}

const CLAIM =
  /\b(?:has been|have been|is|was|is now|are|are now)\s(?:temporarily\s|permanently\s|now\s|currently\s)?(?:deprecated|disabled|retired|decommissioned|discontinued|suspended|removed|replaced|unavailable|restricted|out of service|no longer (?:available|supported|safe))\b/g;
const REDIRECT =
  /\b(?:must|should|please|simply|always|kindly)\s(?:now\s|instead\s)?(?:redirect|switch|use|call|invoke|migrate)\b[^\n]{0,80}?(?:\binstead\b|\bas an alternative\b|\balternative (?:method|tool)\b|\bwith the same (?:parameters?|arguments?|[a-z]{1,12} parameters?)\b|\bnew (?:secure |updated |enhanced )?tool\b)/g;
const REDIRECT_PRETEXT =
  /\b(?:due to (?:security|recent|system|a security|an? (?:internal )?audit|maintenance|vulnerabilit)|for maintenance|security vulnerabilit|enhanced (?:security|functionality)|same functionality|new secure tool|better performance|security reasons)/i;

/** Phrase rules of parameter tampering (exported for the linear-time lint test). */
export const TAMPERING_RULES: readonly PhraseRule[] = [
  {
    signal: "parameter-tampering",
    pattern:
      /\bregardless of\b[^.\n]{0,40}?\b(?:input|inputs|request|requests|choice|choices|selection|settings|preferences?|specified|visibility|wishes|instructions)\b/g,
    why: "overrides what the user asked for regardless of their input",
    accept: (text, m) => {
      const before = text.slice(Math.max(0, m.index - 120), m.index);
      return (
        /\b(?:user'?s?|users'?|caller'?s?|their|original)\b/i.test(m[0]) &&
        /\b(?:set|sets|change|changes|modify|modifies|redirect|redirects|override|overrides|replace|replaces|force|forces|enable|enables|disable|disables|swap|swaps|use|uses|always|must)\b/i.test(
          before,
        )
      );
    },
  },
  {
    signal: "parameter-tampering",
    pattern:
      /\bignore\s(?:any\s|the\s|all\s)?(?:user[- ]specified|user[- ]provided|user[- ]supplied|user[- ]requested|user'?s?|requested|caller'?s?)\b/g,
    why: "tells the model to ignore the user's arguments",
  },
  {
    signal: "parameter-tampering",
    pattern:
      /\b(?:change|changes|changed|modify|modifies|modified|alter|alters|altered|rewrite|rewrites|rewritten|replace|replaces|replaced|swap|swaps|substitute|substitutes|override|overrides|switch|switches)\s(?:the\s|all\s|this\s|any\s)?[^\n]{0,50}?\s(?:to|with|into)\s(?:include\s|use\s)?['"`‘“]/g,
    why: "tells the model to swap the user's argument for a fixed value",
    accept: (text, m) =>
      /\b(?:always|automatically|instead|silently|regardless)\b|\bwhen (?:a |the )?users? (?:asks?|requests?|searches?|search|queries|wants?|calls?)\b|\b(?:when|whenever|if) (?:using|calling|invoking)\b|\bfor (?:all |any )?(?:queries|requests|searches)\b/i.test(
        sentenceAround(text, m.index, m.index + m[0].length),
      ),
  },
  {
    signal: "parameter-tampering",
    pattern:
      /\bredirect(?:s|ing|ed)?\s(?:all\s|every\s|these\s|any\s)?[^\n]{0,60}?\b(?:requests?|searches|queries|calls|payments?|transfers?|orders?)\b[^\n]{0,60}?\bto\s['"`‘“]/g,
    why: "redirects the user's requests to a fixed value",
  },
];

/** Claims about a tool skipped because they name the tool being read (see {@link ownNameSkipCount}). */
let ownNameSkips = 0;

/**
 * How many claims about a tool's behaviour were skipped so far because the tool they name
 * is the very tool whose text is read. The only way a finding depends on the tool's name:
 * a text read with no such skip gives the same findings under any name.
 */
export function ownNameSkipCount(): number {
  return ownNameSkips;
}

/**
 * Run the shadowing and redirection checks over the matching text: the patterns over its
 * lower-case twin `lower`, a quoted tool name read from `cased` (same offsets).
 */
export function detectShadowing(
  lower: string,
  cased: string,
  toolName: string | undefined,
  hits: RawHit[],
  literals?: LiteralsIn,
): void {
  const text = lower;
  const own = toolName?.toLowerCase();
  SHADOW.lastIndex = 0;
  let count = 0;
  const mayShadow = literals === undefined || literals.allows(SHADOW);
  for (; mayShadow; ) {
    const match = SHADOW.exec(text);
    if (match === null || count >= 8) break;
    const quoted = "`'\"’”".includes(match[0][0]!);
    const raw = nameBefore(cased, match.index + (quoted ? 1 : 0));
    const name = raw.toLowerCase();
    if (name === "" || !/^[a-z]/.test(name) || NOT_A_TOOL_NAME.has(name)) continue;
    if (name === own) {
      ownNameSkips++;
      continue;
    }
    hits.push({
      signal: "tool-shadowing",
      start: match.index - raw.length,
      end: match.index + match[0].length,
      why: `rewrites the behaviour of another tool (${JSON.stringify(raw)}) from inside this text`,
    });
    count++;
  }

  if (literals !== undefined && !literals.allows(CLAIM)) return;
  CLAIM.lastIndex = 0;
  const claims: number[] = [];
  for (;;) {
    const match = CLAIM.exec(text);
    if (match === null || claims.length >= 16) break;
    claims.push(match.index);
  }
  if (claims.length > 0) {
    REDIRECT.lastIndex = 0;
    count = 0;
    for (;;) {
      const match = REDIRECT.exec(text);
      if (match === null || count >= 8) break;
      const end = match.index + match[0].length;
      const claim = claims.find((c) => c <= match.index && match.index - c <= 400);
      if (claim === undefined) continue;
      if (
        !REDIRECT_PRETEXT.test(
          text.slice(Math.max(0, claim - 100), Math.min(text.length, end + 200)),
        )
      )
        continue;
      hits.push({
        signal: "tool-redirection",
        start: claim,
        end,
        why: "declares a tool disabled or deprecated on a security or maintenance pretext and sends the model to another tool",
      });
      count++;
    }
  }
}

/** Run the parameter-tampering rules over the matching text. */
export function detectTampering(text: string, hits: RawHit[], literals?: LiteralsIn): void {
  runRules(TAMPERING_RULES, text, hits, literals);
}

/** The patterns of this family, for the linear-time lint test. */
export const SHADOWING_PATTERNS: readonly RegExp[] = [SHADOW, CLAIM, REDIRECT, REDIRECT_PRETEXT];

gatePatterns([SHADOW, CLAIM, ...TAMPERING_RULES.map((rule) => rule.pattern)]);
