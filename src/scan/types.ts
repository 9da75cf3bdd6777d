import type { ToolDefinition } from "../pins/types.js";
import type { FlowLabelEvidence, ToxicFlowDetail } from "./flows/types.js";

/** A finding's grade. A tool's grade is its worst finding, `pass` when it has none. */
export type Grade = "pass" | "warn" | "fail";

/** Stable rule codes (see `RULES` and docs/scan-tools.md). */
export type RuleCode =
  | "SCAN001"
  | "SCAN002"
  | "SCAN003"
  | "SCAN004"
  | "SCAN005"
  | "SCAN006"
  | "SCAN007"
  | "SCAN008"
  | "SCAN009"
  | "SCAN010"
  | "SCAN011"
  | "SCAN012"
  | "SCAN013"
  | "SCAN014"
  | "SCAN015";

/**
 * A grade per rule code, as a policy sets it (`SecurityPolicy.grades`): it replaces the
 * catalog grade (`RULES`) of the code's findings; a finding its rule already grades below
 * the catalog grade (a milder case) keeps the milder of the two.
 */
export type RuleGrades = Readonly<Partial<Record<RuleCode, Exclude<Grade, "pass">>>>;

/** Where a tool or a text came from: the file (or `-`, or `memory`) and the server, when known. */
export interface Origin {
  /** File path as given (relative paths stay relative), `-` for stdin, `memory` for objects. */
  source: string;
  /** Server name from a client config, a pin file or an `initialize` answer; null when unknown. */
  server: string | null;
}

/** One tool as loaded, with where it came from. `definition` is the caller's object, never mutated. */
export interface LoadedTool extends Origin {
  definition: ToolDefinition;
}

/** A server's `initialize` instructions (scanned for SCAN002 like a tool description). */
export interface ServerInstructions extends Origin {
  text: string;
}

/**
 * A note about the input itself rather than about a tool. `error` makes the scan's exit
 * code 2 (unusable input); `warning` makes it at least 1; `info` changes nothing.
 */
export interface InputProblem {
  severity: "info" | "warning" | "error";
  /**
   * Stable code: `INPUT_MISSING`, `INPUT_UNREADABLE`, `INPUT_INVALID`, `ENTRY_INVALID`,
   * `NO_TOOLS`, `NO_INLINE_TOOLS`, `NOT_A_TOOL_INPUT`, `PARTIAL_LISTING`, `INPUT_LIMIT`,
   * `INPUT_NOT_UTF8`.
   */
  code: string;
  source: string;
  message: string;
  /** `INPUT_NOT_UTF8`: byte offset (0-based) of the first invalid sequence in `source`. */
  offset?: number;
}

/** What the loaders return: tools, server instructions, and notes about the input. */
export interface ToolSet {
  tools: LoadedTool[];
  instructions: ServerInstructions[];
  problems: InputProblem[];
  /** Files read, in order. */
  sources: string[];
}

/** One finding of one rule on one tool (or on a server's instructions). */
export interface Finding {
  code: RuleCode;
  /** `warn` or `fail`; a finding never passes. */
  grade: Exclude<Grade, "pass">;
  /** One sentence a person can act on. */
  message: string;
  /** JSON pointer inside the tool definition (or `/instructions`), when the finding has a place. */
  pointer?: string;
  /** SCAN006/SCAN007: the capability concerned. */
  capability?: string;
  /** SCAN014/SCAN015: the tools on each leg of the toxic combination. */
  flow?: ToxicFlowDetail;
  /** SCAN002: the detector's signal id, the span in the text, a printable excerpt. */
  signal?: string;
  span?: { start: number; end: number };
  excerpt?: string;
  /**
   * SCAN012 name collisions: how many other tools of the input share this tool's name,
   * its name up to case, or its look-alike skeleton, and the first few of them
   * (`MAX_NAMED_COLLISIONS`) in input order. One finding per tool, whatever the group's size.
   */
  collisions?: { count: number; tools: NameCollision[] };
  /** Present when a reviewed suppression covers this finding; it then counts for nothing. */
  suppressed?: { reason: string; expires: string | null };
}

/**
 * How another tool's name relates to a tool's own, in a SCAN012 group: `identical` (same
 * name, same server, the very same definition), `duplicate` (same name otherwise), `case`
 * (differs only in case), `look-alike` (same confusable skeleton).
 */
export type NameRelation = "identical" | "duplicate" | "case" | "look-alike";

/** One other member of a tool's SCAN012 group. */
export interface NameCollision extends Origin {
  name: string;
  relation: NameRelation;
}

/** Where an inferred capability came from, most authoritative first. */
export type CapabilitySource = "explicit" | "annotation" | "name" | "argument" | "none";

/** One inferred capability and the evidence for it. */
export interface InferredCapability {
  capability: string;
  source: CapabilitySource;
  /** The token, annotation or argument that produced it. */
  evidence: string;
}

/**
 * The result for one scanned target: a tool, a server's instructions, or a toxic flow
 * (a combination of tools across the whole input, SCAN014/SCAN015).
 */
export interface TargetResult {
  kind: "tool" | "instructions" | "flow";
  /**
   * Tool name; for instructions the server name (or the source); for a flow its id
   * (`exfiltration-path`, `destructive-injection-path`).
   */
  name: string;
  server: string | null;
  source: string;
  /** Worst unsuppressed finding. */
  grade: Grade;
  /** Inferred capabilities (tools only; empty otherwise). */
  capabilities: InferredCapability[];
  /** Flow labels with their evidence (tools only; empty otherwise). */
  flowLabels: FlowLabelEvidence[];
  findings: Finding[];
}

/** A suppression as read from a suppressions file. */
export interface Suppression {
  tool: string;
  code: RuleCode;
  reason: string;
  /** Optional server the suppression is limited to. */
  server?: string;
  /** ISO date (`YYYY-MM-DD`) after which the suppression no longer applies. */
  expires?: string;
}

/** What happened to the suppressions of a scan. */
export interface SuppressionOutcome {
  /** Suppressions that covered at least one finding. */
  applied: Suppression[];
  /** Suppressions past their expiry: they covered nothing. */
  expired: Suppression[];
  /** Unexpired suppressions that matched no finding: stale, remove them. */
  unused: Suppression[];
}

/** The report of `scanTools`. Serialises as-is to the JSON output (docs/scan-report.schema.json). */
export interface ScanReport {
  /** Version of this report's JSON shape. */
  schemaVersion: 1;
  /** Name of the policy applied. */
  policy: string;
  /** 0 pass, 1 warnings only, 2 a failure or unusable input. */
  exitCode: 0 | 1 | 2;
  /** Worst grade over everything, input problems included (`fail` when exitCode is 2). */
  grade: Grade;
  /** Number of targets (tools, instructions and toxic flows) whose grade is fail / warn / pass. */
  failed: number;
  warned: number;
  passed: number;
  /** Tools scanned. */
  toolCount: number;
  results: TargetResult[];
  problems: InputProblem[];
  suppressions: SuppressionOutcome;
}
