/**
 * Capability inference: what a tool can do (`fs.read`, `net.outbound`, `exec.command`,
 * ...) from an explicit `capabilities` list, its MCP annotations and what its name and
 * arguments say (name-evidence.ts). Policies grant or deny these names (SCAN006, SCAN007),
 * SCAN003 and SCAN011 read the access, and flow labels (flows/) start from them.
 */
import type { ToolDefinition } from "../pins/types.js";
import { type AccessEvidence, readNameEvidence } from "./name-evidence.js";
import type { InferredCapability } from "./types.js";
import { ACCESS_RANK, type Access } from "./vocabulary.js";

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
  /**
   * Access the firm evidence of the name and arguments shows (SCAN011 compares annotations
   * with it); weak cues (a run verb, a noun-verb in the last place, `remove`) are left out.
   */
  evidenceAccess: AccessEvidence | null;
  /** The name token that says the tool reaches the open network (SCAN011), or null. */
  openWorldEvidence: string | null;
  /** True when the tool mutates: write, delete or exec access, or `destructiveHint: true`. */
  mutating: boolean;
  /** True when annotations say additive-only (`readOnlyHint: false`, `destructiveHint: false`). */
  additiveOnly: boolean;
}

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

  const evidence = readNameEvidence(tool);
  const named = evidence.access.value;
  const nameAccess = evidence.firm.value;

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
      openWorldEvidence: evidence.openWorld,
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
  let access: Access | null = named?.access ?? null;
  let chosenWhy = named?.evidence ?? "";
  let chosenSource: "annotation" | "name" = "name";
  if (
    annotated !== null &&
    (named === null ||
      (narrow && annotated === "read") ||
      ACCESS_RANK[annotated] > ACCESS_RANK[named.access])
  ) {
    access = annotated;
    chosenWhy = annotatedWhy;
    chosenSource = "annotation";
  }

  const caps: InferredCapability[] = [];
  for (const { domain, why, source, weak } of evidence.domains) {
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
        // A lone run verb under a readOnlyHint that narrowed it (`run_audit`) runs nothing.
        if (!(weak && access === "read")) addCapability(caps, "exec.command", source, why);
        break;
      case "secrets":
        addCapability(caps, "secrets.read", source, why);
        break;
    }
  }
  if (access === "exec" && evidence.domains.length === 0)
    addCapability(caps, "exec.command", chosenSource, chosenWhy);
  if (openWorld === true) addCapability(caps, "net.outbound", "annotation", "openWorldHint: true");
  // A write the domains cannot carry (`net.outbound` has no write form: a browser click
  // annotated destructiveHint: true) is kept as a state change, so no policy reads it as
  // a read.
  if (access !== null && access !== "read" && !caps.some((c) => WRITING.has(c.capability))) {
    addCapability(caps, STATE_CAPABILITY[access], chosenSource, chosenWhy);
  }
  if (caps.length === 0 && access !== null) {
    addCapability(caps, STATE_CAPABILITY[access], chosenSource, chosenWhy);
  }
  if (caps.length === 0)
    addCapability(caps, "unknown", "none", "no capabilities list, annotations or telling name");
  return {
    capabilities: caps,
    access,
    evidenceAccess: nameAccess,
    openWorldEvidence: evidence.openWorld,
    // Fail closed: a tool is mutating when any evidence says so, even if an annotation
    // narrowed its capabilities (SCAN011 reports the contradiction separately).
    mutating:
      (access !== null && access !== "read") ||
      (named !== null && named.access !== "read") ||
      destructive === true,
    additiveOnly:
      readOnly === false &&
      destructive === false &&
      access !== "exec" &&
      (named === null || ACCESS_RANK[named.access] <= ACCESS_RANK.write),
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

/** Capabilities that change something: a write access needs one of them. */
const WRITING: ReadonlySet<string> = new Set([
  "fs.write",
  "fs.delete",
  "db.write",
  "message.send",
  "state.write",
  "state.delete",
  "exec.command",
]);

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
