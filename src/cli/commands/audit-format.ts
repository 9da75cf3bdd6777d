/**
 * The text form of `airlock audit`: what was read, then per server its sessions and per
 * tool its calls and definitions (allowed, refused by verdict, would be refused), then,
 * with `--refused`, the last refusals. Names and reasons came from servers: they are
 * printed with control characters escaped.
 */
import type { AuditReadStats } from "../../proxy/audit-reader.js";
import type {
  AuditSummaryResult,
  DecisionCounts,
  ListedDecision,
} from "../../proxy/audit-summary.js";
import { type Palette, printable } from "../output.js";

/** Options of {@link formatAuditText}. */
export interface AuditTextOptions {
  palette: Palette;
  /** Print the refusals kept (`--refused`). */
  listRefusals: boolean;
  /** The line cap, to name it when lines were skipped. */
  maxLineBytes: number;
}

/**
 * The whole text report, ending with a newline.
 *
 * @example
 * ```ts
 * import { formatAuditText } from "./audit-format.js";
 * process.stdout.write(formatAuditText("audit.jsonl", stats, summary.result(), { palette, listRefusals: false, maxLineBytes: 1 << 20 }));
 * // audit.jsonl: 12 records
 * // matched 12: 10 allowed, 2 refused
 * // ...
 * ```
 */
export function formatAuditText(
  source: string,
  stats: AuditReadStats,
  result: AuditSummaryResult,
  options: AuditTextOptions,
): string {
  const c = options.palette;
  const lines = [
    `${c.bold(printable(source))}: ${stats.records} records${skippedText(stats, options)}`,
  ];
  const allowed = result.tools.reduce((n, t) => n + t.calls.allowed + t.definitions.allowed, 0);
  lines.push(
    `matched ${result.matched}: ${allowed} allowed, ${colour(c.red, result.refusals, "refused")}${result.wouldRefuse > 0 ? `, ${c.yellow(`${result.wouldRefuse} would be refused (observe mode: not blocked)`)}` : ""}`,
  );
  for (const server of result.servers) {
    const name = server.server === null ? "(no section)" : JSON.stringify(server.server);
    lines.push("", `server ${printable(name)}: ${server.sessions} session(s)`);
    const tools = result.tools.filter((t) => t.server === server.server);
    const width = Math.min(40, Math.max(0, ...tools.map((t) => printable(t.tool).length)));
    for (const tool of tools) {
      lines.push(
        `  ${printable(tool.tool).padEnd(width)}  calls: ${countsText(tool.calls, c)}; definitions: ${countsText(tool.definitions, c)}`,
      );
    }
    const other = Object.entries(server.other);
    if (other.length > 0) {
      lines.push(`  other: ${other.map(([key, n]) => `${printable(key)} ${n}`).join(", ")}`);
    }
  }
  if (result.uncountedGroups > 0) {
    lines.push(
      "",
      c.yellow(
        `${result.uncountedGroups} record(s) of servers or tools past the cap were not counted`,
      ),
    );
  }
  if (options.listRefusals) {
    lines.push("", `refusals (last ${result.recent.length}):`);
    for (const refusal of result.recent) lines.push(`  ${refusalText(refusal, c)}`);
  }
  return `${lines.join("\n")}\n`;
}

function skippedText(stats: AuditReadStats, options: AuditTextOptions): string {
  const parts = [
    stats.oversized > 0 ? `${stats.oversized} over ${options.maxLineBytes} bytes` : "",
    stats.notJson > 0 ? `${stats.notJson} not JSON` : "",
    stats.notRecord > 0 ? `${stats.notRecord} not audit records` : "",
  ].filter((p) => p !== "");
  return parts.length === 0 ? "" : ` (lines skipped: ${parts.join(", ")})`;
}

function countsText(counts: DecisionCounts, c: Palette): string {
  const parts: string[] = [];
  if (counts.allowed > 0) parts.push(`${counts.allowed} allowed`);
  const refused = byVerdict(counts.refused);
  if (refused !== null) parts.push(c.red(`${refused.total} refused (${refused.text})`));
  const would = byVerdict(counts.wouldRefuse);
  if (would !== null) parts.push(c.yellow(`${would.total} would be refused (${would.text})`));
  return parts.length === 0 ? "-" : parts.join(", ");
}

function byVerdict(counts: Record<string, number>): { total: number; text: string } | null {
  const entries = Object.entries(counts);
  if (entries.length === 0) return null;
  return {
    total: entries.reduce((n, [, k]) => n + k, 0),
    text: entries.map(([verdict, n]) => `${printable(verdict)} ${n}`).join(", "),
  };
}

function colour(paint: (s: string) => string, n: number, label: string): string {
  return n > 0 ? paint(`${n} ${label}`) : `${n} ${label}`;
}

function refusalText(refusal: ListedDecision, c: Palette): string {
  const where = [refusal.server ?? "-", refusal.tool ?? refusal.event].map(printable).join(" ");
  const label = refusal.enforced
    ? c.red(printable(refusal.verdict))
    : c.yellow(`would refuse ${printable(refusal.verdict)}`);
  return `${printable(refusal.time)}  ${where}  ${label}: ${printable(refusal.reason)}`;
}
