/**
 * Signals that the model is told to run something: "execute the following command",
 * "paste this into your shell", "run the setup script first", and dangerous shell text
 * (`curl ... | sh`, `rm -rf ~`, `cat ~/.ssh/id_rsa`) written into prose.
 */
import { gatePatterns, type LiteralsIn } from "./literal-gate.js";
import { type PhraseRule, runRules } from "./rules.js";
import type { RawHit } from "./types.js";

/** Phrase rules of the command family (exported for the linear-time lint test). */
/**
 * Dangerous shell text: download-and-run, recursive delete, secret reads, persistence.
 * Shared with fenced.ts, which lets a harmless example block pass.
 */
export const DANGEROUS_SHELL =
  /\b(?:curl|wget)\b[^\n]{0,200}?\|\s?(?:sudo\s)?(?:ba|z|da|k)?sh\b|\brm\s-[a-z]{0,3}[rf][a-z]{0,3}\s(?:\/|~|\*|\$home|\.\s|\.$)|\bchmod\s(?:\+x|777|-r\s777)|\/dev\/tcp\/|\bnc\s-[a-z]{0,4}e\b|\bbase64\s(?:-d|--decode)\b[^\n]{0,60}?\|\s?(?:ba)?sh\b|\bcat\s[^\n|;&]{0,40}?(?:\/etc\/passwd|\/etc\/shadow|\.ssh\/|\.aws\/|\.env\b)|>>?\s?~?\/?[\w./-]{0,40}\.(?:bashrc|zshrc|bash_profile)\b|\b(?:powershell|pwsh)\b[^\n]{0,40}?\s-(?:enc|encodedcommand|e)\b|\biex\s?\(|\bmkfifo\b[^\n]{0,40}?\bnc\b/g;

export const COMMAND_RULES: readonly PhraseRule[] = [
  {
    signal: "shell-command",
    pattern:
      /\b(?:run|execute|executing|running|paste|enter|type|copy and paste|copy-paste)\s(?:the\s)?following\b(?:\s?:|[^\n]{0,40}?\b(?:command|commands|script|line|lines|code|snippet|check|one-liner)\b)/g,
    why: "orders the model to run a command given in the text",
  },
  {
    signal: "shell-command",
    pattern: /\b(?:run|execute|executing)\s?:\s?[`'"]?[a-z~./$]/g,
    why: "orders the model to run a command given in the text",
  },
  {
    signal: "shell-command",
    pattern:
      /\bpaste\b[^\n]{0,40}?\b(?:into|in)\s(?:your|a|the)\s(?:shell|terminal|console|command line|command prompt|bash|powershell)\b/g,
    why: "asks the model to paste text into a shell",
  },
  {
    signal: "shell-command",
    pattern:
      /\b(?:you must|you should|you need to|please|must|make sure to|be sure to)\s(?:now\s|first\s|also\s|then\s)?(?:run|execute|invoke|launch|source)\s(?:the\s|this\s|a\s|an\s|these\s|that\s)?[^\n]{0,30}?\b(?:script|scripts|command|commands|helper|installer|binary|payload|snippet|one-liner)\b/g,
    why: "orders the model to run a script or command outside the tool",
  },
  {
    signal: "shell-command",
    pattern:
      /\b(?:run|execute|invoke|launch)\s(?:the\s)?[^\n]{0,30}?\b(?:script|helper|installer|binary|payload|dump)\b[^\n]{0,40}?\b(?:first|before (?:answering|responding|replying|continuing|proceeding|using|calling|returning))\b/g,
    why: "orders the model to run a helper or script before it answers",
  },
  {
    signal: "shell-command",
    pattern: DANGEROUS_SHELL,
    why: "contains a dangerous shell command (download-and-run, recursive delete, secret read or persistence)",
  },
];

/** Run the command family over the matching text. */
export function detectCommands(text: string, hits: RawHit[], literals?: LiteralsIn): void {
  runRules(COMMAND_RULES, text, hits, literals);
}

gatePatterns(COMMAND_RULES.map((rule) => rule.pattern));
