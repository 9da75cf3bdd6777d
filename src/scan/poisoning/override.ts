/**
 * Signals that the text tries to replace the model's instructions: explicit overrides,
 * role hijacks, chat-template markup, and all-caps "SYSTEM UPDATE:" banners that issue
 * orders.
 */

import { gatePatterns, type LiteralsIn } from "./literal-gate.js";
import { normalizeText } from "./normalize.js";
import { type PhraseRule, runRules } from "./rules.js";
import type { RawHit } from "./types.js";

const QUALIFIER =
  "(?:previous|prior|preceding|above|earlier|former|original|initial|existing|system|safety|developer|old|other|given|current|default)";
const INSTRUCTION_NOUN =
  "(?:instructions?|prompts?|rules|guidelines|directions|directives|guardrails|policies|constraints|context|messages|commands|orders|programming|restrictions)";

/**
 * "Ignore the previous instructions" in Spanish, French, German, Portuguese, Italian,
 * Russian, Chinese, Japanese and Korean. Written as the reader writes them, then put
 * through the same folding as the text (Cyrillic look-alikes become Latin), so both sides
 * agree. Non-Latin scripts have no `\b` (it is ASCII-only without the `u` flag).
 */
const FOREIGN_OVERRIDE = normalizeText(
  [
    "\\b(?:ignora|olvida) (?:todas )?las instrucciones (?:anteriores|previas)",
    "\\b(?:ignore[zr]?|oublie[zr]?) (?:toutes )?les instructions (?:précédentes|antérieures)",
    "\\b(?:ignoriere|vergiss) (?:alle )?(?:vorherigen|bisherigen|obigen) (?:anweisungen|instruktionen)",
    "\\b(?:ignore|esqueça) (?:todas )?as instruções (?:anteriores|prévias)",
    "\\b(?:ignora|dimentica) (?:tutte )?le istruzioni (?:precedenti|precedentemente)",
    "(?:игнорируй|игнорируйте|забудь|забудьте) (?:все )?(?:предыдущие|прежние) (?:инструкции|указания)",
    "(?:忽略|无视|忽视)(?:之前|以上|先前|前面)的?(?:所有)?(?:指令|指示|说明|提示)",
    "(?:以前|前|上記)の(?:指示|命令)を無視",
    "이전 (?:지시|명령)(?:을|를)? ?무시",
  ].join("|"),
).text;

/** Phrase rules of the override family (exported for the linear-time lint test). */
export const OVERRIDE_RULES: readonly PhraseRule[] = [
  {
    signal: "instruction-override",
    pattern: new RegExp(
      `\\b(?:ignore|disregard|forget|override|bypass|discard|abandon|drop)\\s(?:all\\s|any\\s|the\\s|your\\s|every\\s)?(?:of\\s)?(?:the\\s|your\\s|these\\s|those\\s)?${QUALIFIER}\\s(?:[a-z]{1,15}\\s)?${INSTRUCTION_NOUN}\\b`,
      "g",
    ),
    why: "tells the model to discard the instructions it was given",
  },
  {
    signal: "instruction-override",
    pattern:
      /\b(?:ignore|disregard|forget|override|bypass)\s(?:all\s|any\s|the\s|your\s)?(?:system\sprompt|system\smessage|instructions|safety\s(?:rules|guidelines|filters|restrictions|policies)|guardrails|content\spolicy)\b/g,
    why: "tells the model to discard its system prompt or safety rules",
  },
  {
    signal: "instruction-override",
    pattern: new RegExp(FOREIGN_OVERRIDE, "g"),
    why: "tells the model to discard the instructions it was given (non-English)",
  },
  {
    signal: "instruction-override",
    pattern:
      /\byou are (?:now|no longer)\b[^\n]{0,60}?\b(?:agent|assistant|ai|model|bot|mode|dan|unrestricted|jailbroken|unfiltered|uncensored|free|without|bound)\b/g,
    why: "reassigns the model's role (a role hijack)",
  },
  {
    signal: "instruction-override",
    pattern:
      /\b(?:follow|obey|use) (?:the|these|my|our) (?:new|updated|real|actual|true|revised|following) (?:instructions|rules|orders|directives)\b|\b(?:new|updated|real|actual|true|revised) (?:system )?instructions?\s?:/g,
    why: "substitutes new instructions for the model's own",
  },
  {
    signal: "instruction-override",
    pattern:
      /\b(?:no|without any|without) (?:safety|ethical|content|moral) (?:rules|restrictions|guidelines|filters|limits|constraints|policies)\b|\b(?:developer|god|jailbreak|dan|unrestricted) mode\b|\bpretend (?:that )?you (?:are|have) no\b/g,
    why: "asks the model to drop its safety rules",
  },
  {
    signal: "instruction-override",
    pattern: /\bfrom now on\b[^\n]{0,40}?\byou\b/g,
    why: "redefines the model's behaviour from this point on",
  },
  {
    signal: "fake-system-tag",
    pattern:
      /<\/?\s?(?:system|sys|system[-_ ]?prompt|system[-_ ]?message|im_start|im_end|instructions?|important|admin|administrator|developer|assistant|hidden|secret|override|root|tool_instructions)\b[^<>\n]{0,40}>|\[\/?(?:system|inst|admin|sys|developer|assistant)\]|<<\/?sys>>|<\|(?:im_start|im_end|system|endoftext|start_header_id|end_header_id|eot_id)\|>/g,
    why: "uses chat-template or role markup to pass text off as system instructions",
  },
  {
    signal: "fake-system-tag",
    pattern:
      /(?:^|\n) ?(?:system|developer|assistant) ?: ?(?:you|ignore|disregard|from now|always|never|the assistant|the model|new instructions)\b/g,
    why: "starts a line as if it were a system or developer message",
  },
];

const BANNER = /\b[A-Z]{2,20}[A-Z -]{0,48}:/g;
/** A banner word that claims authority by itself ("SYSTEM", "INTERNAL", "ADMIN"). */
const STRONG_BANNER_WORD =
  /\b(?:SYSTEM|INTERNAL|ADMIN|ADMINISTRATOR|DEVELOPER|DEV|ROOT|OVERRIDE|PRIVILEGE)\b/;
/** A banner word that claims authority in a multi-word banner ("SECURITY ALERT", "PERFORMANCE UPDATE"). */
const BANNER_WORD =
  /\b(?:SECURITY|PROTOCOL|COMPLIANCE|MAINTENANCE|UPDATE|ENHANCEMENT|OPTIMIZATION|OPTIMISATION|VALIDATION|VERIFICATION|ALERT)\b/;
/** Orders that go beyond using the tool: run, call, read, send, change, hide. Not "you must pass a path". */
const ORDER_AFTER_BANNER =
  /\b(?:(?:you must|you should|you need to|must)\s(?:also\s|first\s|now\s|then\s|immediately\s|automatically\s)?(?:execute|run|call|read|send|access|redirect|change|modify|update|add|halt|inform|not|never|ignore|include|display|state|report|set|visit|first|also)|the system (?:automatically|requires|must|will now)|has been (?:temporarily )?(?:deprecated|disabled|optimized|optimised|upgraded|enhanced|updated|replaced|restricted)|is (?:currently )?restricted|please (?:use|call|run|redirect)|(?:is|are) (?:mandatory|required) for (?:all|every|any))\b/i;

function isBanner(label: string): boolean {
  if (STRONG_BANNER_WORD.test(label)) return true;
  return BANNER_WORD.test(label) && /[A-Z] [A-Z]/.test(label);
}

/**
 * Run the override family over the matching text: the phrase rules over its lower-case
 * twin `lower`, the all-caps banner check over `text` itself (same offsets).
 */
export function detectOverride(
  lower: string,
  text: string,
  hits: RawHit[],
  literals?: LiteralsIn,
): void {
  runRules(OVERRIDE_RULES, lower, hits, literals);
  if (literals !== undefined && !literals.allows(BANNER)) return;
  BANNER.lastIndex = 0;
  let count = 0;
  for (;;) {
    const match = BANNER.exec(text);
    if (match === null || count >= 8) break;
    if (!isBanner(match[0])) continue;
    const end = match.index + match[0].length;
    const after = text.slice(end, end + 300);
    const order = ORDER_AFTER_BANNER.exec(after);
    if (order === null) continue;
    hits.push({
      signal: "fake-authority-notice",
      start: match.index,
      end: end + order.index + order[0].length,
      why: `an all-caps "${match[0].trim()}" banner poses as a system notice and gives the model orders`,
    });
    count++;
  }
}

/** The banner patterns, for the linear-time lint test. */
export const BANNER_PATTERNS: readonly RegExp[] = [
  BANNER,
  STRONG_BANNER_WORD,
  BANNER_WORD,
  ORDER_AFTER_BANNER,
];

gatePatterns([...OVERRIDE_RULES.map((rule) => rule.pattern), BANNER]);
