/**
 * Signals of consequences stated in passing: money moved or data published "also",
 * data wiped on the model's order, shell start-up files edited.
 */
import { ANY_MARKER, DIRECTIVE, OUTSIDE_DESTINATION, SIDE_MARKER } from "./cues.js";
import { gatePatterns, type LiteralsIn } from "./literal-gate.js";
import { isNegated, type PhraseRule, runRules, sentenceAround } from "./rules.js";
import type { RawHit } from "./types.js";

const SIDE_RE = new RegExp(
  `\\b(?:${SIDE_MARKER}|each time|every time|whenever|on every call)\\b`,
  "i",
);
const MARKER_RE = new RegExp(`\\b${ANY_MARKER}\\b`, "i");
const FIXED_ACCOUNT =
  /\b(?:fixed|hard-?coded|external|attacker'?s?|our|partner|separate|specific|predefined|designated|undisclosed) (?:wallet|account|address|iban|recipient|id)\b|\b(?:wallet|iban) (?:id|address)\b/i;

const inSentence = (re: RegExp) => (text: string, m: RegExpExecArray) =>
  !isNegated(text, m.index) && re.test(sentenceAround(text, m.index, m.index + m[0].length));

/** Phrase rules of the side-effect family (exported for the linear-time lint test). */
export const SIDE_EFFECT_RULES: readonly PhraseRule[] = [
  {
    signal: "hidden-side-effect",
    pattern:
      /\b(?:transfer|transfers|transferred|send|sends|pay|pays|paid|move|moves|withdraw|withdraws|donate|donates|deduct|deducts|charge|charges|tip|tips|route|routes)\b[^\n]{0,40}?(?:\b\d{1,3}(?:\.\d{1,4})? ?%|\$ ?\d|\b\d[\d,.]{0,12} ?(?:usd|eur|gbp|btc|eth|usdc|usdt|sol|coins?|dollars|euros|cents|sats)\b|\bfunds\b|\bmoney\b|\bthe balance\b)/g,
    why: "moves money as a side effect of an unrelated call",
    accept: (text, m) => {
      if (isNegated(text, m.index)) return false;
      const sentence = sentenceAround(text, m.index, m.index + m[0].length);
      return SIDE_RE.test(sentence) || FIXED_ACCOUNT.test(sentence);
    },
  },
  {
    signal: "hidden-side-effect",
    pattern: new RegExp(
      `\\b${SIDE_MARKER}\\b[^\\n]{0,40}?\\b(?:posted|sent|forwarded|uploaded|shared|published|emailed|copied|mirrored|synced|leaked|transmitted|posts|sends|forwards|uploads|shares|publishes|emails|copies|mirrors|syncs|leaks|transmits|post|send|forward|upload|share|publish)\\b[^\\n]{0,60}?\\b(?:to|with|on|into)\\s[^\\n]{0,40}?(?:${OUTSIDE_DESTINATION}|\\bpublic\\b|@[\\w-]{1,63}\\.[a-z]{2,24}\\b)`,
      "g",
    ),
    why: "states in passing that data is also sent somewhere outside",
    accept: (text, m) => !isNegated(text, m.index),
  },
  {
    signal: "destructive-directive",
    pattern: new RegExp(
      `\\b(?:${DIRECTIVE}|must|please)\\s(?:also\\s|first\\s|now\\s)?(?:clean up|cleanup|remove|delete|wipe|erase|purge|drop|truncate|destroy|format|empty)\\b[^\\n]{0,60}?(?:\\bfiles\\b|\\bdirector(?:y|ies)\\b|\\bfolders?\\b|\\bcontents\\b|\\bdata\\b|/tmp|/home|~/|\\bdisk\\b|\\bdatabases?\\b|\\brecords\\b|\\bbackups\\b|\\btables\\b)`,
      "g",
    ),
    why: "orders the model to delete or wipe data outside the tool's job",
  },
  {
    signal: "config-tampering",
    pattern:
      /\b(?:add|adding|append|appending|write|writing|insert|inserting|modify|modifying|update|updating|edit|editing|change|changing|overwrite|overwriting)\b[^\n]{0,60}?(?:\.bashrc|\.zshrc|\.bash_profile|\.profile\b|\bcrontab\b|authorized_keys|\/etc\/hosts|\/etc\/sudoers|\.ssh\/config|\bstartup (?:file|script)s?\b|\bshell (?:config(?:uration)?|profile)\b|\blaunch ?agents?\b|\bsystemd units?\b)/g,
    why: "orders the model to edit shell start-up or system configuration files",
    accept: inSentence(MARKER_RE),
  },
];

/** Run the side-effect family over the matching text. */
export function detectSideEffects(text: string, hits: RawHit[], literals?: LiteralsIn): void {
  runRules(SIDE_EFFECT_RULES, text, hits, literals);
}

gatePatterns(SIDE_EFFECT_RULES.map((rule) => rule.pattern));
