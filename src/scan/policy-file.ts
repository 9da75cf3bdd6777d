import picomatch from "picomatch";
import { ScanPolicyError } from "./errors.js";
import { readConfigText } from "./files.js";
import { readFlowLabelEntries } from "./flows/declared.js";
import type { FlowLabelEntry } from "./flows/types.js";
import { MAX_INPUT_BYTES } from "./load.js";
import { freezePolicy, resolvePolicy, type SecurityPolicy } from "./policy.js";
import { RULES } from "./rules/catalog.js";
import type { RuleCode, RuleGrades } from "./types.js";

const TOP_KEYS = new Set([
  "$schema",
  "version",
  "name",
  "description",
  "extends",
  "tools",
  "capabilities",
  "grades",
  "flows",
]);
const TOOL_KEYS = new Set(["allow", "deny"]);
const CAP_KEYS = new Set(["granted", "denied", "sandboxOnly", "annotationsMayNarrow"]);

/**
 * Validate a user policy (the parsed JSON of a policy file) and build the policy. With
 * `extends`, the preset's lists are kept and the file's lists are added to them. Unknown
 * keys, empty or non-string globs and a wrong `version` are errors (`SCAN_POLICY_INVALID`),
 * so a typo never silently widens or narrows a policy.
 *
 * ```json
 * { "version": 1, "name": "team", "extends": "deny-by-default",
 *   "tools": { "allow": ["github/get_*", "read_file"] },
 *   "capabilities": { "granted": ["net.outbound"] },
 *   "grades": { "SCAN004": "fail" },
 *   "flows": { "labels": [{ "tools": "db/query", "labels": ["private-data", "untrusted-content"] }] } }
 * ```
 *
 * `grades` sets a rule's grade (`warn` or `fail`) over the preset's; `flows.labels`
 * entries come before the preset's, and the first that matches a tool sets its labels.
 *
 * @example
 * ```ts
 * import { parsePolicy } from "agent-airlock/scan";
 * const policy = parsePolicy({ version: 1, name: "team", extends: "read-only", tools: { deny: ["*_admin"] } });
 * console.log(policy.deny); // ["*_admin"]
 * ```
 */
export function parsePolicy(value: unknown, source = "policy"): SecurityPolicy {
  const fail = (what: string) => new ScanPolicyError("SCAN_POLICY_INVALID", `${source}: ${what}`);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw fail("a policy must be a JSON object");
  }
  const v = value as Record<string, unknown>;
  for (const key of Object.keys(v)) {
    if (!TOP_KEYS.has(key))
      throw fail(`unknown key ${JSON.stringify(key)} (allowed: ${[...TOP_KEYS].join(", ")})`);
  }
  if (Object.hasOwn(v, "version") && v.version !== 1) throw fail("version must be 1");
  let base: SecurityPolicy | undefined;
  if (Object.hasOwn(v, "extends")) {
    if (typeof v.extends !== "string") throw fail("extends must be a policy name");
    try {
      base = resolvePolicy(v.extends);
    } catch (err) {
      throw fail((err as Error).message);
    }
  }
  const name = Object.hasOwn(v, "name") ? v.name : (base?.name ?? "custom");
  if (typeof name !== "string" || name.trim() === "") throw fail("name must be a non-empty string");
  const description = Object.hasOwn(v, "description")
    ? v.description
    : `custom policy from ${source}`;
  if (typeof description !== "string") throw fail("description must be a string");
  const tools = section(v, "tools", TOOL_KEYS, fail);
  const caps = section(v, "capabilities", CAP_KEYS, fail);
  const list = (sec: Record<string, unknown>, key: string, where: string): string[] => {
    if (!Object.hasOwn(sec, key)) return [];
    const arr = sec[key];
    if (!Array.isArray(arr)) throw fail(`${where}.${key} must be an array of globs`);
    return arr.map((g, i) => {
      if (typeof g !== "string" || g.trim() === "") {
        throw fail(`${where}.${key}[${i}] must be a non-empty string glob`);
      }
      try {
        picomatch.makeRe(g);
      } catch {
        throw fail(`${where}.${key}[${i}] is not a valid glob: ${JSON.stringify(g)}`);
      }
      return g;
    });
  };
  let narrow = base?.capabilities.annotationsMayNarrow ?? true;
  if (Object.hasOwn(caps, "annotationsMayNarrow")) {
    if (typeof caps.annotationsMayNarrow !== "boolean") {
      throw fail("capabilities.annotationsMayNarrow must be true or false");
    }
    narrow = caps.annotationsMayNarrow;
  }
  const grades = readGrades(v, base?.grades, fail);
  const labels: FlowLabelEntry[] = [
    ...(Object.hasOwn(v, "flows") ? readFlowLabelEntries(v.flows, `${source}: flows`) : []),
    ...(base?.flows?.labels ?? []),
  ];
  return freezePolicy({
    name,
    description,
    ...(grades === undefined ? {} : { grades }),
    ...(labels.length === 0 ? {} : { flows: { labels } }),
    allow: [...(base?.allow ?? []), ...list(tools, "allow", "tools")],
    deny: [...(base?.deny ?? []), ...list(tools, "deny", "tools")],
    capabilities: {
      granted: [...(base?.capabilities.granted ?? []), ...list(caps, "granted", "capabilities")],
      denied: [...(base?.capabilities.denied ?? []), ...list(caps, "denied", "capabilities")],
      sandboxOnly: [
        ...(base?.capabilities.sandboxOnly ?? []),
        ...list(caps, "sandboxOnly", "capabilities"),
      ],
      annotationsMayNarrow: narrow,
    },
  });
}

/** The file's `grades` over the base's; undefined when neither has any. */
function readGrades(
  v: Record<string, unknown>,
  base: RuleGrades | undefined,
  fail: (what: string) => ScanPolicyError,
): RuleGrades | undefined {
  if (!Object.hasOwn(v, "grades")) return base;
  const g = v.grades;
  if (typeof g !== "object" || g === null || Array.isArray(g))
    throw fail('grades must be an object such as {"SCAN004": "fail"}');
  const out: Partial<Record<RuleCode, "warn" | "fail">> = { ...base };
  for (const [code, grade] of Object.entries(g)) {
    if (!Object.hasOwn(RULES, code))
      throw fail(`grades: ${JSON.stringify(code)} is not a rule code`);
    if (grade !== "warn" && grade !== "fail")
      throw fail(`grades.${code} must be "warn" or "fail" (got ${JSON.stringify(grade)})`);
    out[code as RuleCode] = grade;
  }
  return out;
}

function section(
  v: Record<string, unknown>,
  key: string,
  allowed: Set<string>,
  fail: (what: string) => ScanPolicyError,
): Record<string, unknown> {
  if (!Object.hasOwn(v, key)) return {};
  const sec = v[key];
  if (typeof sec !== "object" || sec === null || Array.isArray(sec)) {
    throw fail(`${key} must be an object`);
  }
  for (const k of Object.keys(sec)) {
    if (!allowed.has(k)) {
      throw fail(`unknown key ${key}.${k} (allowed: ${[...allowed].join(", ")})`);
    }
  }
  return sec as Record<string, unknown>;
}

/**
 * Read and validate a policy file (JSON). Throws `SCAN_POLICY_INVALID` with the file
 * name on unreadable files, bad JSON and invalid policies.
 *
 * @example
 * ```ts
 * import { loadPolicyFile } from "agent-airlock/scan";
 * const policy = await loadPolicyFile("examples/data/scan/policy.json");
 * console.log(policy.name);
 * ```
 */
export async function loadPolicyFile(path: string): Promise<SecurityPolicy> {
  const read = await readConfigText(path, MAX_INPUT_BYTES);
  if (!read.ok) {
    throw new ScanPolicyError(
      "SCAN_POLICY_INVALID",
      `${path}: policy file cannot be read (${read.reason})`,
    );
  }
  const text = read.text;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ScanPolicyError(
      "SCAN_POLICY_INVALID",
      `${path}: policy file is not valid JSON (${(err as Error).message})`,
      { cause: err },
    );
  }
  return parsePolicy(value, path);
}
