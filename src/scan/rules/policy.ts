import type { CapabilityProfile } from "../capabilities.js";
import type { CompiledPolicy } from "../policy-match.js";
import type { Finding } from "../types.js";

/** SCAN001 (tool name vs the policy's globs), SCAN006 and SCAN007 (capabilities), appended to `findings`. */
export function policyFindings(
  name: string,
  server: string | null,
  profile: CapabilityProfile,
  policy: CompiledPolicy,
  policyName: string,
  findings: Finding[] = [],
): Finding[] {
  const named = policy.tool(name, server);
  if (named.verdict === "denied") {
    findings.push({
      code: "SCAN001",
      grade: "fail",
      pointer: "/name",
      message: `tool denied by policy ${policyName} (deny glob ${JSON.stringify(named.pattern)})`,
    });
  } else if (named.verdict === "not-allowed") {
    findings.push({
      code: "SCAN001",
      grade: "fail",
      pointer: "/name",
      message: `tool not allow-listed by policy ${policyName}`,
    });
  }
  for (const cap of profile.capabilities) {
    const verdict = policy.capability(cap.capability);
    const why = `inferred from ${cap.source === "explicit" ? "the capabilities list" : cap.evidence}`;
    if (verdict.verdict === "denied" || verdict.verdict === "not-granted") {
      findings.push({
        code: "SCAN006",
        grade: "fail",
        capability: cap.capability,
        message:
          verdict.verdict === "denied"
            ? `capability ${cap.capability} is denied by policy ${policyName} (${why})`
            : `capability ${cap.capability} is not granted by policy ${policyName} (${why})`,
      });
    } else if (verdict.verdict === "sandbox-only") {
      findings.push({
        code: "SCAN007",
        grade: "warn",
        capability: cap.capability,
        message: `capability ${cap.capability} is allowed by policy ${policyName} only under sandboxed execution (${why})`,
      });
    }
  }
  return findings;
}
