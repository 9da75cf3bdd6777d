/** Pin digest formats: 1 (legacy: name, description, inputSchema) and 2 (the default). */
export type PinVersion = 1 | 2;

/** A tool definition as served by `tools/list` (only `name` is required to judge it). */
export interface ToolDefinition {
  name: string;
  description?: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
  [field: string]: unknown;
}

/** The fields a pin covers; a drift names the ones that moved. */
export type PinnedField = "description" | "inputSchema" | "annotations" | "outputSchema";

/** What the pin guard decided about one tool definition. */
export type PinVerdict =
  | "allow_pinned"
  | "deny_unpinned"
  | "deny_description_drift"
  | "deny_schema_drift"
  | "deny_annotations_drift"
  | "deny_output_schema_drift"
  | "deny_multi_field_drift";

/** A structured record of a decision, for audit logs (JSON-serialisable). */
export interface PinAuditEvent {
  event: "tool_definition_check";
  toolName: string;
  verdict: PinVerdict;
  allowed: boolean;
  enforced: boolean;
  observedDigest: string | null;
  pinnedDigest: string | null;
  pinVersion: PinVersion | null;
  changedFields: PinnedField[];
}

/** The result of `ToolDefinitionPinGuard.check`. */
export interface PinDecision {
  toolName: string;
  verdict: PinVerdict;
  /** True only for `allow_pinned`. With `enforce` off a refusal is still `false` here. */
  allowed: boolean;
  /** One sentence a person can read. */
  detail: string;
  /** Digest of the definition seen, in the pin's version; null when it could not be computed. */
  observedDigest: string | null;
  /** The stored digest; null when the tool has no pin. */
  pinnedDigest: string | null;
  /** Fields that moved, when the approved definition is known; empty otherwise. */
  changedFields: PinnedField[];
  /** What an operator can do about it. */
  fixHints: string[];
  auditEvent: PinAuditEvent;
}

/** Why a listing refused a tool. */
export type RefusalReason = "unpinned" | "drift" | "duplicate" | "unreadable";

/** One refused entry of a listing. */
export interface RefusedTool {
  /** The tool's name, or null when the entry has no readable name. */
  name: string | null;
  /** Position in the listing (0-based; across all pages for a full listing). */
  index: number;
  reason: RefusalReason;
  /** The pin decision, when one was made (unpinned and drift). */
  decision?: PinDecision;
  detail: string;
}

/** The result of `checkListing`. */
export interface ListingCheck {
  /** True when nothing was refused. `missing` tools never make it false. */
  allowed: boolean;
  /** Names a client may expose, in listing order. */
  admitted: string[];
  refused: RefusedTool[];
  /** Pinned tools the listing leaves out (sorted). They refuse nothing. */
  missing: string[];
  /** A decision per readable, non-duplicated tool, in listing order. */
  decisions: PinDecision[];
}
