import { ScanPolicyError } from "./errors.js";
import type { FlowPolicy } from "./flows/types.js";
import type { RuleGrades } from "./types.js";

/**
 * Which capabilities a policy grants. A capability is checked against `denied` first
 * (SCAN006, fail), then `sandboxOnly` (SCAN007, warn), then `granted` (pass); one that
 * matches none of them is not granted (SCAN006, fail). Entries are picomatch globs over
 * capability names such as `fs.read` (`*.read`, `exec.*`).
 */
export interface CapabilityPolicy {
  granted: readonly string[];
  denied: readonly string[];
  sandboxOnly: readonly string[];
  /**
   * When true (the default), a tool's MCP annotations may narrow what its name suggests
   * (`readOnlyHint: true` on `update_x` reads as a read; SCAN011 still flags the
   * contradiction). When false, name and annotation evidence are both kept: a
   * camouflaged tool cannot talk its way down.
   */
  annotationsMayNarrow: boolean;
}

/**
 * A least-privilege policy as data: which tool names may be loaded (picomatch globs; a
 * glob with a `/` is matched against `server/tool`), and which capabilities they may use.
 * `deny` wins over `allow`; a name no `allow` glob matches is not allow-listed.
 */
export interface SecurityPolicy {
  name: string;
  description: string;
  allow: readonly string[];
  deny: readonly string[];
  capabilities: CapabilityPolicy;
  /**
   * Grades that replace the catalog's (`RULES`) for this policy (default: none, the
   * catalog grades). A finding its rule grades below the catalog grade keeps the milder
   * grade. `permissive` sets SCAN003, SCAN014 and SCAN015 to `warn`.
   */
  grades?: RuleGrades;
  /** Flow label corrections (default: none; see docs/toxic-flows.md). */
  flows?: FlowPolicy;
}

/** A deep-frozen copy of a policy: presets and loaded policy files cannot be changed later. */
export const freezePolicy = (p: SecurityPolicy): SecurityPolicy =>
  Object.freeze({
    ...p,
    allow: Object.freeze([...p.allow]),
    deny: Object.freeze([...p.deny]),
    capabilities: Object.freeze({
      ...p.capabilities,
      granted: Object.freeze([...p.capabilities.granted]),
      denied: Object.freeze([...p.capabilities.denied]),
      sandboxOnly: Object.freeze([...p.capabilities.sandboxOnly]),
    }),
    ...(p.grades === undefined ? {} : { grades: Object.freeze({ ...p.grades }) }),
    ...(p.flows === undefined
      ? {}
      : {
          flows: Object.freeze({
            labels: Object.freeze(
              p.flows.labels.map((e) =>
                Object.freeze({ tools: e.tools, labels: Object.freeze([...e.labels]) }),
              ),
            ),
          }),
        }),
  });

/**
 * `--policy permissive`: every tool and every capability is allowed. Only the contract
 * rules (poisoning, open surfaces, untyped arguments, refs, annotations, names) apply, and
 * an open mutating surface (SCAN003) and a toxic flow (SCAN014, SCAN015) warn: real
 * servers do not fail the default policy (docs/scan-tools.md).
 *
 * @example
 * ```ts
 * import { PERMISSIVE_POLICY, scanTools } from "agent-airlock/scan";
 * const report = scanTools([{ name: "echo", inputSchema: { type: "object", additionalProperties: false } }], PERMISSIVE_POLICY);
 * console.log(report.exitCode); // 0
 * ```
 */
export const PERMISSIVE_POLICY: SecurityPolicy = freezePolicy({
  name: "permissive",
  description: "Every tool and capability allowed; contract rules only.",
  allow: ["**"],
  deny: [],
  capabilities: { granted: ["**"], denied: [], sandboxOnly: [], annotationsMayNarrow: true },
  grades: { SCAN003: "warn", SCAN014: "warn", SCAN015: "warn" },
});

/**
 * `--policy read-only`: reads pass; outbound network, secrets and tools whose capability
 * cannot be inferred are sandbox-only; writes, deletes, execution, sending and raw
 * sockets are denied.
 *
 * @example
 * ```ts
 * import { READ_ONLY_POLICY, scanTools } from "agent-airlock/scan";
 * const report = scanTools([{ name: "delete_file", inputSchema: { type: "object", additionalProperties: false } }], READ_ONLY_POLICY);
 * console.log(report.results[0]?.findings.map((f) => f.code)); // ["SCAN006"]
 * ```
 */
export const READ_ONLY_POLICY: SecurityPolicy = freezePolicy({
  name: "read-only",
  description: "Reads only: no writes, deletes, execution or sending.",
  allow: ["**"],
  deny: [],
  capabilities: {
    granted: ["*.read"],
    denied: ["*.write", "*.delete", "exec.*", "message.send", "net.socket"],
    sandboxOnly: ["secrets.read", "net.outbound", "unknown"],
    annotationsMayNarrow: true,
  },
});

/**
 * `--policy strict`: reads pass; writes and outbound network only in a sandbox; deletes,
 * execution, secrets, sending, raw sockets and unknown capabilities are denied.
 *
 * @example
 * ```ts
 * import { STRICT_POLICY } from "agent-airlock/scan";
 * console.log(STRICT_POLICY.capabilities.denied.includes("exec.*")); // true
 * ```
 */
export const STRICT_POLICY: SecurityPolicy = freezePolicy({
  name: "strict",
  description: "Reads pass; writes and network sandboxed; deletes, execution, secrets denied.",
  allow: ["**"],
  deny: [],
  capabilities: {
    granted: ["fs.read", "db.read", "state.read", "message.read"],
    denied: ["*.delete", "exec.*", "secrets.*", "message.send", "net.socket", "unknown"],
    sandboxOnly: ["fs.write", "db.write", "state.write", "net.outbound"],
    annotationsMayNarrow: true,
  },
});

/**
 * `--policy deny-by-default`: no tool is allow-listed (extend it with a policy file that
 * names the reviewed tools), only plain reads are granted, annotations cannot narrow what
 * a name shows, and every other capability is refused.
 *
 * @example
 * ```ts
 * import { CAMOUFLAGE_RESISTANT_POLICY, scanTools } from "agent-airlock/scan";
 * const report = scanTools([{ name: "read_file" }], CAMOUFLAGE_RESISTANT_POLICY);
 * console.log(report.results[0]?.findings[0]?.code); // "SCAN001"
 * ```
 */
export const CAMOUFLAGE_RESISTANT_POLICY: SecurityPolicy = freezePolicy({
  name: "deny-by-default",
  description: "Nothing allowed unless listed; plain reads only; annotations cannot narrow.",
  allow: [],
  deny: [],
  capabilities: {
    granted: ["fs.read", "db.read", "state.read", "message.read"],
    denied: [],
    sandboxOnly: [],
    annotationsMayNarrow: false,
  },
});

/**
 * The `--policy` names, each mapped to its shipped constant.
 *
 * @example
 * ```ts
 * import { POLICIES } from "agent-airlock/scan";
 * console.log(POLICIES["deny-by-default"].name); // "deny-by-default"
 * ```
 */
export const POLICIES: Readonly<Record<PolicyName, SecurityPolicy>> = Object.freeze({
  permissive: PERMISSIVE_POLICY,
  "read-only": READ_ONLY_POLICY,
  strict: STRICT_POLICY,
  "deny-by-default": CAMOUFLAGE_RESISTANT_POLICY,
});

/** Names accepted by `--policy` and {@link resolvePolicy}. */
export type PolicyName = "permissive" | "read-only" | "strict" | "deny-by-default";

/**
 * The `--policy` names, in documentation order.
 *
 * @example
 * ```ts
 * import { POLICY_NAMES } from "agent-airlock/scan";
 * console.log(POLICY_NAMES.join(" | ")); // "permissive | read-only | strict | deny-by-default"
 * ```
 */
export const POLICY_NAMES: readonly PolicyName[] = Object.freeze([
  "permissive",
  "read-only",
  "strict",
  "deny-by-default",
]);

/**
 * The shipped policy for a `--policy` name. Throws `SCAN_POLICY_UNKNOWN` for any other
 * name (the message lists the valid ones).
 *
 * @example
 * ```ts
 * import { READ_ONLY_POLICY, resolvePolicy } from "agent-airlock/scan";
 * console.log(resolvePolicy("read-only") === READ_ONLY_POLICY); // true
 * ```
 */
export function resolvePolicy(name: string): SecurityPolicy {
  if (Object.hasOwn(POLICIES, name)) return POLICIES[name as PolicyName];
  throw new ScanPolicyError(
    "SCAN_POLICY_UNKNOWN",
    `unknown policy ${JSON.stringify(name)}: use one of ${POLICY_NAMES.join(", ")}, or a policy file (--policy-file)`,
  );
}
