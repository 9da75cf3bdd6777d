/**
 * Capabilities: what a delegation chain grants and what the tool guard asks for.
 *
 * A capability is a list of `:`-separated segments, e.g. `weather:forecast`. Segments are
 * non-empty and made of printable ASCII other than `:` and `*` (no spaces, no control
 * characters, no Unicode look-alikes). Comparison is exact and case-sensitive:
 * `Weather:forecast` is not `weather:forecast`.
 *
 * - A **requested** capability is exact: no `*` anywhere.
 * - A **grant** is either exact, or a prefix followed by `:*` (`weather:*` grants every
 *   capability strictly below `weather`, never `weather` itself), or `*` alone (everything).
 *   A `*` anywhere else (`weather:fore*`, `*:forecast`) is refused.
 *
 * Malformed input throws {@link CapabilityError} (code `GUARD_MISCONFIGURED`): a bad
 * capability is a configuration fault, and the guard refuses rather than guesses.
 *
 * @module
 */
import { AirlockError } from "../errors.js";

/**
 * Longest capability or grant accepted, in characters.
 *
 * @example
 * ```ts
 * import { MAX_CAPABILITY_LENGTH, parseCapability } from "agent-airlock/guard";
 * parseCapability("a".repeat(MAX_CAPABILITY_LENGTH)); // ok; one more character throws
 * ```
 */
export const MAX_CAPABILITY_LENGTH = 256;
/**
 * Most segments a capability or grant may have.
 *
 * @example
 * ```ts
 * import { MAX_CAPABILITY_SEGMENTS, parseCapability } from "agent-airlock/guard";
 * parseCapability(Array(MAX_CAPABILITY_SEGMENTS).fill("a").join(":")); // ok
 * ```
 */
export const MAX_CAPABILITY_SEGMENTS = 16;

/** Printable ASCII except space, `*` and `:`. */
const SEGMENT = /^[!-)+-9;-~]+$/;

/**
 * A capability or grant is malformed. Code `GUARD_MISCONFIGURED` (the same code the tool
 * guard reports for a misconfigured capability); `capability` is the offending input.
 *
 * @example
 * ```ts
 * import { CapabilityError, assertRequestedCapability } from "agent-airlock/guard";
 * try { assertRequestedCapability("weather:*"); }
 * catch (err) { if (err instanceof CapabilityError) console.log(err.code); } // "GUARD_MISCONFIGURED"
 * ```
 */
export class CapabilityError extends AirlockError {
  declare readonly code: "GUARD_MISCONFIGURED";
  /** The input that was refused (as given, possibly not a string). */
  readonly capability: unknown;
  constructor(capability: unknown, message: string) {
    super("GUARD_MISCONFIGURED", message);
    this.capability = capability;
  }
}

function describe(value: unknown): string {
  if (typeof value !== "string") return typeof value;
  const shown = value.length > 64 ? `${value.slice(0, 64)}...` : value;
  return JSON.stringify(shown);
}

function splitChecked(value: unknown, kind: "capability" | "grant"): string[] {
  if (typeof value !== "string") {
    throw new CapabilityError(value, `${kind} must be a string, got ${describe(value)}`);
  }
  if (value.length === 0) throw new CapabilityError(value, `${kind} must not be empty`);
  if (value.length > MAX_CAPABILITY_LENGTH) {
    throw new CapabilityError(
      value,
      `${kind} ${describe(value)} is longer than ${MAX_CAPABILITY_LENGTH} characters`,
    );
  }
  const segments = value.split(":");
  if (segments.length > MAX_CAPABILITY_SEGMENTS) {
    throw new CapabilityError(
      value,
      `${kind} ${describe(value)} has more than ${MAX_CAPABILITY_SEGMENTS} segments`,
    );
  }
  return segments;
}

function assertSegment(value: string, segment: string, kind: "capability" | "grant"): void {
  if (segment.length === 0) {
    throw new CapabilityError(
      value,
      `${kind} ${describe(value)} has an empty segment; use "a:b", not "a::b", ":a" or "a:"`,
    );
  }
  if (segment.includes("*")) {
    throw new CapabilityError(
      value,
      kind === "capability"
        ? `requested capability ${describe(value)} contains "*"; a request names one exact capability`
        : `grant ${describe(value)} has a wildcard inside a segment; only a final ":*" or "*" alone is allowed`,
    );
  }
  if (!SEGMENT.test(segment)) {
    throw new CapabilityError(
      value,
      `${kind} ${describe(value)} contains a space, control or non-ASCII character; segments are printable ASCII`,
    );
  }
}

/**
 * Validate a requested capability and return its segments.
 *
 * @throws {CapabilityError} `GUARD_MISCONFIGURED` when it is not exact and well formed.
 * @example
 * ```ts
 * import { parseCapability } from "agent-airlock/guard";
 * parseCapability("weather:alerts:list"); // ["weather", "alerts", "list"]
 * ```
 */
export function parseCapability(requested: unknown): string[] {
  const segments = splitChecked(requested, "capability");
  for (const segment of segments) assertSegment(requested as string, segment, "capability");
  return segments;
}

/**
 * Assert that `requested` is an exact, well-formed capability.
 *
 * @throws {CapabilityError} `GUARD_MISCONFIGURED` otherwise.
 * @example
 * ```ts
 * import { assertRequestedCapability } from "agent-airlock/guard";
 * assertRequestedCapability("weather:forecast"); // ok
 * ```
 */
export function assertRequestedCapability(requested: unknown): asserts requested is string {
  parseCapability(requested);
}

/** A parsed grant: the exact segments, and whether it ends in a wildcard. */
interface ParsedGrant {
  prefix: string[];
  wildcard: boolean;
}

function parseGrant(grant: unknown): ParsedGrant {
  if (grant === "*") return { prefix: [], wildcard: true };
  const segments = splitChecked(grant, "grant");
  const wildcard = segments[segments.length - 1] === "*";
  const prefix = wildcard ? segments.slice(0, -1) : segments;
  for (const segment of prefix) assertSegment(grant as string, segment, "grant");
  return { prefix, wildcard };
}

/**
 * Assert that `grant` is a well-formed grant: exact, `prefix:*`, or `*`.
 *
 * @throws {CapabilityError} `GUARD_MISCONFIGURED` otherwise.
 * @example
 * ```ts
 * import { assertGrant } from "agent-airlock/guard";
 * assertGrant("weather:*"); // ok
 * ```
 */
export function assertGrant(grant: unknown): asserts grant is string {
  parseGrant(grant);
}

function startsWith(whole: readonly string[], prefix: readonly string[]): boolean {
  if (prefix.length > whole.length) return false;
  for (let i = 0; i < prefix.length; i++) if (whole[i] !== prefix[i]) return false;
  return true;
}

/**
 * Does `grant` grant the exact capability `requested`? `weather:*` grants
 * `weather:forecast` and `weather:alerts:list`, never `weather` or `weatherx:forecast`.
 *
 * @throws {CapabilityError} `GUARD_MISCONFIGURED` when either is malformed.
 * @example
 * ```ts
 * import { grants } from "agent-airlock/guard";
 * grants("weather:*", "weather:forecast"); // true
 * grants("weather:*", "weather"); // false
 * ```
 */
export function grants(grant: string, requested: string): boolean {
  const parsed = parseGrant(grant);
  const wanted = parseCapability(requested);
  if (!parsed.wildcard)
    return parsed.prefix.length === wanted.length && startsWith(wanted, parsed.prefix);
  return wanted.length > parsed.prefix.length && startsWith(wanted, parsed.prefix);
}

/**
 * Attenuation: does `parent` cover everything `child` grants? Both are grants. A link of
 * a delegation chain may only hold grants its parent covers. `weather:*` covers
 * `weather:alerts:*` and `weather:forecast`; `weather:alerts:*` does not cover
 * `weather:*`; only `*` covers `*`.
 *
 * @throws {CapabilityError} `GUARD_MISCONFIGURED` when either is malformed.
 * @example
 * ```ts
 * import { covers } from "agent-airlock/guard";
 * covers("weather:*", "weather:alerts:*"); // true
 * covers("weather:alerts:*", "weather:*"); // false
 * ```
 */
export function covers(parent: string, child: string): boolean {
  const p = parseGrant(parent);
  const c = parseGrant(child);
  if (!p.wildcard) {
    return !c.wildcard && c.prefix.length === p.prefix.length && startsWith(c.prefix, p.prefix);
  }
  // `p.prefix:*` grants everything strictly below p.prefix. A child wildcard `q:*` grants
  // everything strictly below q, so it is covered when q is p.prefix or below it.
  if (c.wildcard) return startsWith(c.prefix, p.prefix);
  return c.prefix.length > p.prefix.length && startsWith(c.prefix, p.prefix);
}

/**
 * The grant in `held` that grants `requested`, or `undefined`. When several match, the
 * most specific wins (the exact grant, else the longest wildcard prefix), so an audit log
 * names the narrowest grant that allowed the call.
 *
 * @throws {CapabilityError} `GUARD_MISCONFIGURED` when `requested` or a grant is malformed.
 * @example
 * ```ts
 * import { grantedBy } from "agent-airlock/guard";
 * grantedBy(["*", "weather:*", "maps:route"], "weather:forecast"); // "weather:*"
 * ```
 */
export function grantedBy(held: readonly string[], requested: string): string | undefined {
  parseCapability(requested);
  let best: string | undefined;
  let bestRank = -1;
  for (const grant of held) {
    if (!grants(grant, requested)) continue;
    const parsed = parseGrant(grant);
    const rank = parsed.wildcard ? parsed.prefix.length : Number.MAX_SAFE_INTEGER;
    if (rank > bestRank) {
      best = grant;
      bestRank = rank;
    }
  }
  return best;
}
