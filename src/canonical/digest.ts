import { createHash } from "node:crypto";
import { InvalidToolDefinitionError } from "../errors.js";
import type { PinnedField, PinVersion } from "../pins/types.js";
import { PYTHON_JSON } from "./python-json.js";
import { type CanonicalLimits, serialize } from "./serialize.js";

/**
 * The fields each pin version covers, besides `name`, in canonical (sorted) order.
 *
 * @example
 * ```ts
 * import { PINNED_FIELDS } from "agent-airlock";
 * console.log(PINNED_FIELDS[1]); // ["description", "inputSchema"]
 * ```
 */
export const PINNED_FIELDS: Readonly<Record<PinVersion, readonly PinnedField[]>> = {
  1: ["description", "inputSchema"],
  2: ["annotations", "description", "inputSchema", "outputSchema"],
};

/** Fields whose nulls are dropped and whose `{}` reads as absent, in version 2. */
const NORMALISED: ReadonlySet<PinnedField> = new Set(["annotations", "outputSchema"]);

/** Options of {@link canonicalDigest}. */
export interface CanonicalDigestOptions extends CanonicalLimits {
  /** Digest format: 2 (default) or the legacy 1. */
  pinVersion?: PinVersion;
}

/**
 * The canonical text of each pinned field (and the name) of a definition: the parts a
 * pin digest is built from, so drift can say which field moved without another pass.
 */
export interface PinnedFieldTexts {
  name: string;
  pinVersion: PinVersion;
  fields: Partial<Record<PinnedField, string>>;
}

/**
 * Read the `name` of a tool definition: an own, non-empty string, or an
 * {@link InvalidToolDefinitionError}.
 */
export function readToolName(definition: unknown): string {
  if (typeof definition !== "object" || definition === null || Array.isArray(definition)) {
    throw new InvalidToolDefinitionError("a tool definition must be a JSON object");
  }
  const name = Object.hasOwn(definition, "name")
    ? (definition as { name?: unknown }).name
    : undefined;
  if (typeof name !== "string" || name === "") {
    throw new InvalidToolDefinitionError("a tool definition needs a non-empty string `name`");
  }
  return name;
}

function ownField(definition: object, field: string): unknown {
  return Object.hasOwn(definition, field)
    ? (definition as Record<string, unknown>)[field]
    : undefined;
}

// Version 2 reads absent, null and an object with no non-null member as the same (null).
function isEmptyAtTop(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (typeof value !== "object" || Array.isArray(value)) return false;
  if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) {
    return false;
  }
  for (const key of Object.keys(value)) {
    const member = (value as Record<string, unknown>)[key];
    if (member !== null && member !== undefined) return false;
  }
  return true;
}

/**
 * The canonical text of every field a pin of `pinVersion` covers. Throws
 * {@link InvalidToolDefinitionError} for a nameless definition and
 * `CanonicalizationError` for a field JSON cannot carry.
 */
export function pinnedFieldTexts(
  definition: unknown,
  pinVersion: PinVersion,
  limits?: CanonicalLimits,
): PinnedFieldTexts {
  const name = readToolName(definition);
  const fields: Partial<Record<PinnedField, string>> = {};
  for (const field of PINNED_FIELDS[pinVersion]) {
    const value = ownField(definition as object, field);
    if (pinVersion === 2 && NORMALISED.has(field)) {
      fields[field] = isEmptyAtTop(value)
        ? "null"
        : serialize(value, PYTHON_JSON, { ...limits, dropNullMembers: true });
    } else {
      fields[field] = value === undefined ? "null" : serialize(value, PYTHON_JSON, limits);
    }
  }
  return { name, pinVersion, fields };
}

/** The payload text of {@link pinnedFieldTexts}: keys are already in sorted order. */
export function payloadText(texts: PinnedFieldTexts): string {
  const f = texts.fields;
  const name = serialize(texts.name, PYTHON_JSON);
  return texts.pinVersion === 1
    ? `{"description":${f.description},"inputSchema":${f.inputSchema},"name":${name}}`
    : `{"annotations":${f.annotations},"description":${f.description},"inputSchema":${f.inputSchema},"name":${name},"outputSchema":${f.outputSchema}}`;
}

/** Lowercase hex SHA-256 of the payload text. */
export function digestOfTexts(texts: PinnedFieldTexts): string {
  return createHash("sha256").update(payloadText(texts), "latin1").digest("hex");
}

/**
 * The pin digest of a tool definition: lowercase hex SHA-256 of the Python-compatible
 * canonical JSON of its payload. Version 1 covers name, description and inputSchema;
 * version 2 (the default) adds annotations and outputSchema, where null members are
 * dropped and absent, null and `{}` read the same. `title`, `_meta`, `icons`,
 * `execution` and other bookkeeping are never pinned.
 *
 * @example
 * ```ts
 * import { canonicalDigest } from "agent-airlock";
 * canonicalDigest({ name: "t" }, { pinVersion: 1 });
 * // 'afe2e54147e03057da5251ab3f60c3dae2e3e0b4fd86a48b3728b3b3ecb9eab9'
 * ```
 */
export function canonicalDigest(definition: unknown, options: CanonicalDigestOptions = {}): string {
  const pinVersion = options.pinVersion ?? 2;
  if (pinVersion !== 1 && pinVersion !== 2) {
    throw new InvalidToolDefinitionError(`unknown pin version ${String(pinVersion)} (use 1 or 2)`);
  }
  return digestOfTexts(pinnedFieldTexts(definition, pinVersion, options));
}
