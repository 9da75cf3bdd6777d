/**
 * A policy's grades (`SecurityPolicy.grades`) applied to findings: the policy's grade
 * replaces the catalog's, and a finding its rule graded below the catalog grade (a milder
 * case, such as SCAN003 on a schema the MCP SDK wrote) keeps the milder of the two.
 */
import { ScanPolicyError } from "./errors.js";
import { RULES } from "./rules/catalog.js";
import type { Finding, RuleCode, RuleGrades } from "./types.js";

const RANK = { warn: 1, fail: 2 } as const;

/**
 * Check a policy's grades once per scan (a hand-built policy object is not validated
 * elsewhere); throws `SCAN_POLICY_INVALID` naming the bad entry.
 */
export function readRuleGrades(grades: unknown): RuleGrades | undefined {
  if (grades === undefined) return undefined;
  if (typeof grades !== "object" || grades === null || Array.isArray(grades))
    throw new ScanPolicyError("SCAN_POLICY_INVALID", "policy.grades must be an object");
  for (const [code, grade] of Object.entries(grades)) {
    if (!Object.hasOwn(RULES, code))
      throw new ScanPolicyError(
        "SCAN_POLICY_INVALID",
        `policy.grades: ${JSON.stringify(code)} is not a rule code`,
      );
    if (grade !== "warn" && grade !== "fail")
      throw new ScanPolicyError(
        "SCAN_POLICY_INVALID",
        `policy.grades.${code} must be "warn" or "fail" (got ${JSON.stringify(grade)})`,
      );
  }
  return grades as RuleGrades;
}

/** Regrade `findings` (objects the scan made) in place by the policy's grades. */
export function applyRuleGrades(findings: Finding[], grades: RuleGrades | undefined): void {
  if (grades === undefined) return;
  for (const f of findings) {
    const policy = grades[f.code as RuleCode];
    if (policy === undefined) continue;
    f.grade = f.grade === RULES[f.code].grade || RANK[policy] < RANK[f.grade] ? policy : f.grade;
  }
}
