import { createHash } from "node:crypto";
import { InvalidToolDefinitionError } from "../errors.js";
import type { PinnedField, PinVersion } from "../pins/types.js";
import { PYTHON_JSON } from "./python-json.js";
import { type CanonicalLimits, serialize, serializeCopy } from "./serialize.js";

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
export const NORMALISED: ReadonlySet<PinnedField> = new Set(["annotations", "outputSchema"]);

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

/** A definition's own field (never one inherited from its prototype). */
export function ownField(definition: object, field: string): unknown {
  return Object.hasOwn(definition, field)
    ? (definition as Record<string, unknown>)[field]
    : undefined;
}

/**
 * The canonical text of one pinned field. Version 2 reads annotations and outputSchema
 * with their null members dropped, and reads absent, null and a value whose text is `{}`
 * (an object with no non-null member) the same: `null`. Elsewhere absent is `null` too.
 */
function fieldText(
  field: PinnedField,
  value: unknown,
  pinVersion: PinVersion,
  limits: CanonicalLimits | undefined,
): string {
  if (value === undefined) return "null";
  if (pinVersion === 1 || !NORMALISED.has(field)) return serialize(value, PYTHON_JSON, limits);
  if (value === null) return "null";
  const text = serialize(value, PYTHON_JSON, { ...limits, dropNullMembers: true });
  return text === "{}" ? "null" : text;
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
    fields[field] = fieldText(field, ownField(definition as object, field), pinVersion, limits);
  }
  return { name, pinVersion, fields };
}

/**
 * The pinned fields of an approved definition as JSON data, deep-frozen: what a pin keeps
 * of the definition it approved. Objects are plain (read members with `Object.hasOwn`);
 * fields absent (or `undefined`) in the definition are absent here.
 */
export type ApprovedFields = Readonly<{ name: string } & Partial<Record<PinnedField, unknown>>>;

/**
 * {@link pinnedFieldTexts} and a private copy of the fields in the same pass: each
 * member of the definition is read once, so the copy is exactly what the texts (and the
 * digest) say, whatever getters or later changes do to the caller's object. The copy
 * holds the four version 2 fields even for a version 1 pin (a pin file stores them).
 */
export function readApprovedFields(
  definition: unknown,
  pinVersion: PinVersion,
  limits?: CanonicalLimits,
): { texts: PinnedFieldTexts; approved: ApprovedFields } {
  const name = readToolName(definition);
  const fields: Partial<Record<PinnedField, string>> = {};
  const approved: Record<string, unknown> = { name };
  for (const field of PINNED_FIELDS[2]) {
    const value = ownField(definition as object, field);
    const pinned = PINNED_FIELDS[pinVersion].includes(field);
    if (value === undefined) {
      if (pinned) fields[field] = "null";
      continue;
    }
    const normalised = pinVersion === 2 && NORMALISED.has(field);
    const { text, copy } = serializeCopy(value, PYTHON_JSON, {
      ...limits,
      dropNullMembers: normalised,
    });
    approved[field] = copy;
    if (pinned) fields[field] = normalised && text === "{}" ? "null" : text;
  }
  return {
    texts: { name, pinVersion, fields },
    approved: Object.freeze(approved) as ApprovedFields,
  };
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
