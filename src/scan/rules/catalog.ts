/** The rule catalog: each SCANxxx code's name, catalog grade, title and help. */
import type { Grade, RuleCode } from "../types.js";

/** Metadata of one rule: the default grade, a title, and why it exists. */
export interface RuleInfo {
  code: RuleCode;
  /** Short kebab-case name (SARIF `name`). */
  name: string;
  grade: Exclude<Grade, "pass">;
  title: string;
  /** What the rule protects against and how to fix a finding. */
  help: string;
}

const rule = (
  code: RuleCode,
  name: string,
  grade: Exclude<Grade, "pass">,
  title: string,
  help: string,
): RuleInfo => Object.freeze({ code, name, grade, title, help });

/**
 * Every rule, by code, with its catalog grade (a policy's `grades` may replace it:
 * `permissive` warns SCAN003, SCAN014 and SCAN015). The grades are calibrated against
 * the real servers in the shared corpus; docs/scan-tools.md says why each one is what it is.
 *
 * @example
 * ```ts
 * import { RULES } from "agent-airlock/scan";
 * console.log(RULES.SCAN003.grade); // "fail"
 * ```
 */
export const RULES: Readonly<Record<RuleCode, RuleInfo>> = Object.freeze({
  SCAN001: rule(
    "SCAN001",
    "tool-not-allowed",
    "fail",
    "Tool denied or not allow-listed by the policy",
    "The policy's tool globs deny this name, or no allow glob matches it. Review the tool and add it to the policy's allow list, or remove it from the configuration.",
  ),
  SCAN002: rule(
    "SCAN002",
    "description-poisoning",
    "fail",
    "Injected instructions in a description, a schema text or server instructions",
    "Text the model reads carries instructions aimed at the model rather than documentation for it. Do not load this tool; report it to the server's author.",
  ),
  SCAN003: rule(
    "SCAN003",
    "open-surface-mutating",
    "fail",
    "Mutating tool with an open argument surface",
    "A tool that writes, deletes or executes accepts arguments its schema does not declare. Set `additionalProperties: false` on its inputSchema.",
  ),
  SCAN004: rule(
    "SCAN004",
    "open-surface",
    "warn",
    "Non-mutating tool with an open argument surface",
    "The tool accepts arguments its schema does not declare. Set `additionalProperties: false` on its inputSchema.",
  ),
  SCAN005: rule(
    "SCAN005",
    "unconstrained-argument",
    "warn",
    "Argument without a type, or sensitive string argument without a constraint",
    "Give every property a type; constrain path, URL, command and similar strings with an enum, a pattern, a format or a maxLength.",
  ),
  SCAN006: rule(
    "SCAN006",
    "capability-not-granted",
    "fail",
    "Inferred capability denied or not granted by the policy",
    "The tool needs a capability the policy does not grant. Grant it in a policy file after review, or do not load the tool.",
  ),
  SCAN007: rule(
    "SCAN007",
    "capability-sandbox-only",
    "warn",
    "Capability allowed only under sandboxed execution",
    "The policy allows this capability only inside a sandbox. Run the server sandboxed (container, restricted user, no credentials).",
  ),
  SCAN008: rule(
    "SCAN008",
    "malformed-oauth-issuer",
    "warn",
    "Malformed OAuth issuer",
    "An OAuth issuer must be an https URL with a host and no query, fragment or credentials (RFC 8414).",
  ),
  SCAN009: rule(
    "SCAN009",
    "external-ref",
    "fail",
    "External $ref in a schema",
    "A `$ref` that points outside the document makes the real schema unknowable offline and can fetch from the network. Inline the referenced schema.",
  ),
  SCAN010: rule(
    "SCAN010",
    "ambiguous-composition",
    "warn",
    "oneOf/anyOf/allOf composition that hides the argument surface",
    "A composition branch accepts anything or leaves objects open, so the declared properties are not the real surface. Close each object branch with `additionalProperties: false` and drop catch-all branches.",
  ),
  SCAN011: rule(
    "SCAN011",
    "contradicting-annotations",
    "fail",
    "Annotations contradict the tool's evidence",
    "An annotation claims less than the tool's name or arguments show (for example `readOnlyHint: true` on `delete_*`). Clients relax approval on such hints: fix the annotation.",
  ),
  SCAN012: rule(
    "SCAN012",
    "duplicate-or-lookalike-name",
    "fail",
    "Duplicate or look-alike tool name",
    "Two tools in one input share a name, differ only in case, or look alike (Unicode confusables). The model cannot tell them apart: one can shadow the other. Rename or remove one.",
  ),
  SCAN013: rule(
    "SCAN013",
    "schema-unanalysable",
    "fail",
    "Schema cannot be analysed",
    "The schema is not an object, or is deeper or larger than the analysis bounds. A contract nobody can read is refused: flatten the schema.",
  ),
  SCAN014: rule(
    "SCAN014",
    "exfiltration-path",
    "fail",
    "Toxic flow: untrusted content, private data and a public sink in one agent",
    "Together, these tools let an instruction planted in text an outsider wrote make the agent read private data and send it out. Remove the tools of one leg from the configuration, put a human approval on the sinks, or correct a wrong label in a policy file (docs/toxic-flows.md).",
  ),
  SCAN015: rule(
    "SCAN015",
    "destructive-injection-path",
    "fail",
    "Toxic flow: untrusted content and a destructive tool in one agent",
    "Together, these tools let an instruction planted in text an outsider wrote make the agent delete, overwrite or run something. Remove one leg's tools, put a human approval on the destructive ones, or correct a wrong label in a policy file (docs/toxic-flows.md).",
  ),
});

/**
 * All rule codes in order.
 *
 * @example
 * ```ts
 * import { RULE_CODES } from "agent-airlock/scan";
 * console.log(RULE_CODES.length); // 15
 * ```
 */
export const RULE_CODES: readonly RuleCode[] = Object.freeze(Object.keys(RULES) as RuleCode[]);
