/**
 * The Markdown report of `scan-tools` (`--output markdown`): what a person pastes into a
 * pull request or a ticket. Every name, capability, message and excerpt that came from
 * the input is quoted through lib/markdown.ts (code spans, escaped prose), so a hostile
 * tool name cannot inject markup, HTML, a link or a broken table row. The exit code is
 * the report's, as in every other format.
 */
import { mdCode, mdTable, mdText } from "../lib/markdown.js";
import type { Finding, Grade, ScanReport, TargetResult } from "./types.js";

/** Options of {@link formatMarkdown}. */
export interface MarkdownOptions {
  /** List passing tools in the table too (default true). */
  showPassed?: boolean;
}

const GRADE: Record<Grade, string> = { fail: "**FAIL**", warn: "WARN", pass: "PASS" };

function targetName(r: TargetResult): string {
  if (r.kind === "flow") return `toxic flow: ${r.name}`;
  const base = r.kind === "instructions" ? `instructions of ${r.name}` : r.name;
  return r.server !== null && r.kind === "tool" ? `${r.server}/${base}` : base;
}

function findingItem(f: Finding): string {
  const grade = f.suppressed ? `suppressed (${mdText(f.suppressed.reason)})` : f.grade;
  const at = f.pointer ? ` at ${mdCode(f.pointer)}` : "";
  const signal = f.signal ? ` [${mdText(f.signal)}]` : "";
  const quoted = f.excerpt ? `; quoted: ${mdCode(f.excerpt)}` : "";
  const lines = [`- **${f.code}** ${grade}${at}${signal}: ${mdText(f.message)}${quoted}`];
  for (const leg of f.flow?.legs ?? []) {
    const tools = leg.tools.map((t) =>
      mdCode(t.server === null ? t.tool : `${t.server}/${t.tool}`),
    );
    const more = leg.more > 0 ? `, and ${leg.more} more` : "";
    lines.push(`  - ${mdText(leg.label)} (${leg.count}): ${tools.join(", ")}${more}`);
  }
  return lines.join("\n");
}

/**
 * Render a report as Markdown: a verdict heading with the exit code, input notes, a table
 * of targets (grade, tool, capabilities, finding codes), then every finding under its
 * tool, then expired and unused suppressions.
 *
 * @example
 * ```ts
 * import { formatMarkdown, scanTools } from "agent-airlock/scan";
 * console.log(formatMarkdown(scanTools([{ name: "echo" }])).split("\n")[0]); // "## airlock scan-tools: WARN (exit 1)"
 * ```
 */
export function formatMarkdown(report: ScanReport, options: MarkdownOptions = {}): string {
  const verdict = report.exitCode === 2 ? "FAIL" : report.exitCode === 1 ? "WARN" : "PASS";
  const out = [
    `## airlock scan-tools: ${verdict} (exit ${report.exitCode})\n`,
    `Policy ${mdCode(report.policy)} · ${report.toolCount} tool${report.toolCount === 1 ? "" : "s"} · ${report.failed} failed, ${report.warned} warned, ${report.passed} passed\n`,
  ];
  if (report.problems.length > 0) {
    out.push(
      `${report.problems.map((p) => `- ${p.severity} ${mdCode(p.code)}: ${mdText(p.message)}`).join("\n")}\n`,
    );
  }
  const shown = report.results.filter((r) => options.showPassed !== false || r.grade !== "pass");
  if (shown.length > 0) {
    out.push(
      mdTable(
        ["grade", "tool", "capabilities", "findings"],
        shown.map((r) => [
          GRADE[r.grade],
          mdCode(targetName(r), { inTable: true }),
          r.capabilities.length === 0
            ? "-"
            : mdCode(r.capabilities.map((x) => x.capability).join(", "), { inTable: true }),
          r.findings.length === 0 ? "-" : [...new Set(r.findings.map((f) => f.code))].join(", "),
        ]),
      ),
    );
  }
  const withFindings = report.results.filter((r) => r.findings.length > 0);
  if (withFindings.length > 0) out.push("### Findings\n");
  for (const r of withFindings) {
    out.push(
      `#### ${GRADE[r.grade]} ${mdCode(targetName(r))}\n`,
      `${r.findings.map(findingItem).join("\n")}\n`,
    );
  }
  const s = report.suppressions;
  const stale = [
    ...s.expired.map(
      (x) =>
        `- expired on ${mdText(x.expires ?? "")}: ${mdCode(x.tool)} ${x.code} (${mdText(x.reason)}); it no longer applies`,
    ),
    ...s.unused.map((x) => `- unused: ${mdCode(x.tool)} ${x.code} matched no finding; remove it`),
  ];
  if (stale.length > 0) out.push("### Suppressions\n", `${stale.join("\n")}\n`);
  return `${out.join("\n").trimEnd()}\n`;
}
