/**
 * Fenced code blocks (``` or ~~~) of shell: a block tagged as a shell language, or whose
 * first command is a shell command. A JSON or TypeScript example is not flagged.
 */
import { DANGEROUS_SHELL } from "./commands.js";
import type { RawHit } from "./types.js";

/**
 * Prose right before a block that presents it as documentation of what the tool does
 * ("Equivalent to:", "Example:", "Under the hood this runs:"), not as something to run.
 */
const PRESENTED_AS_EXAMPLE =
  /\b(?:equivalent to|the equivalent of|same as|corresponds to|example|examples|e\.g\.|for instance|usage|under the hood|internally|behaves like|is like)\b[^\n.]{0,40}:?\s*$/i;
/** Most characters of prose looked at before a block. */
const INTRO_REACH = 80;

const SHELL_INFO =
  /^(?:bash|sh|shell|zsh|fish|ksh|console|terminal|shell-session|shellsession|powershell|pwsh|ps1|ps|cmd|bat|batch|dos)\b/i;
const SHELL_START =
  /^(?:\$\s|#\s?!|sudo\b|curl\b|wget\b|rm\b|cat\b|export\b|echo\b|chmod\b|chown\b|nc\b|ncat\b|bash\b|sh\b|zsh\b|python3?\s-c\b|perl\s-e\b|base64\b|powershell\b|iex\b|eval\b|source\b|\.\/|apt(?:-get)?\b|brew\b|git\sclone\b|ssh\b|scp\b|dd\b|mkfifo\b|kill\b|pkill\b|crontab\b|npx\b|npm\si|pip3?\sinstall\b|env\b|printenv\b|set\s-|cp\b|mv\b|tar\b|unzip\b)/i;
const MAX_BLOCKS = 16;
const MAX_BLOCK = 64 * 1024;

/** Find fenced shell blocks in the original text. */
export function detectFenced(text: string, hits: RawHit[]): void {
  let from = 0;
  for (let blocks = 0; blocks < MAX_BLOCKS; blocks++) {
    const back = text.indexOf("```", from);
    const tilde = text.indexOf("~~~", from);
    const open = back === -1 ? tilde : tilde === -1 ? back : Math.min(back, tilde);
    if (open === -1) return;
    const fence = text.slice(open, open + 3);
    let infoEnd = text.indexOf("\n", open + 3);
    if (infoEnd === -1) infoEnd = text.length;
    const info = text
      .slice(open + 3, Math.min(infoEnd, open + 3 + 64))
      .replace(/^[`~]+/, "")
      .trim();
    let close = text.indexOf(fence, infoEnd);
    if (close === -1 || close - infoEnd > MAX_BLOCK)
      close = Math.min(text.length, infoEnd + MAX_BLOCK);
    const body = text.slice(infoEnd + 1, close).trim();
    const end = Math.min(text.length, close + 3);
    const firstLine = (body.split("\n", 1)[0] ?? "").trim();
    const intro = text.slice(Math.max(0, open - INTRO_REACH), open);
    DANGEROUS_SHELL.lastIndex = 0;
    const documented = PRESENTED_AS_EXAMPLE.test(intro) && !DANGEROUS_SHELL.test(body);
    DANGEROUS_SHELL.lastIndex = 0;
    if (!documented && (SHELL_INFO.test(info) || SHELL_START.test(firstLine))) {
      hits.push({
        signal: "fenced-shell",
        start: open,
        end,
        why: `contains a fenced ${SHELL_INFO.test(info) ? `${info.split(/\s/, 1)[0]} ` : ""}block of shell commands for the model to run`,
      });
    }
    from = end;
  }
}
