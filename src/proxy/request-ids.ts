/**
 * Which request in flight a JSON-RPC id names, for `airlock proxy`.
 *
 * The proxy hands a server's response to the client only when its id is exactly (same
 * JSON type, same value) the id of a request that was sent to the server and is still
 * waiting. Clients are looser than that: the MCP TypeScript SDK looks answers up by
 * `Number(response.id)`, so `"3"`, `"03"`, `" 3"`, `"3.0"`, `"3e0"` and `"0x3"` all answer
 * its request `3`; a Python client may read `int("3_0")` or `int("٣")`; hand-written code
 * may `parseInt`. So the proxy also keeps apart the requests it lets into flight: a new
 * request whose id some client could take for the id of one already in flight is
 * refused. Then an exact answer to one request can never be read as the answer to
 * another, whichever way the client compares ids.
 *
 * An id's readings, as map keys: its exact form (`s:` + the string, or `n:` + the number),
 * what it *is* as a number for some client (`Number(s)`; Python's `int(s)`, which takes
 * any Unicode decimal digit, underscores between digits and surrounding whitespace), and
 * what a prefix parser makes of it (`parseInt`, `parseFloat`; the integer part of a
 * fractional number). Two ids conflict when a reading of one is the exact or numeric
 * reading of the other; two prefix readings alone do not conflict, so string ids such as
 * UUIDs that merely start with the same digit stay apart.
 */
import type { JsonRpcId } from "./json-rpc.js";

/** The readings of one id that {@link InFlightRequests} compares. */
interface IdReadings {
  /** The exact form (first) and every numeric value some client reads the id as. */
  values: string[];
  /** Numbers a prefix parser extracts from it, when they are not already values. */
  prefixes: string[];
}

/** A Python `int()` literal: whitespace, a sign, decimal digits with single underscores. */
const PYTHON_INT = /^[\s\x1c-\x1f]*([+-]?)(\p{Nd}+(?:_\p{Nd}+)*)[\s\x1c-\x1f]*$/u;
const DECIMAL_DIGIT = /\p{Nd}/u;

/**
 * The exact map key of an id: `1` and `"1"` are different ids.
 *
 * @example
 * ```ts
 * import { exactIdKey } from "./request-ids.js";
 * console.log(exactIdKey(1), exactIdKey("1")); // "n:1" "s:1"
 * ```
 */
export function exactIdKey(id: JsonRpcId): string {
  return typeof id === "number" ? numberKey(id) : `s:${id}`;
}

function numberKey(value: number): string {
  // String(-0) is "0": a client cannot tell -0 from 0 either.
  return `n:${String(value)}`;
}

const NO_READINGS: string[] = [];

function readId(id: JsonRpcId): IdReadings {
  if (typeof id === "number") {
    // The ids most clients send: one reading, and no allocation past it.
    const prefixes = Number.isInteger(id) ? NO_READINGS : [numberKey(Math.trunc(id))];
    return { values: [numberKey(id)], prefixes };
  }
  const values = new Set<string>([exactIdKey(id)]);
  const prefixes = new Set<string>();
  addNumber(values, Number(id));
  addNumber(values, pythonInt(id));
  addNumber(prefixes, Number.parseInt(id, 10));
  addNumber(prefixes, Number.parseFloat(id));
  for (const value of values) prefixes.delete(value);
  return { values: [...values], prefixes: [...prefixes] };
}

function addNumber(into: Set<string>, value: number): void {
  if (!Number.isNaN(value)) into.add(numberKey(value));
}

/** What Python's `int(text)` returns for a string, or NaN when it would raise. */
function pythonInt(text: string): number {
  const match = PYTHON_INT.exec(text);
  if (match === null) return Number.NaN;
  let digits = "";
  for (const char of match[2]!) {
    if (char !== "_") digits += String(digitValue(char.codePointAt(0)!));
  }
  return Number(`${match[1]}${digits}`);
}

/**
 * Unicode encodes every decimal digit in runs of ten ascending from zero, and runs that
 * touch each other are whole runs too: a digit's value is its distance from the start of
 * its block, modulo ten.
 */
function digitValue(codePoint: number): number {
  if (codePoint <= 0x39) return codePoint - 0x30;
  let start = codePoint;
  while (codePoint - start < 200 && DECIMAL_DIGIT.test(String.fromCodePoint(start - 1))) start--;
  return (codePoint - start) % 10;
}

interface Claim<T> {
  entry: T;
  readings: IdReadings;
}

/**
 * The requests in flight, by id: at most one per id and per reading of an id (see the
 * module comment), and looked up only by exact id.
 *
 * @example
 * ```ts
 * import { InFlightRequests } from "./request-ids.js";
 * const inFlight = new InFlightRequests<string>();
 * console.log(inFlight.claim(3, "tools/list")); // []
 * console.log(inFlight.claim("3", "tools/call")); // ["tools/list"]: refused, "3" reads as 3
 * console.log(inFlight.get("3"), inFlight.get(3)); // undefined "tools/list"
 * ```
 */
export class InFlightRequests<T> {
  private readonly byId = new Map<string, Claim<T>>();
  /** Reading -> how many requests in flight have it, for exact and numeric readings. */
  private readonly values = new Map<string, number>();
  /** The same for prefix readings. */
  private readonly prefixes = new Map<string, number>();

  /**
   * Put a request in flight. Returns the requests in flight its id conflicts with; when
   * there are any, nothing is claimed.
   */
  claim(id: JsonRpcId, entry: T): T[] {
    const readings = readId(id);
    // The counts say whether anything conflicts; only then are the claims searched.
    if (this.mayConflict(readings)) {
      const conflicts: T[] = [];
      for (const claim of this.byId.values()) {
        if (conflictsWith(readings, claim.readings)) conflicts.push(claim.entry);
      }
      return conflicts;
    }
    this.byId.set(readings.values[0]!, { entry, readings });
    count(this.values, readings.values, 1);
    count(this.prefixes, readings.prefixes, 1);
    return [];
  }

  /** The request in flight whose id is exactly `id`. */
  get(id: unknown): T | undefined {
    if (typeof id !== "string" && typeof id !== "number") return undefined;
    return this.byId.get(exactIdKey(id))?.entry;
  }

  /** Take the request with exactly this id out of flight. */
  release(id: JsonRpcId): void {
    const key = exactIdKey(id);
    const claim = this.byId.get(key);
    if (claim === undefined) return;
    this.byId.delete(key);
    count(this.values, claim.readings.values, -1);
    count(this.prefixes, claim.readings.prefixes, -1);
  }

  /** Every request in flight, in the order they were claimed. */
  entries(): T[] {
    return [...this.byId.values()].map((claim) => claim.entry);
  }

  clear(): void {
    this.byId.clear();
    this.values.clear();
    this.prefixes.clear();
  }

  private mayConflict(readings: IdReadings): boolean {
    // Loops, not .some(): this runs for every request the client sends.
    for (const r of readings.values) if (this.values.has(r) || this.prefixes.has(r)) return true;
    for (const r of readings.prefixes) if (this.values.has(r)) return true;
    return false;
  }
}

function conflictsWith(a: IdReadings, b: IdReadings): boolean {
  return (
    a.values.some((r) => b.values.includes(r) || b.prefixes.includes(r)) ||
    a.prefixes.some((r) => b.values.includes(r))
  );
}

function count(into: Map<string, number>, keys: string[], delta: number): void {
  for (const key of keys) {
    const next = (into.get(key) ?? 0) + delta;
    if (next === 0) into.delete(key);
    else into.set(key, next);
  }
}
