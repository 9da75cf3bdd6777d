import { ScanSuppressionsError } from "./errors.js";
import { readConfigText } from "./files.js";
import { MAX_INPUT_BYTES } from "./load.js";
import { RULE_CODES, RULES } from "./rules/catalog.js";
import type { RuleCode, Suppression } from "./types.js";

const KEYS = new Set(["tool", "code", "reason", "server", "expires"]);
const GLOB = /[*?[\]{}!]/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * Validate a suppressions document: `{ "version": 1, "suppressions": [ { "tool",
 * "code", "reason", "server"?, "expires"? } ] }`. Each entry names one tool exactly (no
 * globs: a whole-server skip is never allowed), one rule code, a non-empty reason, and
 * optionally a server and an expiry date (`YYYY-MM-DD`, the last day it applies).
 *
 * @example
 * ```ts
 * import { parseSuppressions } from "agent-airlock/scan";
 * const list = parseSuppressions({
 *   version: 1,
 *   suppressions: [{ tool: "read_graph", code: "SCAN004", reason: "takes no arguments", expires: "2099-01-01" }],
 * });
 * console.log(list.length); // 1
 * ```
 */
export function parseSuppressions(value: unknown, source = "suppressions"): Suppression[] {
  const fail = (what: string) => new ScanSuppressionsError(`${source}: ${what}`);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw fail('expected {"version": 1, "suppressions": [...]}');
  }
  const v = value as Record<string, unknown>;
  for (const key of Object.keys(v)) {
    if (key !== "version" && key !== "suppressions" && key !== "$schema")
      throw fail(`unknown key ${JSON.stringify(key)}`);
  }
  if (v.version !== 1) throw fail("version must be 1");
  if (!Array.isArray(v.suppressions)) throw fail("suppressions must be an array");
  return v.suppressions.map((entry, i): Suppression => {
    const at = `suppressions[${i}]`;
    if (typeof entry !== "object" || entry === null || Array.isArray(entry))
      throw fail(`${at} must be an object`);
    const e = entry as Record<string, unknown>;
    for (const key of Object.keys(e)) {
      if (!KEYS.has(key)) throw fail(`${at}: unknown key ${JSON.stringify(key)}`);
    }
    if (typeof e.tool !== "string" || e.tool === "") throw fail(`${at}.tool must name one tool`);
    if (GLOB.test(e.tool)) {
      throw fail(
        `${at}.tool ${JSON.stringify(e.tool)} is a pattern: name one tool exactly (no whole-server skips)`,
      );
    }
    if (typeof e.code !== "string" || !Object.hasOwn(RULES, e.code)) {
      throw fail(
        `${at}.code must be a rule code (${RULE_CODES[0]} to ${RULE_CODES[RULE_CODES.length - 1]})`,
      );
    }
    if (typeof e.reason !== "string" || e.reason.trim() === "")
      throw fail(`${at}.reason must say why (non-empty)`);
    const out: Suppression = { tool: e.tool, code: e.code as RuleCode, reason: e.reason };
    if (Object.hasOwn(e, "server")) {
      if (typeof e.server !== "string" || e.server === "")
        throw fail(`${at}.server must be a non-empty string`);
      out.server = e.server;
    }
    if (Object.hasOwn(e, "expires")) {
      if (typeof e.expires !== "string" || !isDate(e.expires)) {
        throw fail(`${at}.expires must be a date YYYY-MM-DD`);
      }
      out.expires = e.expires;
    }
    return out;
  });
}

function isDate(text: string): boolean {
  const m = DATE.exec(text);
  if (!m) return false;
  const d = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === text;
}

/** True when `s` has expired by `now` (it applies through its `expires` day, UTC). */
export function isExpired(s: Suppression, now: Date): boolean {
  return s.expires !== undefined && now.toISOString().slice(0, 10) > s.expires;
}

/** Finds the suppression that covers a finding: {@link indexSuppressions}. */
export type SuppressionMatcher = (
  tool: string,
  code: RuleCode,
  server: string | null,
) => Suppression | undefined;

/**
 * The first suppression of `list` (in list order) naming `tool` and `code`, for any server
 * or for `server`, found by two map lookups: a scan with thousands of findings and
 * thousands of suppressions costs one pass over each, not their product.
 */
export function indexSuppressions(list: readonly Suppression[]): SuppressionMatcher {
  const anyServer = new Map<string, number>();
  const perServer = new Map<string, Map<string, number>>();
  list.forEach((s, i) => {
    const key = `${s.code}\u0000${s.tool}`;
    if (s.server === undefined) {
      if (!anyServer.has(key)) anyServer.set(key, i);
      return;
    }
    const servers = perServer.get(key) ?? new Map<string, number>();
    if (!servers.has(s.server)) servers.set(s.server, i);
    perServer.set(key, servers);
  });
  return (tool, code, server) => {
    const key = `${code}\u0000${tool}`;
    const any = anyServer.get(key);
    const own = server === null ? undefined : perServer.get(key)?.get(server);
    const first = any === undefined ? own : own === undefined ? any : Math.min(any, own);
    return first === undefined ? undefined : list[first];
  };
}

/**
 * Read and validate a suppressions file. Throws `SCAN_SUPPRESSIONS_INVALID` naming the file.
 *
 * @example
 * ```ts
 * import { loadSuppressions } from "agent-airlock/scan";
 * const list = await loadSuppressions("examples/data/scan/suppressions.json");
 * console.log(list.every((s) => s.reason.length > 0)); // true
 * ```
 */
export async function loadSuppressions(path: string): Promise<Suppression[]> {
  const read = await readConfigText(path, MAX_INPUT_BYTES);
  if (!read.ok) {
    throw new ScanSuppressionsError(`${path}: suppressions file cannot be read (${read.reason})`);
  }
  const text = read.text;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ScanSuppressionsError(`${path}: not valid JSON (${(err as Error).message})`, {
      cause: err,
    });
  }
  return parseSuppressions(value, path);
}
