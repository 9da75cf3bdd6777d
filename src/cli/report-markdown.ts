/**
 * The Markdown reports of `airlock pin` and `airlock check` (`--output markdown`): what a
 * person pastes into a pull request or a ticket. Every name, description, schema and
 * message that came from a server goes through lib/markdown.ts (code spans, fenced
 * blocks, escaped prose), so a hostile tool cannot inject markup, HTML or a broken table.
 * The exit code is the command's, as in every other format.
 */
import { htmlText, mdCode, mdFence, mdTable, mdText } from "../lib/markdown.js";
import { prettyJson } from "../pins/json-preview.js";
import { renderDefinitionDiff } from "../pins/render-diff.js";
import type { TargetResult } from "../scan/types.js";
import type { ListingReview, ToolReview } from "./review.js";
import { MAX_SHOWN_CHARACTERS } from "./review-screen.js";

/** What happened to one listed tool in `airlock pin`. */
export type PinOutcome =
  | "already_pinned"
  | "approved"
  | "reapproved"
  | "declined"
  | "drift_not_reapproved"
  | "duplicate"
  | "unreadable";

/** One pin-file section's review and what became of it. */
export interface PinSection {
  server: string;
  source: string | null;
  error?: string;
  /** The error's stable code, when it has one (e.g. `PIN_FILE_CONFLICT`). */
  code?: string;
  written: boolean;
  tools: { review: ToolReview; outcome: PinOutcome; scan: TargetResult | undefined }[];
  pruned: string[];
  missing: string[];
}

/** The run around the sections of a pin report. */
export interface PinReportMeta {
  pinFile: string;
  exitCode: number;
  /** No terminal and no `--yes`: nothing was written; the report says what `--yes` would do. */
  wouldNeedConsent?: boolean;
  /** Ctrl-C: nothing was written. */
  interrupted?: boolean;
  /** The run failed before any review (unreadable pin file, usage). */
  error?: string;
}

const STATUS: Record<ToolReview["status"], string> = {
  pinned: "pinned",
  unpinned: "new",
  drift: "changed",
  duplicate: "duplicate",
  unreadable: "unreadable",
};

function outcomeWords(outcome: PinOutcome, consent: boolean): string {
  switch (outcome) {
    case "already_pinned":
      return "already pinned";
    case "approved":
      return "**approved**";
    case "reapproved":
      return "**re-approved**";
    case "declined":
      return consent ? "would be approved with `--yes`" : "declined";
    case "drift_not_reapproved":
      return consent ? "needs `--yes --reapprove NAME`" : "not re-approved";
    default:
      return "not pinnable";
  }
}

const toolName = (review: ToolReview) =>
  review.name === null ? `(entry ${review.index}, no readable name)` : review.name;

function scanCell(scan: TargetResult | undefined): string {
  if (scan === undefined) return "-";
  const codes = [
    ...new Set(scan.findings.filter((f) => f.suppressed === undefined).map((f) => f.code)),
  ];
  return codes.length === 0 ? scan.grade : `${scan.grade} (${codes.join(", ")})`;
}

/** Each unsuppressed finding of a tool as a list item, its excerpt quoted in code. */
function findingItems(scan: TargetResult | undefined): string[] {
  if (scan === undefined) return [];
  return scan.findings
    .filter((f) => f.suppressed === undefined)
    .map((f) => {
      const at = f.pointer ? ` at ${mdCode(f.pointer)}` : "";
      const signal = f.signal ? ` [${mdText(f.signal)}]` : "";
      const quoted = f.excerpt ? `; quoted: ${mdCode(f.excerpt)}` : "";
      return `- **${f.code}** ${f.grade}${at}${signal}: ${mdText(f.message)}${quoted}`;
    });
}

/** A changed tool's diff as a fenced block, values whole. */
function diffBlock(review: ToolReview): string {
  if (review.diff === null) {
    return "The pin file stores only the digest: the changed fields cannot be shown.\n";
  }
  return mdFence(
    renderDefinitionDiff(review.diff, { maxValueLength: MAX_SHOWN_CHARACTERS }),
    "text",
  );
}

/** The definition as listed, folded, in a fenced JSON block. */
function definitionBlock(name: string, definition: unknown): string {
  const { text, complete } = prettyJson(definition, MAX_SHOWN_CHARACTERS);
  const cut = complete ? "" : `\n**Too large to show past ${MAX_SHOWN_CHARACTERS} characters.**\n`;
  return `<details><summary>Definition of ${htmlText(name)}</summary>\n\n${mdFence(text, "json")}${cut}\n</details>\n`;
}

/** The details of the tools a reviewer of the pull request must read: new and changed ones. */
function toolDetails(tool: PinSection["tools"][number], consent: boolean): string {
  const { review } = tool;
  const name = toolName(review);
  const kind = review.status === "drift" ? "Changed" : "New";
  const parts = [
    `#### ${kind}: ${mdCode(name)} (${outcomeWords(tool.outcome, consent)})\n`,
    review.status === "drift" ? diffBlock(review) : "",
    definitionBlock(name, review.definition),
  ];
  const findings = findingItems(tool.scan);
  if (findings.length > 0)
    parts.push(`scan-tools: ${tool.scan!.grade}\n\n${findings.join("\n")}\n`);
  return parts.filter((p) => p !== "").join("\n");
}

function pinSection(r: PinSection, meta: PinReportMeta): string {
  const consent = meta.wouldNeedConsent === true;
  const source = r.source ? ` (${mdCode(r.source)})` : "";
  const out = [`### Server ${mdCode(r.server)}${source}\n`];
  if (r.error !== undefined) {
    const code = r.code !== undefined ? ` (${r.code})` : "";
    out.push(`**Error${code}:** ${mdText(r.error)}\n`);
    return out.join("\n");
  }
  const rows = r.tools.map((t) => [
    mdCode(toolName(t.review), { inTable: true }),
    STATUS[t.review.status],
    outcomeWords(t.outcome, consent),
    mdText(scanCell(t.scan)),
  ]);
  if (rows.length > 0) out.push(mdTable(["tool", "status", "outcome", "scan-tools"], rows));
  else out.push("The server lists no tools.\n");
  if (r.pruned.length > 0) out.push(`Pruned: ${r.pruned.map((n) => mdCode(n)).join(", ")}\n`);
  if (r.missing.length > 0 && r.pruned.length === 0) {
    out.push(
      `Pinned but no longer listed (kept; \`--prune\` removes them): ${r.missing.map((n) => mdCode(n)).join(", ")}\n`,
    );
  }
  out.push(
    r.written
      ? `Written to ${mdCode(meta.pinFile)}.\n`
      : `${mdCode(meta.pinFile)} not changed for this server.\n`,
  );
  for (const t of r.tools) {
    if (t.review.status === "unpinned" || t.review.status === "drift")
      out.push(toolDetails(t, consent));
  }
  return out.join("\n");
}

/**
 * The Markdown report of `airlock pin`: per server, a table of every listed tool with
 * its status, what happened to it and its scan grade, then each new or changed tool with
 * its diff, its whole definition (folded) and its findings.
 *
 * @example
 * ```ts
 * import { formatPinMarkdown } from "./report-markdown.js";
 * console.log(formatPinMarkdown([], { pinFile: "airlock.pins.json", exitCode: 0 }).split("\n")[0]); // "## airlock pin: `airlock.pins.json`"
 * ```
 */
export function formatPinMarkdown(sections: PinSection[], meta: PinReportMeta): string {
  const out = [`## airlock pin: ${mdCode(meta.pinFile)}\n`];
  const tools = sections.flatMap((s) => s.tools);
  const notPinned = tools.filter(
    (t) => !["already_pinned", "approved", "reapproved"].includes(t.outcome),
  ).length;
  if (meta.error !== undefined) {
    out.push(`**Nothing written (exit ${meta.exitCode}):** ${mdText(meta.error)}\n`);
  } else if (meta.interrupted) {
    out.push(`**Interrupted (Ctrl-C): nothing was written (exit ${meta.exitCode}).**\n`);
  } else if (meta.wouldNeedConsent) {
    out.push(
      `**Nothing written (exit ${meta.exitCode}):** no terminal to review on and no \`--yes\`. This report shows what \`--yes\` would approve.\n`,
    );
  } else {
    out.push(
      `**${tools.length - notPinned} of ${tools.length} listed tools pinned** across ${sections.length} server(s) (exit ${meta.exitCode}).\n`,
    );
  }
  for (const s of sections) out.push(pinSection(s, meta));
  return `${out.join("\n").trimEnd()}\n`;
}

/** One server's outcome in `airlock check`. */
export interface CheckServer {
  server: string;
  source: string | null;
  status: "ok" | "refused" | "error";
  error?: string;
  review?: ListingReview;
}

function checkSection(r: CheckServer): string {
  const source = r.source ? ` (${mdCode(r.source)})` : "";
  const out = [`### Server ${mdCode(r.server)}${source}: ${r.status}\n`];
  if (r.status === "error") {
    out.push(`**Error:** ${mdText(r.error ?? "")}\n`);
    return out.join("\n");
  }
  const review = r.review!;
  const refused = review.tools.filter((t) => t.status !== "pinned");
  const admitted = review.tools.length - refused.length;
  out.push(`${review.tools.length} listed, ${admitted} admitted, ${refused.length} refused.\n`);
  if (refused.length > 0) {
    out.push(
      mdTable(
        ["tool", "status", "verdict", "detail"],
        refused.map((t) => [
          mdCode(toolName(t), { inTable: true }),
          STATUS[t.status],
          t.verdict === null ? "-" : mdCode(t.verdict, { inTable: true }),
          mdText(t.detail),
        ]),
      ),
    );
  }
  for (const t of refused) {
    if (t.status === "drift") out.push(`#### Changed: ${mdCode(toolName(t))}\n`, diffBlock(t));
  }
  if (review.missing.length > 0) {
    out.push(
      `Pinned but not listed (refuses nothing): ${review.missing.map((n) => mdCode(n)).join(", ")}\n`,
    );
  }
  return out.join("\n");
}

/**
 * The Markdown report of `airlock check`: a verdict line, then per server the refused
 * tools in a table and the diff of each changed one.
 *
 * @example
 * ```ts
 * import { formatCheckMarkdown } from "./report-markdown.js";
 * console.log(formatCheckMarkdown([], { pinFile: "p.json", exitCode: 0 }).split("\n")[0]); // "## airlock check: OK"
 * ```
 */
export function formatCheckMarkdown(
  servers: CheckServer[],
  meta: { pinFile: string; exitCode: number; error?: string },
): string {
  const ok = meta.exitCode === 0;
  const out = [`## airlock check: ${ok ? "OK" : "FAIL"}\n`];
  const bad = servers.filter((s) => s.status !== "ok").length;
  if (meta.error !== undefined) {
    out.push(`**Could not check (exit ${meta.exitCode}):** ${mdText(meta.error)}\n`);
  } else {
    out.push(
      ok
        ? `Every listed tool of ${servers.length} server(s) is admitted by ${mdCode(meta.pinFile)} (exit 0).\n`
        : `**${bad} of ${servers.length} server(s) not clean** against ${mdCode(meta.pinFile)} (exit ${meta.exitCode}).\n`,
    );
  }
  for (const s of servers) out.push(checkSection(s));
  return `${out.join("\n").trimEnd()}\n`;
}
