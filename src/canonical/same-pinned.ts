/**
 * Is a definition unchanged since it was approved? A structural comparison of its pinned
 * fields with the approved copy, under the pin digest's own reading, so that an unchanged
 * tool is admitted without being serialised or hashed. It agrees with digest equality
 * (a property test holds it to that): key order never matters; description and
 * inputSchema compare exactly; in version 2, annotations and outputSchema ignore null
 * members and read absent, null and `{}` the same; `-0` is `0`; an `undefined` member is
 * absent and an `undefined` element is null, as the serialiser writes them.
 *
 * "Not the same" is also the answer for whatever the comparison does not read the way the
 * serialiser does (an object with `toJSON()`, a class instance, an array from another
 * realm, NaN): the caller then canonicalises and hashes, which decides (or refuses).
 * Iterative, bounded by the canonical limits, and by the approved copy's own size (the
 * walk only goes where the copy goes), so a deep or cyclic definition costs no stack.
 */
import type { PinVersion } from "../pins/types.js";
import { type ApprovedFields, NORMALISED, ownField, PINNED_FIELDS } from "./digest.js";
import { type CanonicalLimits, DEFAULT_MAX_DEPTH, DEFAULT_MAX_VALUES } from "./serialize.js";

const objectProto = Object.prototype;
const arrayProto = Array.prototype;

/**
 * True when `definition`'s pinned fields are, under the pin's reading, those of
 * `approved` (then their digests are equal); false when they differ or cannot be compared
 * without serialising. `definition` is read, never changed; each member at most once.
 */
export function samePinnedFields(
  approved: ApprovedFields,
  definition: object,
  pinVersion: PinVersion,
  limits: CanonicalLimits = {},
): boolean {
  const bounds = {
    maxDepth: limits.maxDepth ?? DEFAULT_MAX_DEPTH,
    maxValues: limits.maxValues ?? DEFAULT_MAX_VALUES,
  };
  for (const field of PINNED_FIELDS[pinVersion]) {
    const mine = Object.hasOwn(approved, field) ? approved[field] : undefined;
    const theirs = ownField(definition, field);
    if (pinVersion === 2 && NORMALISED.has(field)) {
      if (isEmptyAtTop(mine)) {
        if (!isEmptyAtTop(theirs)) return false;
      } else if (!sameJson(mine, theirs, true, bounds)) {
        return false;
      }
    } else if (!sameJson(mine ?? null, theirs === undefined ? null : theirs, false, bounds)) {
      return false;
    }
  }
  return true;
}

// Absent, null, or a plain object whose members are all null (or undefined): the version 2
// reading of annotations and outputSchema makes each of these `null`.
function isEmptyAtTop(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (typeof value !== "object") return false;
  const proto = Object.getPrototypeOf(value);
  if (proto !== objectProto && proto !== null) return false;
  for (const key of Object.keys(value)) {
    const member = (value as Record<string, unknown>)[key];
    if (member !== null && member !== undefined) return false;
  }
  return true;
}

/**
 * `mine` (JSON data from the approved copy) against `theirs` (anything). Pairs are kept
 * on one flat stack as (mine, theirs, depth) triples.
 */
function sameJson(
  mine: unknown,
  theirs: unknown,
  dropNull: boolean,
  bounds: { maxDepth: number; maxValues: number },
): boolean {
  const stack: unknown[] = [mine, theirs, 0];
  let values = 0;
  while (stack.length > 0) {
    const depth = stack.pop() as number;
    const b = stack.pop();
    const a = stack.pop();
    if (++values > bounds.maxValues) return false;
    if (typeof a !== "object" || a === null) {
      if (a !== b) return false;
      continue;
    }
    if (typeof b !== "object" || b === null || depth >= bounds.maxDepth) return false;
    const proto = Object.getPrototypeOf(b);
    if (Array.isArray(a)) {
      if (proto !== arrayProto || !Array.isArray(b) || b.length !== a.length) return false;
      for (let i = a.length - 1; i >= 0; i--) {
        const element = b[i];
        stack.push(a[i], element === undefined ? null : element, depth + 1);
      }
      continue;
    }
    if (proto !== objectProto && proto !== null) return false;
    if (
      !pushMembers(
        a as Record<string, unknown>,
        b as Record<string, unknown>,
        dropNull,
        stack,
        depth + 1,
      )
    ) {
      return false;
    }
  }
  return true;
}

// The member pairs of two objects, or false when their member names differ. A member
// whose value is undefined (or null, when nulls are dropped) is not there.
function pushMembers(
  mine: Record<string, unknown>,
  theirs: Record<string, unknown>,
  dropNull: boolean,
  stack: unknown[],
  depth: number,
): boolean {
  let expected = 0;
  for (const key of Object.keys(mine)) {
    if (!dropNull || mine[key] !== null) expected++;
  }
  let found = 0;
  for (const key of Object.keys(theirs)) {
    const value = theirs[key];
    if (value === undefined || (dropNull && value === null)) continue;
    // Own members only: an inherited `constructor` or `__proto__` is no member of the copy.
    if (!Object.hasOwn(mine, key)) return false;
    const own = mine[key];
    if (dropNull && own === null) return false;
    found++;
    stack.push(own, value, depth);
  }
  return found === expected;
}
