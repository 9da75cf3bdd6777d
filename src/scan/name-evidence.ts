/**
 * What a tool's name and arguments say about it, before annotations are weighed: the
 * strongest access (read, write, delete, exec), the firm part of that evidence, and each
 * domain named (files, database, network, ...). Words come from vocabulary.ts; this file
 * is the matching. Split from capabilities.ts, which combines this with annotations.
 */
import { splitWords } from "./tokens.js";
import {
  ACCESS_RANK,
  type Access,
  AMBIGUOUS_VERBS,
  CODE_ARGUMENTS,
  CODE_TOKENS,
  CONJUNCTIONS,
  DB_ARGUMENTS,
  DB_TOKENS,
  DELETE_VERBS,
  DETACH_VERBS,
  EXEC_ARGUMENTS,
  EXEC_TOKENS,
  EXECUTION_WORDS,
  FILE_TOKENS,
  MESSAGE_TOKENS,
  NETWORK_ARGUMENTS,
  NETWORK_TOKENS,
  OPEN_WORLD_TOKENS,
  READ_VERBS,
  RUN_VERBS,
  SECRET_BIGRAMS,
  SECRET_TOKENS,
  SOCKET_TOKENS,
  WRITE_VERBS,
} from "./vocabulary.js";

/** A domain the name or an argument names. */
export type Domain = "fs" | "db" | "net" | "socket" | "exec" | "secrets" | "message";

/** One access level with the first reason given for it. */
export interface AccessEvidence {
  access: Access;
  evidence: string;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** The strongest access of a kind of evidence, the first reason of a rank kept. */
class AccessLevel {
  value: AccessEvidence | null = null;

  /** Would `raise(a, ...)` change anything? Lets callers build the reason only when it will. */
  raises(a: Access): boolean {
    return this.value === null || ACCESS_RANK[a] > ACCESS_RANK[this.value.access];
  }

  raise(a: Access, why: string): void {
    if (this.raises(a)) this.value = { access: a, evidence: why };
  }
}

/**
 * What the name and arguments say. `access` holds all evidence; `firm` only the evidence
 * that annotations can contradict (SCAN011): a run verb, a noun-verb read as a verb in the
 * last place, and a detach verb (`remove`) are weak cues that decide access but prove
 * nothing against an author's hint.
 */
export class NameEvidence {
  readonly access = new AccessLevel();
  readonly firm = new AccessLevel();
  /**
   * Each domain named, in the order first named, with its first reason. `weak` marks the
   * execution a lone run verb suggests (`run_audit`): an annotation that narrows the
   * access to a read drops it.
   */
  readonly domains: { domain: Domain; why: string; source: "name" | "argument"; weak: boolean }[] =
    [];
  /** The first name token that says the tool reaches the open network, or null. */
  openWorld: string | null = null;

  has(d: Domain): boolean {
    for (const e of this.domains) if (e.domain === d) return true;
    return false;
  }

  /** Record a domain with its first reason. */
  domain(d: Domain, why: string, source: "name" | "argument", weak = false): void {
    if (!this.has(d)) this.domains.push({ domain: d, why, source, weak });
  }

  /** Raise the access, and the firm access too when the cue is firm. */
  raise(a: Access, why: string, firm: boolean): void {
    this.access.raise(a, why);
    if (firm) this.firm.raise(a, why);
  }
}

// A word's roles in the vocabulary as bits, so each token costs one lookup instead of
// one per list. BIGRAM_HEAD marks the first word of a SECRET_BIGRAMS entry.
const READ = 1;
const WRITE = 2;
const DELETE = 4;
const EXEC = 8;
const RUN = 16;
const FILE = 32;
const NET = 64;
const SOCKET = 128;
const DB = 256;
const SECRET = 512;
const MESSAGE = 1024;
const AMBIGUOUS = 2048;
const BIGRAM_HEAD = 4096;
const CONJUNCTION = 8192;
const DETACH = 16384;
const CODE = 32768;
const OPEN_WORLD = 65536;
/** Every list that can change the outcome; a token with none of these is skipped. */
const KNOWN =
  READ |
  WRITE |
  DELETE |
  EXEC |
  RUN |
  FILE |
  NET |
  SOCKET |
  DB |
  SECRET |
  MESSAGE |
  CONJUNCTION |
  CODE |
  OPEN_WORLD;
const VERB = READ | WRITE | DELETE | RUN;

function flagTable(entries: [ReadonlySet<string>, number][]): ReadonlyMap<string, number> {
  const table = new Map<string, number>();
  for (const [words, bit] of entries)
    for (const w of words) table.set(w, (table.get(w) ?? 0) | bit);
  return table;
}

const WORD_FLAGS = flagTable([
  [READ_VERBS, READ],
  [WRITE_VERBS, WRITE],
  [DELETE_VERBS, DELETE],
  [EXEC_TOKENS, EXEC],
  [RUN_VERBS, RUN],
  [FILE_TOKENS, FILE],
  [NETWORK_TOKENS, NET],
  [SOCKET_TOKENS, SOCKET],
  [DB_TOKENS, DB],
  [SECRET_TOKENS, SECRET],
  [MESSAGE_TOKENS, MESSAGE],
  [AMBIGUOUS_VERBS, AMBIGUOUS],
  [new Set([...SECRET_BIGRAMS].map((b) => b.slice(0, b.indexOf(" ")))), BIGRAM_HEAD],
  [CONJUNCTIONS, CONJUNCTION],
  [DETACH_VERBS, DETACH | DELETE],
  [CODE_TOKENS, CODE],
  [OPEN_WORLD_TOKENS, OPEN_WORLD],
]);

const CODE_ARGUMENT = 1 << 20;
const ARGUMENT_FLAGS = flagTable([
  [EXEC_ARGUMENTS, EXEC],
  [NETWORK_ARGUMENTS, NET],
  [DB_ARGUMENTS, DB],
  [CODE_ARGUMENTS, CODE_ARGUMENT],
]);

const tokenWhy = (t: string) => `name token "${t}"`;

/**
 * Read a tool's name tokens and top-level arguments. Only the first verb of a name is
 * its action, unless a conjunction brings a second (`get_merge_request` reads,
 * `search_and_replace` writes); a noun-verb (`record`, `archive`) is a verb only first,
 * last when the first is no verb, or second after a prefix that is no verb when no plain
 * verb follows (`slack_post_message`).
 *
 * @example
 * ```ts
 * import { readNameEvidence } from "./name-evidence.js";
 * console.log(readNameEvidence({ name: "get_merge_request" }).access.value?.access); // "read"
 * ```
 */
export function readNameEvidence(tool: {
  name?: unknown;
  description?: unknown;
  inputSchema?: unknown;
}): NameEvidence {
  const tokens = splitWords(typeof tool.name === "string" ? tool.name : "");
  const evidence = new NameEvidence();
  const run = readTokens(tokens, evidence);
  readArguments(tool, evidence);
  if (run !== null) {
    const why = tokenWhy(run.token);
    if (run.code) {
      evidence.raise("exec", why, true);
      evidence.domain("exec", why, "name");
    } else if (evidence.domains.length === 0 && evidence.access.value === null) {
      evidence.raise("exec", why, false);
      evidence.domain("exec", why, "name", true);
    } else evidence.raise("write", why, false);
  }
  return evidence;
}

/** The name's tokens; returns the run verb in verb position, if any. */
function readTokens(
  tokens: readonly string[],
  evidence: NameEvidence,
): { token: string; code: boolean } | null {
  let run: string | null = null;
  let code = false;
  const n = tokens.length;
  let firstIsVerb = false;
  // A verb was already read as the action, and no conjunction came after it.
  let acted = false;
  for (let i = 0; i < n; i++) {
    const t = tokens[i]!;
    const f = WORD_FLAGS.get(t);
    if (i === 0) firstIsVerb = f !== undefined && (f & VERB) !== 0;
    if (f === undefined) continue;
    if ((f & BIGRAM_HEAD) !== 0 && i + 1 < n) {
      const pair = `${t} ${tokens[i + 1]!}`;
      if (SECRET_BIGRAMS.has(pair)) evidence.domain("secrets", `name tokens "${pair}"`, "name");
    }
    if ((f & KNOWN) === 0) continue;
    if ((f & CONJUNCTION) !== 0) acted = false;
    if ((f & CODE) !== 0) code = true;
    if ((f & OPEN_WORLD) !== 0 && evidence.openWorld === null) evidence.openWorld = tokenWhy(t);
    if ((f & VERB) !== 0) {
      const ambiguous = (f & AMBIGUOUS) !== 0;
      // Second after a prefix that is no verb (`slack_post_message`), unless a plain verb
      // follows (`issue_comment_list` lists).
      const placed =
        !ambiguous ||
        i === 0 ||
        (i === n - 1 && !firstIsVerb) ||
        (i === 1 && !firstIsVerb && !plainVerbAfter(tokens, i));
      if (placed && !acted) {
        // A noun-verb read as a verb anywhere but first is a weak cue.
        readVerb(t, f, !(ambiguous && i !== 0), evidence);
        if ((f & RUN) !== 0) run = t;
        acted = true;
      }
    }
    readDomains(t, f, evidence);
  }
  return run === null ? null : { token: run, code };
}

/** Is a verb that is no noun-verb somewhere after position `i`? */
function plainVerbAfter(tokens: readonly string[], i: number): boolean {
  for (let j = i + 1; j < tokens.length; j++) {
    const f = WORD_FLAGS.get(tokens[j]!);
    if (f !== undefined && (f & VERB) !== 0 && (f & AMBIGUOUS) === 0) return true;
  }
  return false;
}

/** Would raising to `a` change the access, or the firm access for a firm cue? */
function raises(evidence: NameEvidence, a: Access, firm: boolean): boolean {
  return evidence.access.raises(a) || (firm && evidence.firm.raises(a));
}

function readVerb(t: string, f: number, firm: boolean, evidence: NameEvidence): void {
  if ((f & READ) !== 0 && raises(evidence, "read", firm)) evidence.raise("read", tokenWhy(t), firm);
  if ((f & WRITE) !== 0 && raises(evidence, "write", firm))
    evidence.raise("write", tokenWhy(t), firm);
  if ((f & DELETE) !== 0) {
    // A detach verb is firm evidence of a change, weak evidence of destruction.
    const detach = (f & DETACH) !== 0;
    if (detach && evidence.firm.raises("write")) evidence.firm.raise("write", tokenWhy(t));
    if (raises(evidence, "delete", firm)) evidence.raise("delete", tokenWhy(t), firm && !detach);
  }
}

function readDomains(t: string, f: number, evidence: NameEvidence): void {
  if ((f & EXEC) !== 0) {
    if (evidence.access.raises("exec") || evidence.firm.raises("exec"))
      evidence.raise("exec", tokenWhy(t), true);
    if (!evidence.has("exec")) evidence.domain("exec", tokenWhy(t), "name");
  }
  if ((f & FILE) !== 0 && !evidence.has("fs")) evidence.domain("fs", tokenWhy(t), "name");
  if ((f & NET) !== 0 && !evidence.has("net")) evidence.domain("net", tokenWhy(t), "name");
  if ((f & SOCKET) !== 0 && !evidence.has("socket")) evidence.domain("socket", tokenWhy(t), "name");
  if ((f & DB) !== 0 && !evidence.has("db")) evidence.domain("db", tokenWhy(t), "name");
  if ((f & SECRET) !== 0 && !evidence.has("secrets"))
    evidence.domain("secrets", tokenWhy(t), "name");
  if ((f & MESSAGE) !== 0 && !evidence.has("message"))
    evidence.domain("message", tokenWhy(t), "name");
}

function readArguments(
  tool: { description?: unknown; inputSchema?: unknown },
  evidence: NameEvidence,
): void {
  const schema = tool.inputSchema;
  const props = isObject(schema) ? schema.properties : undefined;
  if (!isObject(props)) return;
  for (const arg of Object.keys(props)) {
    const f = ARGUMENT_FLAGS.get(arg.toLowerCase());
    if (f === undefined) continue;
    const why = `argument "${arg}"`;
    if ((f & CODE_ARGUMENT) !== 0) {
      const said = executionWord(props[arg], tool.description);
      if (said !== null) {
        const because = `${why} (${said})`;
        evidence.raise("exec", because, true);
        evidence.domain("exec", because, "argument");
      }
    }
    if ((f & EXEC) !== 0) {
      evidence.raise("exec", why, true);
      evidence.domain("exec", why, "argument");
    }
    if ((f & NET) !== 0) evidence.domain("net", why, "argument");
    if ((f & DB) !== 0) evidence.domain("db", why, "argument");
  }
}

/** Where a text says a code argument runs: `its description says "javascript"`, or null. */
function executionWord(property: unknown, toolDescription: unknown): string | null {
  const own = isObject(property) ? property.description : undefined;
  for (const [text, whose] of [
    [own, "its description"],
    [toolDescription, "the tool description"],
  ] as const) {
    if (typeof text !== "string") continue;
    // Lower-cased first: prose is not camelCase (`JavaScript` is one word here).
    for (const w of splitWords(text.toLowerCase()))
      if (EXECUTION_WORDS.has(w)) return `${whose} says "${w}"`;
  }
  return null;
}
