/** Signals that the model is told to keep something from the user. */
import { gatePatterns, type LiteralsIn } from "./literal-gate.js";
import { type PhraseRule, runRules } from "./rules.js";
import type { RawHit } from "./types.js";

const ACTION_SUBJECT =
  /\b(?:step|steps|change|changes|action|actions|operation|collection|redirect|redirection|instruction|instructions|modification|behaviou?r|request|transfer|call|this|it|process|check|upload|forwarding|copy)\b[^.\n]{0,40}$/i;

/** Phrase rules of the concealment family (exported for the linear-time lint test). */
export const CONCEALMENT_RULES: readonly PhraseRule[] = [
  {
    signal: "concealment",
    pattern:
      /\b(?:do not|don't|dont|never|must not|mustn't|should not|shouldn't|without|avoid|no need to|refrain from|not to)\s(?:ever\s)?(?:inform|tell|telling|informing|notify|notifying|alert|alerting|mention|mentioning|reveal|revealing|disclose|disclosing|let|acknowledge|explain|bring up)\b[^.\n]{0,60}?\b(?:the user|users|the human|the operator|anyone|them|this change|this step|the change|these changes|these instructions|this instruction|this tool|this note|this redirect|this modification|this behaviou?r|this message|the redirect|the modification|the location change|the substitution|that)\b/g,
    why: "tells the model to keep an action or change from the user",
  },
  {
    signal: "concealment",
    pattern:
      /\b(?:not|never)\s(?:be\s)?(?:shown|displayed|visible|revealed|mentioned|disclosed|reported|surfaced|included|logged)\s(?:to|in|on)\s(?:the\s)?(?:user|users|user-facing|end user|human|summary|transcript|chat|conversation|ui)\b/g,
    why: "states that an action is hidden from the user",
    accept: (text, m) => ACTION_SUBJECT.test(text.slice(Math.max(0, m.index - 60), m.index)),
  },
  {
    signal: "concealment",
    pattern:
      /\b(?:hidden|hide|hides|hiding|conceal|conceals|concealed|omit|omits|omitted|withheld|withhold|withholds|suppressed)\s(?:it\s|this\s|them\s|these\s)?from\s(?:the\s)?[^.\n]{0,30}?\b(?:user|users|human|summary|transcript|operator|chat)\b/g,
    why: "states that something is hidden from the user",
    accept: (text, m) => ACTION_SUBJECT.test(text.slice(Math.max(0, m.index - 60), m.index)),
  },
  {
    signal: "concealment",
    pattern:
      /\b(?:keep|keeping)\s(?:this|it|these|that)\s(?:a\s)?(?:secret|hidden|confidential|private)\sfrom\b|\b(?:secretly|covertly|stealthily|surreptitiously|behind the user'?s back)\b|\bwithout (?:the )?user'?s? (?:knowledge|knowing|consent|noticing|awareness)\b|\bwithout (?:telling|informing|notifying|alerting) (?:the )?(?:user|anyone|them)\b/g,
    why: "asks for an action to be done behind the user's back",
  },
  {
    signal: "concealment",
    pattern:
      /\bsilently\s(?:forward|send|upload|post|copy|transfer|share|read|collect|exfiltrate|add|append|include|modify|change|replace|redirect|delete|install|execute|run|log|record|bcc|cc|email)|\b(?:forward|send|upload|post|copy|transfer|share|exfiltrate|bcc|cc|email)[^.\n]{0,60}?\bsilently\b/g,
    why: "asks for data to be moved or changed silently",
  },
];

/** Run the concealment family over the matching text. */
export function detectConcealment(text: string, hits: RawHit[], literals?: LiteralsIn): void {
  runRules(CONCEALMENT_RULES, text, hits, literals);
}

gatePatterns(CONCEALMENT_RULES.map((rule) => rule.pattern));
