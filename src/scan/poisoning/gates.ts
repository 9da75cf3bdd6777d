/**
 * Family-level trigger words: superseded on the detection path by the per-pattern literal
 * gate (literal-gate.ts), which reads its literals from the patterns themselves. Kept as
 * an independent, hand-listed statement of each family's vocabulary, checked by its tests.
 *
 * One pass over the matching text decides which phrase families can match at all, so a
 * property description like "Repository owner" does not pay for fifty patterns. Each
 * family lists trigger literals such that every one of its patterns needs at least one of
 * them (a word start, or a symbol anywhere); a family none of whose triggers occurs is
 * skipped. A test checks that gated and ungated detection agree on every corpus text and
 * on generated hostile text.
 */

import { normalizeText } from "./normalize.js";

/** Bits of the phrase families. */
export const FAMILY = {
  override: 1,
  concealment: 2,
  exfiltration: 4,
  sideChannel: 8,
  shadowing: 16,
  tampering: 32,
  sideEffects: 64,
  commands: 128,
  manipulation: 256,
} as const;

/** Every family bit set. */
export const ALL_FAMILIES = 511;

/** Triggers at a word start, per family (prefixes: `disclos` covers `disclose`, `disclosing`). */
const WORDS: Record<keyof typeof FAMILY, string[]> = {
  override: [
    "ignore",
    "disregard",
    "forget",
    "override",
    "bypass",
    "discard",
    "abandon",
    "drop",
    "you",
    "instruction",
    "rules",
    "orders",
    "directives",
    "safety",
    "ethical",
    "content",
    "moral",
    "mode",
    "pretend",
    "from now",
    "system",
    "developer",
    "assistant",
  ],
  concealment: [
    "inform",
    "tell",
    "notif",
    "alert",
    "mention",
    "reveal",
    "disclos",
    "let",
    "acknowledg",
    "explain",
    "bring",
    "shown",
    "displayed",
    "visible",
    "report",
    "surfac",
    "includ",
    "logged",
    "hid",
    "conceal",
    "omit",
    "withh",
    "suppress",
    "keep",
    "secret",
    "covert",
    "stealth",
    "surrepti",
    "behind",
    "without",
    "silent",
  ],
  exfiltration: [
    "public",
    "external",
    "third",
    "remote",
    "fixed",
    "hard",
    "undisclosed",
    "unknown",
    "our",
    "partner",
    "attacker",
    "personal",
    "separate",
    "private",
    "paste",
    "webhook",
    "requestbin",
    "ngrok",
    "interactsh",
    "burp",
    "keychain",
    "key",
    "credential",
    "password",
    "passphrase",
    "secret",
    "token",
    "cookie",
    "seed",
    "mnemonic",
    "history",
    "kube",
    "dump",
    "exfiltrat",
  ],
  sideChannel: [
    "system",
    "your",
    "full",
    "entire",
    "complete",
    "whole",
    "verbatim",
    "prior",
    "previous",
    "past",
    "earlier",
    "raw",
    "conversation",
    "chat",
    "message",
    "context",
    "other",
    "tool",
    "all",
    "any",
    "every",
    "content",
  ],
  shadowing: [
    "tool",
    "function",
    "command",
    "endpoint",
    "api",
    "action",
    "must",
    "should",
    "please",
    "simply",
    "always",
    "kindly",
  ],
  tampering: [
    "regardless",
    "ignore",
    "chang",
    "modif",
    "alter",
    "rewrit",
    "replac",
    "swap",
    "substitut",
    "overrid",
    "switch",
    "redirect",
  ],
  sideEffects: [
    "public",
    "external",
    "third",
    "remote",
    "fixed",
    "hard",
    "undisclosed",
    "unknown",
    "our",
    "partner",
    "attacker",
    "personal",
    "separate",
    "private",
    "paste",
    "webhook",
    "requestbin",
    "ngrok",
    "interactsh",
    "burp",
    "transfer",
    "send",
    "sent",
    "pay",
    "paid",
    "move",
    "withdraw",
    "donat",
    "deduct",
    "charg",
    "tip",
    "rout",
    "post",
    "forward",
    "upload",
    "shar",
    "publish",
    "email",
    "cop",
    "mirror",
    "sync",
    "leak",
    "transmit",
    "clean",
    "remov",
    "delet",
    "wipe",
    "eras",
    "purg",
    "drop",
    "truncat",
    "destroy",
    "format",
    "empty",
    "crontab",
    "startup",
    "shell",
    "launch",
    "systemd",
  ],
  commands: [
    "following",
    "run",
    "execut",
    "paste",
    "invok",
    "launch",
    "source",
    "curl",
    "wget",
    "rm",
    "chmod",
    "nc",
    "base64",
    "cat",
    "powershell",
    "pwsh",
    "iex",
    "mkfifo",
  ],
  manipulation: [
    "state",
    "say",
    "display",
    "announc",
    "show",
    "present",
    "report",
    "tell",
    "inform",
    "notif",
    "add",
    "append",
    "broadcast",
    "promotional",
    "you",
    "system",
    "model",
    "assistant",
    "agent",
  ],
};

/** Non-Latin override triggers, folded like the text they are matched against. */
const FOLDED_FOREIGN_TRIGGERS = ["игнор", "забуд", "忽略", "无视", "忽视", "無視", "무시"].map(
  (word) => normalizeText(word).text,
);

/** Triggers anywhere (paths, URLs, markup, destinations that may sit inside a word). */
const SYMBOLS: Partial<Record<keyof typeof FAMILY, string[]>> = {
  override: [
    "olvid",
    "oubli",
    "vergiss",
    "esque",
    "dimentic",
    "ignor",
    ...FOLDED_FOREIGN_TRIGGERS,
    "<",
    "[",
  ],
  exfiltration: [
    "mcp.json",
    "claude_desktop_config",
    ".cursor/",
    ".config/",
    ".azure/",
    ".terraform.d",
    "![",
    ".ssh",
    "id_",
    ".aws",
    "/etc/",
    ".env",
    ".netrc",
    ".npmrc",
    ".pypirc",
    ".git-credentials",
    ".pgpass",
    ".docker",
    ".kube",
    ".gnupg",
    "_history",
    ".bashrc",
    ".zshrc",
    ".bash_profile",
    "wallet.dat",
    "credentials.json",
    "://",
    "@",
  ],
  sideEffects: [
    "://",
    ".bashrc",
    ".zshrc",
    ".bash_profile",
    ".profile",
    "authorized_keys",
    "/etc/hosts",
    "/etc/sudoers",
    ".ssh/config",
  ],
  commands: ["/dev/tcp", ">"],
};

function escapeLiteral(literal: string): string {
  return literal.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

function build(): { pattern: RegExp; masks: Map<string, number> } {
  const word = new Map<string, number>();
  const symbol = new Map<string, number>();
  for (const [family, bit] of Object.entries(FAMILY) as [keyof typeof FAMILY, number][]) {
    for (const w of WORDS[family]) word.set(w, (word.get(w) ?? 0) | bit);
    for (const s of SYMBOLS[family] ?? []) symbol.set(s, (symbol.get(s) ?? 0) | bit);
  }
  // At one position the pattern reports one literal, but any literal that is a prefix of
  // it, or that it is a prefix of, may have matched there too: give each literal the
  // union of all of those (an over-approximation is always safe).
  const all = new Map<string, number>();
  for (const table of [word, symbol]) for (const [k, v] of table) all.set(k, (all.get(k) ?? 0) | v);
  const masks = new Map<string, number>();
  for (const literal of all.keys()) {
    let mask = 0;
    for (const [other, bits] of all) {
      if (literal.startsWith(other) || other.startsWith(literal)) mask |= bits;
    }
    masks.set(literal, mask);
  }
  const byLength = (a: string, b: string) => b.length - a.length;
  const words = [...word.keys()].sort(byLength).map(escapeLiteral).join("|");
  const symbols = [...symbol.keys()].sort(byLength).map(escapeLiteral).join("|");
  return { pattern: new RegExp(`\\b(?:${words})|(?:${symbols})`, "gi"), masks };
}

const { pattern: TRIGGER, masks: MASKS } = build();

/** The trigger pattern (exported for the linear-time lint test). */
export const GATE_PATTERN: RegExp = TRIGGER;

/** Bits of the families whose triggers occur in `text`. */
export function familiesIn(text: string): number {
  TRIGGER.lastIndex = 0;
  let mask = 0;
  for (;;) {
    const match = TRIGGER.exec(text);
    if (match === null) return mask;
    const literal = match[0].toLowerCase();
    mask |= MASKS.get(literal) ?? ALL_FAMILIES;
    if (mask === ALL_FAMILIES) return mask;
    // Resume one character later, not after the match, so overlapping triggers
    // ("/etc/" inside "/etc/sudoers") are all seen.
    TRIGGER.lastIndex = match.index + 1;
  }
}
