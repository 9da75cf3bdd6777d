/**
 * Capability inference (before the speed work, commit 4b6c34c), kept verbatim as an oracle:
 * test/scan/fast-paths.test.ts checks that the faster code gives the same answers.
 */
import type { ToolDefinition } from "../../../src/pins/types.js";
import { wordTokens } from "../../../src/scan/tokens.js";
import type { InferredCapability } from "../../../src/scan/types.js";
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
} from "../../../src/scan/vocabulary.js";

/** What inference concluded about one tool. */
interface CapabilityProfile {
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
  const evidence = nameEvidence(tokens, argumentNames(tool.inputSchema));

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
      evidenceAccess: evidence.access,
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
  if (caps.length === 0 && chosen) {
    const state = chosen.access === "exec" ? "write" : chosen.access;
    addCapability(caps, `state.${state}`, chosen.source, chosen.evidence);
  }
  if (caps.length === 0)
    addCapability(caps, "unknown", "none", "no capabilities list, annotations or telling name");
  return {
    capabilities: caps,
    access,
    evidenceAccess: evidence.access,
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
  ].flatMap((s) => [...s]),
);

interface NameEvidence {
  access: { access: Access; evidence: string } | null;
  domains: Map<Domain, string>;
}

/** Raise the evidence's access to `a` when that is stronger (the first reason of a rank wins). */
function raise(evidence: NameEvidence, a: Access, why: string): void {
  const access = evidence.access;
  if (access === null || ACCESS_RANK[a] > ACCESS_RANK[access.access])
    evidence.access = { access: a, evidence: why };
}

/** Record a domain with its first reason. */
function domain(evidence: NameEvidence, d: Domain, why: string): void {
  if (!evidence.domains.has(d)) evidence.domains.set(d, why);
}

function nameEvidence(tokens: readonly string[], args: string[]): NameEvidence {
  const evidence: NameEvidence = { access: null, domains: new Map<Domain, string>() };
  let run: string | null = null;
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
    const verbPosition =
      !AMBIGUOUS_VERBS.has(t) || i === 0 || (i === tokens.length - 1 && !firstIsVerb);
    if (verbPosition && READ_VERBS.has(t)) raise(evidence, "read", why);
    if (verbPosition && WRITE_VERBS.has(t)) raise(evidence, "write", why);
    if (verbPosition && DELETE_VERBS.has(t)) raise(evidence, "delete", why);
    if (EXEC_TOKENS.has(t)) {
      raise(evidence, "exec", why);
      domain(evidence, "exec", why);
    }
    if (RUN_VERBS.has(t)) run = why;
    if (FILE_TOKENS.has(t)) domain(evidence, "fs", why);
    if (NETWORK_TOKENS.has(t)) domain(evidence, "net", why);
    if (SOCKET_TOKENS.has(t)) domain(evidence, "socket", why);
    if (DB_TOKENS.has(t)) domain(evidence, "db", why);
    if (SECRET_TOKENS.has(t)) domain(evidence, "secrets", why);
    if (MESSAGE_TOKENS.has(t)) domain(evidence, "message", why);
  }
  for (const arg of args) {
    const lower = arg.toLowerCase();
    if (!EXEC_ARGUMENTS.has(lower) && !NETWORK_ARGUMENTS.has(lower) && !DB_ARGUMENTS.has(lower))
      continue;
    const why = `argument "${arg}"`;
    if (EXEC_ARGUMENTS.has(lower)) {
      raise(evidence, "exec", why);
      domain(evidence, "exec", why);
    }
    if (NETWORK_ARGUMENTS.has(lower)) domain(evidence, "net", why);
    if (DB_ARGUMENTS.has(lower)) domain(evidence, "db", why);
  }
  if (run !== null) {
    if (evidence.domains.size === 0 && evidence.access === null) {
      raise(evidence, "exec", run);
      domain(evidence, "exec", run);
    } else raise(evidence, "write", run);
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
