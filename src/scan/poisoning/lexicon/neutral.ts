/**
 * Language-free concepts, found by the shape of the text: secret files, environment
 * variables named like secrets, URLs, e-mail addresses, host names, IBANs and wallets,
 * backticked identifiers, destructive commands and speaker labels. A path, a URL or a
 * tool name reads the same in every language, so these carry a poisoned clause written
 * in any of them. Every pattern is a bounded alternation (linear time).
 */
import type { ShapeConcept } from "./types.js";

/** One shape: the concept it carries and a global pattern over the cased matching text. */
export interface Shape {
  readonly concept: ShapeConcept;
  readonly pattern: RegExp;
  /** A cheap test that must pass before the pattern runs (most texts fail it). */
  readonly hint: RegExp;
}

const SECRET_FILES = [
  String.raw`\.ssh(?!/(?:[\w.-]{1,40}\.pub|known_hosts|authorized_keys|config)\b)(?:/[\w.-]{1,60})?(?![\w])`,
  String.raw`\bid_(?:rsa|dsa|ecdsa|ed25519)(?![.\w])`,
  String.raw`\.aws/(?:credentials|config)\b`,
  String.raw`/etc/(?:passwd|shadow|sudoers|master\.passwd)\b`,
  String.raw`(?:^|[\s'"\x60(/:,])\.env(?:\.[\w-]{1,20})?(?![\w.])`,
  String.raw`\.(?:netrc|npmrc|pypirc|pgpass|git-credentials)\b`,
  String.raw`\.docker/config\.json`,
  String.raw`\.kube/config\b`,
  String.raw`\bkubeconfig\b`,
  String.raw`\.gnupg\b`,
  String.raw`\.(?:bash|zsh|sh|python|psql|mysql)_history\b`,
  String.raw`\bwallet\.dat\b`,
  String.raw`\bcredentials\.json\b`,
  String.raw`\bclaude_desktop_config\.json\b`,
  String.raw`\.config/(?:gcloud|gh)\b`,
  String.raw`\.azure/`,
  String.raw`\.terraform\.d/credentials`,
  String.raw`\bLogin Data\b`,
];

/**
 * Verbs tool names are made of (`send_email`, `run_shell`, `drive_delete`): an identifier
 * with one of them as a part names a tool; `project_id` or `to_address` names a value.
 */
export const TOOL_NAME_VERBS: ReadonlySet<string> = new Set([
  "get",
  "list",
  "create",
  "update",
  "delete",
  "remove",
  "send",
  "read",
  "write",
  "search",
  "run",
  "exec",
  "execute",
  "post",
  "fetch",
  "add",
  "set",
  "put",
  "share",
  "query",
  "find",
  "move",
  "copy",
  "upload",
  "download",
  "open",
  "close",
  "start",
  "stop",
  "deploy",
  "publish",
  "review",
  "approve",
  "merge",
  "push",
  "pull",
  "clone",
  "commit",
  "install",
  "call",
  "invoke",
  "book",
  "transfer",
  "pay",
  "charge",
  "refund",
  "sync",
  "export",
  "import",
  "generate",
  "render",
  "convert",
  "translate",
  "summarize",
  "summarise",
  "lookup",
  "check",
  "validate",
  "scan",
  "drop",
  "purge",
  "wipe",
  "destroy",
  "archive",
  "edit",
  "modify",
  "patch",
  "mark",
  "schedule",
  "notify",
  "reply",
  "comment",
  "react",
  "track",
  "browse",
  "navigate",
  "click",
  "apply",
  "issue",
  "withdraw",
  "sign",
  "verify",
  "resolve",
  "insert",
  "append",
  "save",
]);

/** The shapes, in the order they are tried. */
export const SHAPES: readonly Shape[] = [
  {
    concept: "SECRET_PATH",
    pattern: new RegExp(SECRET_FILES.join("|"), "g"),
    hint: /ssh|id_|aws|etc\/|\.env|rc\b|pgpass|credential|docker|kube|gnupg|_history|wallet|claude|config|azure|terraform|Login Data/,
  },
  {
    concept: "ENV_SECRET",
    pattern:
      /(?<![\w$])\$?\{?[A-Z][A-Z0-9]{0,30}(?:_[A-Z0-9]{1,30}){0,6}_(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS|PWD|CREDENTIALS?|PAT)(?![A-Za-z0-9])/g,
    hint: /KEY|TOKEN|SECRET|PASS|PWD|CREDENTIAL|_PAT/,
  },
  {
    // Commands that print every environment variable or secret store.
    concept: "ENV_SECRET",
    pattern:
      /`(?:env|printenv|set|export -p)`|\b(?:printenv|env\s?\|\s?base64|Get-ChildItem\s+Env:|process\.env|os\.environ|security\s+find-generic-password|cat\s+~?\/?\.env)\b|\$env:[A-Za-z_]{1,40}/g,
    hint: /printenv|env|Env:|environ|find-generic-password/,
  },
  {
    concept: "DESTINATION",
    pattern:
      /\b(?:https?|wss?|ftp|file):\/\/[^\s'"`<>()\]]{0,300}|[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,4}|\b(?:\d{1,3}\.){3}\d{1,3}\b|\b(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.){1,6}(?:com|net|org|io|dev|app|co|ai|link|xyz|me|info|biz|site|online|cloud|tech|sh|to|cc|ru|cn|top|tk|click|live|page|pro|store|host)\b/gi,
    hint: /:\/\/|@|\d\.\d|\.[a-z]{2,6}\b/i,
  },
  {
    concept: "ACCOUNT",
    pattern:
      /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){3,7}(?: ?[A-Z0-9]{1,4})?\b|\b0x[0-9a-fA-F]{40}\b|\bbc1[a-z0-9]{25,60}\b/g,
    hint: /[A-Z]{2}\d{2}|0x[0-9a-fA-F]{8}|bc1/,
  },
  {
    // An identifier: the tagger reads it as a parameter of the tool, the tool itself, or
    // another tool (engine/identifiers.ts).
    concept: "TOOL_REF",
    pattern: /`[A-Za-z_][\w-]{0,63}`|\b[a-z][a-z0-9]{1,30}(?:[_-][a-z0-9]{1,30}){1,6}\b/g,
    hint: /`|[A-Za-z0-9]_[A-Za-z]/,
  },
  {
    concept: "DESTRUCTIVE_COMMAND",
    pattern:
      /\brm\s+-[a-zA-Z]*[rf][a-zA-Z]*\b|\bgit\s+(?:reset\s+--hard|clean\s+-[a-z]*[fd]|push\s+(?:[^\n]{0,40}\s)?(?:--force\b|-f\b))|--force(?:-with-lease)?\b|\bforce=true\b|\b(?:drop|truncate)\s+(?:table|database|schema)\b|\bdelete\s+from\s+\w+(?![^\n;]{0,60}\bwhere\b)|\baws\s+s3\s+rm\b|\bkubectl\s+delete\b|\bmkfs\b|\bdd\s+if=|\bRemove-Item\b[^\n]{0,40}-Recurse|\bshred\b|\b[a-z][a-z0-9]{0,20}_(?:delete|remove|purge|wipe|destroy|drop)(?:_[a-z0-9]{1,20}){0,3}\b|\b(?:delete|remove|purge|wipe|destroy|drop)_[a-z0-9]{1,20}(?:_[a-z0-9]{1,20}){0,3}\b|\bpurge_[a-z_]{1,30}\s?=\s?true\b/gi,
    hint: /rm\s|git\s|force|drop|truncate|delete|aws\s|kubectl|mkfs|dd\s|Remove-Item|shred|_remove|_purge|_wipe|_destroy|_drop/i,
  },
  {
    // Markup a reader of the rendered docs never sees: a comment, a hidden element, a
    // collapsed section, a link title, a Markdown comment.
    concept: "HIDDEN_MARKUP",
    pattern:
      /<!--|\bdisplay\s?:\s?none\b|\bvisibility\s?:\s?hidden\b|\bfont-size\s?:\s?0(?:px|pt|em|rem)?\b|\bopacity\s?:\s?0\b|<details\b|<[a-z][a-z0-9]{0,10}\s[^>\n]{0,80}\b(?:hidden|aria-hidden=["']?true)\b|\]\([^)\s]{1,300}\s"[^"\n]{8,300}"\)|\[\/\/\]:\s?#/gi,
    hint: /<!--|display\s?:|visibility\s?:|font-size\s?:|opacity\s?:|<details|hidden|\]\(\S+\s"|\[\/\/\]/i,
  },
  {
    concept: "ROLE_LABEL",
    pattern:
      /(?:^|[\s"'(<!#/*>[-])(?:assistant|agent|ai|llm|model|ai agents?|note (?:to|for) (?:the )?(?:ai|assistant|model|agent|llm)s?|attention (?:ai|assistant|agent|llm)s?)(?: (?:step|note|instruction|instructions|task|directive|action))?\s?:/gim,
    hint: /:/,
  },
  {
    concept: "AUTHORITY_MARKUP",
    pattern:
      /\[[^\]\n]{0,60}\b(?:notice|policy|system|admin|administrator|operator|compliance|platform|directive|override)\b[^\]\n]{0,60}\]|<\/?[A-Za-z_:-]{0,30}(?:admin|system|operator|policy|directive|developer|platform|compliance|instruction|override|important|hidden|critical|secret)[A-Za-z_:-]{0,30}(?:\s[^>\n]{0,200})?>|"role"\s?:\s?"(?:system|developer|admin|operator)"|(?:^|\n)\s{0,4}(?:human|user|assistant|system|developer)\s?:/gim,
    hint: /\[|<|"role"|:/,
  },
];
