/**
 * The text report of `scan-tools`: what a person reads in a terminal. Everything that
 * comes from the input is printed escaped, so a hostile name cannot rewrite the output.
 */
import pc from "picocolors";
import type { FlowLeg } from "./flows/types.js";
import type { Finding, Grade, ScanReport, TargetResult } from "./types.js";

// Control, format (bidi, zero-width, tags) and separator characters a hostile tool name
// or text could use to rewrite the terminal or hide itself.
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

/** Escape what a terminal would interpret or hide, as `\u{...}`. */
function printable(text: string): string {
  return text.replace(UNPRINTABLE, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`);
}

/** Options of {@link formatText}. */
export interface TextOptions {
  /** Colour on or off (default: picocolors' own choice, which honours NO_COLOR and non-TTY). */
  color?: boolean;
  /** List passing tools too (default true). */
  showPassed?: boolean;
}

/**
 * Render a report for a person: input notes first, then each tool (and each server's
 * instructions) with its grade, inferred capabilities, flow labels and findings, then each
 * toxic flow with the tools on its legs, then a summary line with the exit code. Control, bidi and invisible characters from the input are shown
 * escaped (`\u{1b}`), so a hostile tool name cannot rewrite or hide lines of the output.
 *
 * @example
 * ```ts
 * import { formatText, scanTools } from "agent-airlock/scan";
 * console.log(formatText(scanTools([{ name: "echo" }]), { color: false }));
 * ```
 */
export function formatText(report: ScanReport, options: TextOptions = {}): string {
  const c = pc.createColors(options.color ?? pc.isColorSupported);
  const badge = (g: Grade) =>
    g === "fail"
      ? c.red(c.bold("FAIL"))
      : g === "warn"
        ? c.yellow(c.bold("WARN"))
        : c.green("PASS");
  const lines: string[] = [];
  lines.push(
    c.bold(`airlock scan-tools`) +
      c.dim(
        ` · policy ${report.policy} · ${report.toolCount} tool${report.toolCount === 1 ? "" : "s"}`,
      ),
  );
  for (const p of report.problems) {
    const tag =
      p.severity === "error"
        ? c.red("error")
        : p.severity === "warning"
          ? c.yellow("warning")
          : c.dim("note");
    lines.push(`${tag}: ${printable(p.message)}`);
  }
  if (report.results.length > 0) lines.push("");
  for (const r of report.results) {
    if (r.grade === "pass" && options.showPassed === false) continue;
    lines.push(
      `${badge(r.grade)}  ${c.bold(targetLabel(r))}${capabilityLabel(r, c.dim)}${flowLabel(r, c.dim)}`,
    );
    for (const f of r.findings) {
      lines.push(findingLine(f, c));
      if (f.flow !== undefined) for (const leg of f.flow.legs) lines.push(legLine(leg, c));
    }
  }
  const s = report.suppressions;
  for (const x of s.expired) {
    lines.push(
      c.yellow(
        printable(
          `suppression expired on ${x.expires}: ${x.tool} ${x.code} (${x.reason}); it no longer applies`,
        ),
      ),
    );
  }
  for (const x of s.unused) {
    lines.push(
      c.yellow(printable(`unused suppression: ${x.tool} ${x.code} matched no finding; remove it`)),
    );
  }
  lines.push("");
  const summary = `${report.failed} failed, ${report.warned} warned, ${report.passed} passed; exit code ${report.exitCode}`;
  lines.push(
    report.exitCode === 2
      ? c.red(summary)
      : report.exitCode === 1
        ? c.yellow(summary)
        : c.green(summary),
  );
  return `${lines.join("\n")}\n`;
}

function targetLabel(r: TargetResult): string {
  if (r.kind === "flow") return `toxic flow: ${r.name}`;
  const base = r.kind === "instructions" ? `instructions of ${r.name}` : r.name;
  return printable(r.server !== null && r.kind === "tool" ? `${r.server}/${base}` : base);
}

function capabilityLabel(r: TargetResult, dim: (s: string) => string): string {
  if (r.capabilities.length === 0) return "";
  return dim(printable(`  [${r.capabilities.map((x) => x.capability).join(", ")}]`));
}

function flowLabel(r: TargetResult, dim: (s: string) => string): string {
  if (r.flowLabels.length === 0) return "";
  return dim(printable(`  {${r.flowLabels.map((x) => x.label).join(", ")}}`));
}

/** One leg of a toxic flow: its label, counts, and the tools listed with their evidence. */
function legLine(leg: FlowLeg, c: ReturnType<typeof pc.createColors>): string {
  const servers = leg.servers.length + leg.moreServers;
  const head = `${leg.label} (${leg.count} tool${leg.count === 1 ? "" : "s"}${servers > 1 ? ` on ${servers} servers` : ""}${leg.accepted > 0 ? `, ${leg.accepted} accepted` : ""}):`;
  const tools = leg.tools.map((t) => {
    const name = t.server === null ? t.tool : `${t.server}/${t.tool}`;
    const accepted = t.accepted === undefined ? "" : " accepted";
    return `${printable(name)}${c.dim(printable(` [${t.evidence}]${accepted}`))}`;
  });
  const more = leg.more > 0 ? `, and ${leg.more} more` : "";
  return `        ${c.bold(head)} ${tools.join(", ")}${more}`;
}

function findingLine(f: Finding, c: ReturnType<typeof pc.createColors>): string {
  const grade = f.suppressed
    ? c.dim("supp")
    : f.grade === "fail"
      ? c.red("fail")
      : c.yellow("warn");
  const where = f.pointer ? c.dim(` ${printable(f.pointer)}`) : "";
  const signal = f.signal ? ` [${printable(f.signal)}]` : "";
  const excerpt = f.excerpt ? c.dim(` «${printable(f.excerpt)}»`) : "";
  const suppressed = f.suppressed ? c.dim(` (suppressed: ${printable(f.suppressed.reason)})`) : "";
  return `    ${c.bold(f.code)} ${grade}${where}${signal} ${printable(f.message)}${excerpt}${suppressed}`;
}
