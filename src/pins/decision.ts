import type { PinDecision, PinnedField, PinVerdict, PinVersion } from "./types.js";

const FIELD_VERDICT: Record<PinnedField, PinVerdict> = {
  description: "deny_description_drift",
  inputSchema: "deny_schema_drift",
  annotations: "deny_annotations_drift",
  outputSchema: "deny_output_schema_drift",
};

const REVIEW_HINT =
  "Review the new definition before anything uses this tool; if the change is legitimate, re-approve it (guard.approve(definition), or `airlock pin`): re-approval is the only way to accept a rotation.";

interface DecisionInput {
  toolName: string;
  enforced: boolean;
  observedDigest: string | null;
  pinnedDigest: string | null;
  pinVersion: PinVersion | null;
}

function build(
  input: DecisionInput,
  verdict: PinVerdict,
  detail: string,
  changedFields: PinnedField[],
  fixHints: string[],
): PinDecision {
  const allowed = verdict === "allow_pinned";
  return {
    toolName: input.toolName,
    verdict,
    allowed,
    detail,
    observedDigest: input.observedDigest,
    pinnedDigest: input.pinnedDigest,
    changedFields,
    fixHints,
    auditEvent: {
      event: "tool_definition_check",
      toolName: input.toolName,
      verdict,
      allowed,
      enforced: input.enforced,
      observedDigest: input.observedDigest,
      pinnedDigest: input.pinnedDigest,
      pinVersion: input.pinVersion,
      changedFields: [...changedFields],
    },
  };
}

/** The decision for a definition that matches its pin. */
export function allowPinned(input: DecisionInput): PinDecision {
  return build(
    input,
    "allow_pinned",
    `tool ${JSON.stringify(input.toolName)} matches its pin (version ${input.pinVersion})`,
    [],
    [],
  );
}

/** The decision for a tool nobody approved: refused, never learned. */
export function denyUnpinned(input: DecisionInput): PinDecision {
  return build(
    input,
    "deny_unpinned",
    `tool ${JSON.stringify(input.toolName)} has no pin: nobody approved it, and an unseen tool is refused, never learned`,
    [],
    [
      "If this tool should be available, review its definition and approve it (guard.approve(definition), or `airlock pin`).",
      "If it should not, remove it from the server: it stays refused either way.",
    ],
  );
}

/**
 * The decision for a definition whose digest differs from its pin. `changedFields` is
 * null when the approved definition is unknown (a pin loaded from a digest alone).
 */
export function denyDrift(input: DecisionInput, changedFields: PinnedField[] | null): PinDecision {
  const name = JSON.stringify(input.toolName);
  if (changedFields === null || changedFields.length === 0) {
    return build(
      input,
      "deny_multi_field_drift",
      `tool ${name} changed since it was approved; which field moved is unknown (the pin holds a digest, not the approved definition)`,
      [],
      [
        REVIEW_HINT,
        "Store pins with their approved definition (a pin file) so drift can name the field.",
      ],
    );
  }
  if (changedFields.length === 1) {
    const field = changedFields[0]!;
    return build(
      input,
      FIELD_VERDICT[field],
      `tool ${name} changed since it was approved: its ${field} moved`,
      changedFields,
      [REVIEW_HINT],
    );
  }
  return build(
    input,
    "deny_multi_field_drift",
    `tool ${name} changed since it was approved: ${changedFields.join(", ")} moved`,
    changedFields,
    [REVIEW_HINT],
  );
}
