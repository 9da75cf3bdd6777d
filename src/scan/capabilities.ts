import type { ToolDefinition } from "../pins/types.js";
import { splitWords } from "./tokens.js";
import type { InferredCapability } from "./types.js";
import {
  ACCESS_RANK,
  type Access,
  AMBIGUOUS_VERBS,
  DB_ARGUMENTS,
  DB_TOKENS,
  DELETE_VERBS,
  EXEC_ARGUMENTS,
  EXEC_TOKENS,
  FILE_TOKENS,
  MESSAGE_TOKENS,
  NETWORK_ARGUMENTS,
  NETWORK_TOKENS,
  READ_VERBS,
  RUN_VERBS,
  SECRET_BIGRAMS,
  SECRET_TOKENS,
  SOCKET_TOKENS,
  WRITE_VERBS,
} from "./vocabulary.js";

/**
 * The capability vocabulary. Policies grant these names (or globs over them).
 * `unknown` is what a tool gets when nothing about it says what it does.
 *
 * @example
 * ```ts
 * import { CAPABILITIES } from "agent-airlock/scan";
 * console.log(CAPABILITIES.includes("exec.command")); // true
 * ```
 */
export const CAPABILITIES: readonly string[] = Object.freeze([
  "fs.read",
  "fs.write",
  "fs.delete",
  "db.read",
  "db.write",
  "net.outbound",
  "net.socket",
  "exec.command",
  "secrets.read",
  "message.read",
  "message.send",
  "state.read",
  "state.write",
  "state.delete",
  "unknown",
]);

/** What inference concluded about one tool. */
export interface CapabilityProfile {
  capabilities: InferredCapability[];
  /** The strongest access, from the chosen source; null when nothing said. */
  access: Access | null;
  /** Access the name and arguments alone suggest (SCAN011 compares annotations with it). */
  evidenceAccess: { access: Access; evidence: string } | null;
  /** True when the tool mutates: write, delete or exec access, or `destructiveHint: true`. */
  mutating: boolean;
  /** True when annotations say additive-only (`readOnlyHint: false`, `destructiveHint: false`). */
  additiveOnly: boolean;
}

type Domain = "fs" | "db" | "net" | "socket" | "exec" | "secrets" | "message";

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const NO_ANNOTATIONS: Record<string, unknown> = Object.freeze({});

/**
 * Infer a tool's capabilities, most authoritative first: an explicit `capabilities` list
 * of strings on the definition; else MCP annotations (`readOnlyHint`, `destructiveHint`,
 * `openWorldHint`) for the kind of access; else a heuristic on the word tokens of the
 * name (and a few telling argument names such as `command`, `url`, `sql`) for both the
 * access and the domain. With `annotationsMayNarrow: false`, annotation and name evidence
 * are combined and the stronger access wins.
 *
 * @example
 * ```ts
 * import { inferCapabilities } from "agent-airlock/scan";
 * console.log(inferCapabilities({ name: "open_socket" }).capabilities.map((c) => c.capability)); // ["net.socket"]
 * console.log(inferCapabilities({ name: "update_profile" }).capabilities.map((c) => c.capability)); // ["state.write"]
 * ```
 */
export function inferCapabilities(
  tool: ToolDefinition,
  options: { annotationsMayNarrow?: boolean } = {},
): CapabilityProfile {
  const narrow = options.annotationsMayNarrow ?? true;
  const annotations = isObject(tool.annotations) ? tool.annotations : NO_ANNOTATIONS;
  const readOnly = annotations.readOnlyHint;
  const destructive = annotations.destructiveHint;
  const openWorld = annotations.openWorldHint;

  const tokens = splitWords(typeof tool.name === "string" ? tool.name : "");
  const evidence = nameEvidence(tokens, argumentNames(tool.inputSchema));
  const nameAccess =
    evidence.access === null ? null : { access: evidence.access, evidence: evidence.why };

  const explicit = Array.isArray(tool.capabilities)
    ? tool.capabilities.filter((c): c is string => typeof c === "string" && c !== "")
    : null;
  if (explicit !== null && explicit.length > 0) {
    const caps = [...new Set(explicit)].map((capability) => ({
      capability,
      source: "explicit" as const,
      evidence: "capabilities",
    }));
    const access = accessOfCapabilities(explicit);
    return {
      capabilities: caps,
      access,
      evidenceAccess: nameAccess,
      mutating: access !== null && access !== "read",
      additiveOnly: false,
    };
  }

  let annotated: Access | null = null;
  let annotatedWhy = "";
  if (readOnly === true) {
    annotated = "read";
    annotatedWhy = "readOnlyHint: true";
  } else if (destructive === true) {
    annotated = "write";
    annotatedWhy = "destructiveHint: true";
  } else if (readOnly === false) {
    annotated = "write";
    annotatedWhy =
      destructive === false ? "readOnlyHint: false, destructiveHint: false" : "readOnlyHint: false";
  }

  // Only `readOnlyHint: true` narrows (and only when the policy lets annotations narrow);
  // otherwise the stronger of annotation and name evidence wins.
  let access: Access | null = evidence.access;
  let chosenWhy = evidence.why;
  let chosenSource: "annotation" | "name" = "name";
  if (
    annotated !== null &&
    (evidence.access === null ||
      (narrow && annotated === "read") ||
      ACCESS_RANK[annotated] > ACCESS_RANK[evidence.access])
  ) {
    access = annotated;
    chosenWhy = annotatedWhy;
    chosenSource = "annotation";
  }

  const caps: InferredCapability[] = [];
  for (const { domain, why, source } of evidence.domains) {
    switch (domain) {
      case "fs":
        addCapability(caps, FS_CAPABILITY[access ?? "write"], source, why);
        break;
      case "db":
        addCapability(caps, access === "read" ? "db.read" : "db.write", source, why);
        break;
      case "message":
        addCapability(caps, access === "read" ? "message.read" : "message.send", source, why);
        break;
      case "net":
        addCapability(caps, "net.outbound", source, why);
        break;
      case "socket":
        addCapability(caps, "net.socket", source, why);
        break;
      case "exec":
        addCapability(caps, "exec.command", source, why);
        break;
      case "secrets":
        addCapability(caps, "secrets.read", source, why);
        break;
    }
  }
  if (access === "exec" && evidence.domains.length === 0)
    addCapability(caps, "exec.command", chosenSource, chosenWhy);
  if (openWorld === true) addCapability(caps, "net.outbound", "annotation", "openWorldHint: true");
  if (caps.length === 0 && access !== null) {
    addCapability(caps, STATE_CAPABILITY[access], chosenSource, chosenWhy);
  }
  if (caps.length === 0)
    addCapability(caps, "unknown", "none", "no capabilities list, annotations or telling name");
  return {
    capabilities: caps,
    access,
    evidenceAccess: nameAccess,
    // Fail closed: a tool is mutating when any evidence says so, even if an annotation
    // narrowed its capabilities (SCAN011 reports the contradiction separately).
    mutating:
      (access !== null && access !== "read") ||
      (evidence.access !== null && evidence.access !== "read") ||
      destructive === true,
    additiveOnly:
      readOnly === false &&
      destructive === false &&
      access !== "exec" &&
      (evidence.access === null || ACCESS_RANK[evidence.access] <= ACCESS_RANK.write),
  };
}

// Capability names by access, as constants: the policy looks each one up by name, and a
// constant's hash is computed once, a fresh template string's on every lookup.
const FS_CAPABILITY: Readonly<Record<Access, string>> = {
  read: "fs.read",
  write: "fs.write",
  delete: "fs.delete",
  exec: "fs.write",
};
const STATE_CAPABILITY: Readonly<Record<Access, string>> = {
  read: "state.read",
  write: "state.write",
  delete: "state.delete",
  exec: "state.write",
};

/** Add a capability once, with its first reason. */
function addCapability(
  caps: InferredCapability[],
  capability: string,
  source: InferredCapability["source"],
  why: string,
): void {
  for (const c of caps) if (c.capability === capability) return;
  caps.push({ capability, source, evidence: why });
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
/** Every list but the ambiguity marker: a token with none of these cannot change the outcome. */
const KNOWN = READ | WRITE | DELETE | EXEC | RUN | FILE | NET | SOCKET | DB | SECRET | MESSAGE;
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
]);

const ARGUMENT_FLAGS = flagTable([
  [EXEC_ARGUMENTS, EXEC],
  [NETWORK_ARGUMENTS, NET],
  [DB_ARGUMENTS, DB],
]);

/** What the name and arguments say: the strongest access, and each domain with its first reason. */
class NameEvidence {
  /** Null when nothing said; `why` is the first reason given for it. */
  access: Access | null = null;
  why = "";
  /** Each domain named, in the order first named, with its first reason. */
  domains: { domain: Domain; why: string; source: "name" | "argument" }[] = [];

  /** Raise the access to `a` when that is stronger (the first reason of a rank wins). */
  raise(a: Access, why: string): void {
    if (this.access === null || ACCESS_RANK[a] > ACCESS_RANK[this.access]) {
      this.access = a;
      this.why = why;
    }
  }

  /** Would `raise(a, ...)` change anything? Lets callers build the reason only when it will. */
  raises(a: Access): boolean {
    return this.access === null || ACCESS_RANK[a] > ACCESS_RANK[this.access];
  }

  has(d: Domain): boolean {
    for (const e of this.domains) if (e.domain === d) return true;
    return false;
  }

  /** Record a domain with its first reason. */
  domain(d: Domain, why: string, source: "name" | "argument"): void {
    if (!this.has(d)) this.domains.push({ domain: d, why, source });
  }
}

const tokenWhy = (t: string) => `name token "${t}"`;

function nameEvidence(tokens: readonly string[], args: string[]): NameEvidence {
  const evidence = new NameEvidence();
  let run: string | null = null;
  const n = tokens.length;
  let firstIsVerb = false;
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
    const verbPosition = (f & AMBIGUOUS) === 0 || i === 0 || (i === n - 1 && !firstIsVerb);
    if (verbPosition) {
      if ((f & READ) !== 0 && evidence.raises("read")) evidence.raise("read", tokenWhy(t));
      if ((f & WRITE) !== 0 && evidence.raises("write")) evidence.raise("write", tokenWhy(t));
      if ((f & DELETE) !== 0 && evidence.raises("delete")) evidence.raise("delete", tokenWhy(t));
    }
    if ((f & EXEC) !== 0) {
      if (evidence.raises("exec")) evidence.raise("exec", tokenWhy(t));
      if (!evidence.has("exec")) evidence.domain("exec", tokenWhy(t), "name");
    }
    if ((f & RUN) !== 0) run = t;
    if ((f & FILE) !== 0 && !evidence.has("fs")) evidence.domain("fs", tokenWhy(t), "name");
    if ((f & NET) !== 0 && !evidence.has("net")) evidence.domain("net", tokenWhy(t), "name");
    if ((f & SOCKET) !== 0 && !evidence.has("socket"))
      evidence.domain("socket", tokenWhy(t), "name");
    if ((f & DB) !== 0 && !evidence.has("db")) evidence.domain("db", tokenWhy(t), "name");
    if ((f & SECRET) !== 0 && !evidence.has("secrets"))
      evidence.domain("secrets", tokenWhy(t), "name");
    if ((f & MESSAGE) !== 0 && !evidence.has("message"))
      evidence.domain("message", tokenWhy(t), "name");
  }
  for (const arg of args) {
    const f = ARGUMENT_FLAGS.get(arg.toLowerCase());
    if (f === undefined) continue;
    const why = `argument "${arg}"`;
    if ((f & EXEC) !== 0) {
      evidence.raise("exec", why);
      evidence.domain("exec", why, "argument");
    }
    if ((f & NET) !== 0) evidence.domain("net", why, "argument");
    if ((f & DB) !== 0) evidence.domain("db", why, "argument");
  }
  if (run !== null) {
    const why = tokenWhy(run);
    if (evidence.domains.length === 0 && evidence.access === null) {
      evidence.raise("exec", why);
      evidence.domain("exec", why, "name");
    } else evidence.raise("write", why);
  }
  return evidence;
}

function argumentNames(schema: unknown): string[] {
  if (!isObject(schema)) return [];
  const props = schema.properties;
  return isObject(props) ? Object.keys(props) : [];
}

function accessOfCapabilities(caps: string[]): Access | null {
  let best: Access | null = null;
  for (const c of caps) {
    const a: Access = c.startsWith("exec.")
      ? "exec"
      : /\.(delete|remove)$/.test(c)
        ? "delete"
        : /\.(read|list|get)$/.test(c)
          ? "read"
          : "write";
    if (best === null || ACCESS_RANK[a] > ACCESS_RANK[best]) best = a;
  }
  return best;
}
