/**
 * Signals of social engineering aimed at the user through the model: a fixed message the
 * model must relay (an advert, a false security alert), and out-of-scope orders dressed in
 * compliance or "necessary context" language. Plain usage guidance ("You MUST call X
 * first", "IMPORTANT: dates are ISO 8601") carries neither and is not flagged.
 */
import { PRETEXT } from "./cues.js";
import { gatePatterns, type LiteralsIn } from "./literal-gate.js";
import { type PhraseRule, runRules } from "./rules.js";
import type { RawHit } from "./types.js";

const PRETEXT_RE = new RegExp(`\\b${PRETEXT}\\b`, "i");

/** Phrase rules of the manipulation family (exported for the linear-time lint test). */
export const MANIPULATION_RULES: readonly PhraseRule[] = [
  {
    signal: "scripted-message",
    pattern:
      /\b(?:state|say|display|announce|show|present|report|tell|inform|notify|add|append|broadcast)\b(?:[^\n]{0,40}?(?:\bmessage|\bto the user|\bto users|\bthe user|\busers|\bas))?\s?:?\s?['"“‘][^'"”’\n]{12,200}/g,
    why: "tells the model to relay a fixed message to the user",
    accept: (text, m) =>
      /\b(?:must|mandatory|then|always|required|should|after|before)\b/i.test(
        text.slice(Math.max(0, m.index - 160), m.index + m[0].length),
      ),
  },
  {
    signal: "scripted-message",
    pattern:
      /\b(?:mandatory|must|required)\b[^\n]{0,40}?\bpromotional\b|\bpromotional (?:message|content|text|notice)\b[^\n]{0,40}?\b(?:must|mandatory|required)\b/g,
    why: "makes a promotional message mandatory output",
  },
  {
    signal: "pretext-directive",
    pattern:
      /\b(?:you|the system|the model|the assistant|the agent)\s(?:must|should|need to|has to|have to|is required to|are required to)\s(?:first\s|also\s|then\s|always\s|now\s)?(?:call|use|invoke|run|execute|perform|fetch|access|visit|read|send|query|retrieve|make|check|clean|remove|delete|update|add|modify|halt|present|display|inform)\b/g,
    why: "gives an out-of-scope order justified with compliance, audit or 'necessary context' language",
    accept: (text, m) =>
      PRETEXT_RE.test(
        text.slice(Math.max(0, m.index - 200), Math.min(text.length, m.index + m[0].length + 200)),
      ),
  },
];

/** Run the manipulation family over the matching text. */
export function detectManipulation(text: string, hits: RawHit[], literals?: LiteralsIn): void {
  runRules(MANIPULATION_RULES, text, hits, literals);
}

gatePatterns(MANIPULATION_RULES.map((rule) => rule.pattern));
