import type { ScanReport } from "./types.js";

/**
 * `$id` of docs/scan-report.schema.json, the schema of the JSON output (version 1).
 *
 * @example
 * ```ts
 * import { REPORT_SCHEMA_ID } from "agent-airlock/scan";
 * console.log(REPORT_SCHEMA_ID); // "urn:agent-airlock:scan-report:v1"
 * ```
 */
export const REPORT_SCHEMA_ID = "urn:agent-airlock:scan-report:v1";

/**
 * The JSON output of `scan-tools --output json`: the report itself with a `$schema`
 * pointer, two-space indented, final newline. Validates against
 * docs/scan-report.schema.json.
 *
 * @example
 * ```ts
 * import { formatJson, scanTools } from "agent-airlock/scan";
 * const json = JSON.parse(formatJson(scanTools([{ name: "echo" }])));
 * console.log(json.schemaVersion, json.exitCode); // 1 1
 * ```
 */
export function formatJson(report: ScanReport): string {
  return `${JSON.stringify({ $schema: REPORT_SCHEMA_ID, ...report }, null, 2)}\n`;
}
