/** SCAN011: MCP annotations that claim less than the tool's name or arguments show. */
import type { ToolDefinition } from "../../pins/types.js";
import type { CapabilityProfile } from "../capabilities.js";
import type { Finding } from "../types.js";

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * SCAN011: annotations that claim less than the firm evidence shows. Clients relax approval
 * for read-only and non-destructive tools, so such a hint is how a dangerous tool hides.
 * Appended to `findings`.
 */
export function annotationFindings(
  tool: ToolDefinition,
  profile: CapabilityProfile,
  findings: Finding[] = [],
): Finding[] {
  const a = isObject(tool.annotations) ? tool.annotations : null;
  const evidence = profile.evidenceAccess;
  if (a === null || evidence === null) return findings;
  if (a.readOnlyHint === true && evidence.access !== "read") {
    findings.push({
      code: "SCAN011",
      grade: "fail",
      pointer: "/annotations/readOnlyHint",
      message: `readOnlyHint is true but the ${evidence.evidence} says the tool can ${verb(evidence.access)}`,
    });
  }
  if (
    a.destructiveHint === false &&
    a.readOnlyHint !== true &&
    (evidence.access === "delete" || evidence.access === "exec")
  ) {
    findings.push({
      code: "SCAN011",
      grade: "fail",
      pointer: "/annotations/destructiveHint",
      message: `destructiveHint is false but the ${evidence.evidence} says the tool can ${verb(evidence.access)}`,
    });
  }
  // Only a word that says the tool goes out (fetch, web, download) contradicts a closed
  // world; a URL argument or a `webhook` noun names a network thing a closed service keeps.
  if (a.openWorldHint === false && profile.openWorldEvidence !== null) {
    findings.push({
      code: "SCAN011",
      grade: "fail",
      pointer: "/annotations/openWorldHint",
      message: `openWorldHint is false but the ${profile.openWorldEvidence} says the tool reaches the open network`,
    });
  }
  return findings;
}

function verb(access: string): string {
  return access === "exec" ? "execute commands" : access === "delete" ? "delete" : "write";
}
