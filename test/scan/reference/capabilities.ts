/**
 * Capability inference (before the speed work, commit 4b6c34c), kept as an oracle:
 * test/scan/fast-paths.test.ts checks that the faster code gives the same answers. Its
 * word-list lookups are as they were; the toxic-flows branch added, in the same plain
 * style, the first-verb rule, firm and weak evidence, code arguments, open-world tokens
 * and the write kept as a state change.
 */
import type { ToolDefinition } from "../../../src/pins/types.js";
import { wordTokens } from "../../../src/scan/tokens.js";
import type { InferredCapability } from "../../../src/scan/types.js";
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
} from "../../../src/scan/vocabulary.js";

/** What inference concluded about one tool. */
interface CapabilityProfile {
  capabilities: InferredCapability[];
  /** The strongest access, from the chosen source; null when nothing said. */
  access: Access | null;
  /** Access the name and arguments alone suggest (SCAN011 compares annotations with it). */
  evidenceAccess: { access: Access; evidence: string } | null;
  openWorldEvidence: string | null;
  /** True when the tool mutates: write, delete or exec access, or `destructiveHint: true`. */
  mutating: boolean;
  /** True when annotations say additive-only (`readOnlyHint: false`, `destructiveHint: false`). */
  additiveOnly: boolean;
}

type Domain = "fs" | "db" | "net" | "socket" | "exec" | "secrets" | "message";

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

export function referenceInferCapabilities(
  tool: ToolDefinition,
  options: { annotationsMayNarrow?: boolean } = {},
): CapabilityProfile {
  const narrow = options.annotationsMayNarrow ?? true;
  const annotations = isObject(tool.annotations) ? tool.annotations : {};
  const readOnly = annotations.readOnlyHint;
  const destructive = annotations.destructiveHint;
  const openWorld = annotations.openWorldHint;

  const tokens = wordTokens(typeof tool.name === "string" ? tool.name : "");
  const evidence = nameEvidence(tokens, tool.inputSchema, tool.description);

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
      evidenceAccess: evidence.firm,
      openWorldEvidence: evidence.openWorld,
      mutating: access !== null && access !== "read",
      additiveOnly: false,
    };
  }

  let annotated: { access: Access; evidence: string } | null = null;
  if (readOnly === true) annotated = { access: "read", evidence: "readOnlyHint: true" };
  else if (destructive === true) annotated = { access: "write", evidence: "destructiveHint: true" };
  else if (readOnly === false) {
    annotated = {
      access: "write",
      evidence:
        destructive === false
          ? "readOnlyHint: false, destructiveHint: false"
          : "readOnlyHint: false",
    };
  }

  // Only `readOnlyHint: true` narrows (and only when the policy lets annotations narrow);
  // otherwise the stronger of annotation and name evidence wins.
  let chosen: { access: Access; evidence: string; source: "annotation" | "name" } | null = null;
  const nameAccess = evidence.access;
  if (annotated && (nameAccess === null || (narrow && annotated.access === "read"))) {
    chosen = { ...annotated, source: "annotation" };
  } else if (
    annotated &&
    nameAccess &&
    ACCESS_RANK[annotated.access] > ACCESS_RANK[nameAccess.access]
  ) {
    chosen = { ...annotated, source: "annotation" };
  } else if (nameAccess) {
    chosen = { ...nameAccess, source: "name" };
  }

  const caps: InferredCapability[] = [];
  const access = chosen?.access ?? null;
  for (const [domain, why] of evidence.domains) {
    const source = why.startsWith("argument ") ? "argument" : "name";
    switch (domain) {
      case "fs":
        addCapability(caps, `fs.${access === "exec" ? "write" : (access ?? "write")}`, source, why);
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
        if (!(evidence.weakExec && access === "read"))
          addCapability(caps, "exec.command", source, why);
        break;
      case "secrets":
        addCapability(caps, "secrets.read", source, why);
        break;
    }
  }
  if (chosen?.access === "exec" && evidence.domains.size === 0)
    addCapability(caps, "exec.command", chosen.source, chosen.evidence);
  if (openWorld === true) addCapability(caps, "net.outbound", "annotation", "openWorldHint: true");
  if (chosen && chosen.access !== "read" && !caps.some((c) => WRITING.has(c.capability))) {
    const state = chosen.access === "exec" ? "write" : chosen.access;
    addCapability(caps, `state.${state}`, chosen.source, chosen.evidence);
  }
  if (caps.length === 0 && chosen) {
    const state = chosen.access === "exec" ? "write" : chosen.access;
    addCapability(caps, `state.${state}`, chosen.source, chosen.evidence);
  }
  if (caps.length === 0)
    addCapability(caps, "unknown", "none", "no capabilities list, annotations or telling name");
  return {
    capabilities: caps,
    access,
    evidenceAccess: evidence.firm,
    openWorldEvidence: evidence.openWorld,
    // Fail closed: a tool is mutating when any evidence says so, even if an annotation
    // narrowed its capabilities (SCAN011 reports the contradiction separately).
    mutating:
      (access !== null && access !== "read") ||
      (evidence.access !== null && evidence.access.access !== "read") ||
      destructive === true,
    additiveOnly:
      readOnly === false &&
      destructive === false &&
      access !== "exec" &&
      (evidence.access === null || ACCESS_RANK[evidence.access.access] <= ACCESS_RANK.write),
  };
}

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

const WRITING = new Set([
  "fs.write",
  "fs.delete",
  "db.write",
  "message.send",
  "state.write",
  "state.delete",
  "exec.command",
]);

const VERBS: ReadonlySet<string> = new Set(
  [READ_VERBS, WRITE_VERBS, DELETE_VERBS, RUN_VERBS].flatMap((s) => [...s]),
);

/** Every word any list knows: a token outside it cannot change the outcome. */
const KNOWN_WORDS: ReadonlySet<string> = new Set(
  [
    READ_VERBS,
    WRITE_VERBS,
    DELETE_VERBS,
    EXEC_TOKENS,
    RUN_VERBS,
    FILE_TOKENS,
    NETWORK_TOKENS,
    SOCKET_TOKENS,
    DB_TOKENS,
    SECRET_TOKENS,
    MESSAGE_TOKENS,
    CONJUNCTIONS,
    CODE_TOKENS,
    OPEN_WORLD_TOKENS,
  ].flatMap((s) => [...s]),
);

interface NameEvidence {
  access: { access: Access; evidence: string } | null;
  firm: { access: Access; evidence: string } | null;
  domains: Map<Domain, string>;
  weakExec: boolean;
  openWorld: string | null;
}

type Level = { access: Access; evidence: string } | null;

/** The stronger of a level and `a` (the first reason of a rank wins). */
function stronger(level: Level, a: Access, why: string): Level {
  return level === null || ACCESS_RANK[a] > ACCESS_RANK[level.access]
    ? { access: a, evidence: why }
    : level;
}

function raise(evidence: NameEvidence, a: Access, why: string, firm: boolean): void {
  evidence.access = stronger(evidence.access, a, why);
  if (firm) evidence.firm = stronger(evidence.firm, a, why);
}

/** Record a domain with its first reason. */
function domain(evidence: NameEvidence, d: Domain, why: string): void {
  if (!evidence.domains.has(d)) evidence.domains.set(d, why);
}

function nameEvidence(
  tokens: readonly string[],
  schema: unknown,
  description: unknown,
): NameEvidence {
  const evidence: NameEvidence = {
    access: null,
    firm: null,
    domains: new Map<Domain, string>(),
    weakExec: false,
    openWorld: null,
  };
  let run: string | null = null;
  let code = false;
  let acted = false;
  const first = tokens[0] ?? "";
  const firstIsVerb = VERBS.has(first);
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    const next = tokens[i + 1];
    if (next !== undefined && SECRET_BIGRAMS.has(`${t} ${next}`)) {
      domain(evidence, "secrets", `name tokens "${t} ${next}"`);
    }
    if (!KNOWN_WORDS.has(t)) continue;
    const why = `name token "${t}"`;
    if (CONJUNCTIONS.has(t)) acted = false;
    if (CODE_TOKENS.has(t)) code = true;
    if (OPEN_WORLD_TOKENS.has(t) && evidence.openWorld === null) evidence.openWorld = why;
    if (VERBS.has(t)) {
      const ambiguous = AMBIGUOUS_VERBS.has(t);
      const plainAfter = tokens.slice(i + 1).some((x) => VERBS.has(x) && !AMBIGUOUS_VERBS.has(x));
      const placed =
        !ambiguous ||
        i === 0 ||
        (i === tokens.length - 1 && !firstIsVerb) ||
        (i === 1 && !firstIsVerb && !plainAfter);
      if (placed && !acted) {
        const firm = !(ambiguous && i !== 0);
        if (READ_VERBS.has(t)) raise(evidence, "read", why, firm);
        if (WRITE_VERBS.has(t)) raise(evidence, "write", why, firm);
        if (DELETE_VERBS.has(t) || DETACH_VERBS.has(t)) {
          if (DETACH_VERBS.has(t)) evidence.firm = stronger(evidence.firm, "write", why);
          raise(evidence, "delete", why, firm && !DETACH_VERBS.has(t));
        }
        if (RUN_VERBS.has(t)) run = why;
        acted = true;
      }
    }
    if (EXEC_TOKENS.has(t)) {
      raise(evidence, "exec", why, true);
      domain(evidence, "exec", why);
    }
    if (FILE_TOKENS.has(t)) domain(evidence, "fs", why);
    if (NETWORK_TOKENS.has(t)) domain(evidence, "net", why);
    if (SOCKET_TOKENS.has(t)) domain(evidence, "socket", why);
    if (DB_TOKENS.has(t)) domain(evidence, "db", why);
    if (SECRET_TOKENS.has(t)) domain(evidence, "secrets", why);
    if (MESSAGE_TOKENS.has(t)) domain(evidence, "message", why);
  }
  const props = isObject(schema) && isObject(schema.properties) ? schema.properties : {};
  for (const arg of Object.keys(props)) {
    const lower = arg.toLowerCase();
    const why = `argument "${arg}"`;
    if (CODE_ARGUMENTS.has(lower)) {
      const own = isObject(props[arg])
        ? (props[arg] as Record<string, unknown>).description
        : undefined;
      let said: string | null = null;
      for (const [text, whose] of [
        [own, "its description"],
        [description, "the tool description"],
      ] as const) {
        if (said !== null || typeof text !== "string") continue;
        const w = wordTokens(text.toLowerCase()).find((x) => EXECUTION_WORDS.has(x));
        if (w !== undefined) said = `${whose} says "${w}"`;
      }
      if (said !== null) {
        raise(evidence, "exec", `${why} (${said})`, true);
        domain(evidence, "exec", `${why} (${said})`);
      }
    }
    if (EXEC_ARGUMENTS.has(lower)) {
      raise(evidence, "exec", why, true);
      domain(evidence, "exec", why);
    }
    if (NETWORK_ARGUMENTS.has(lower)) domain(evidence, "net", why);
    if (DB_ARGUMENTS.has(lower)) domain(evidence, "db", why);
  }
  if (run !== null) {
    if (code) {
      raise(evidence, "exec", run, true);
      domain(evidence, "exec", run);
    } else if (evidence.domains.size === 0 && evidence.access === null) {
      raise(evidence, "exec", run, false);
      domain(evidence, "exec", run);
      evidence.weakExec = true;
    } else raise(evidence, "write", run, false);
  }
  return evidence;
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
