import type { Command } from "commander";
import { AirlockError, PinFileError } from "../../errors.js";
import { ToolDefinitionPinGuard } from "../../pins/guard.js";
import {
  DEFAULT_PIN_FILE,
  guardFromPinFile,
  type PinFile,
  type PinFileServer,
  pinFileFromGuard,
  serializePinFile,
} from "../../pins/pin-file.js";
import { type PinFileRead, readPinFileText, updatePinFileFrom } from "../../pins/pin-file-io.js";
import type { TargetResult } from "../../scan/types.js";
import { listToolsFrom } from "../connect.js";
import {
  type Palette,
  paletteFor,
  printable,
  progressLine,
  type ReportFormat,
  writeJson,
} from "../output.js";
import { pageLines, terminalOf } from "../pager.js";
import {
  askLine,
  closePrompt,
  INTERRUPTED_EXIT,
  PromptInterruptedError,
  wasInterrupted,
} from "../prompt.js";
import { formatPinMarkdown, type PinOutcome, type PinSection } from "../report-markdown.js";
import { renderToolReview, reviewListing, type ToolReview, toolReviewJson } from "../review.js";
import { reviewScreen, wholeDefinition } from "../review-screen.js";
import {
  addServerSourceOptions,
  describeSource,
  resolveTargets,
  sourceRecord,
  type Target,
  type TargetOptions,
} from "../targets.js";

/** Exit codes of `airlock pin` (identical for text and JSON output). */
export const PIN_EXIT = {
  /** Every listed tool is pinned (the file was updated, or already up to date). */
  allPinned: 0,
  /** Review done, but some listed tools are not pinned: declined, drift not re-approved, duplicate or unreadable. */
  someNotPinned: 1,
  /** Nothing written: usage error, no terminal and no --yes, a server, pin file or config that could not be read. */
  error: 2,
  /** Ctrl-C during the review: nothing written. */
  interrupted: INTERRUPTED_EXIT,
} as const;

interface PinCliOptions extends TargetOptions {
  pins: string;
  yes?: boolean;
  reapprove?: string[];
  prune?: boolean;
  policy: string;
  output: ReportFormat;
  maxPages: number;
  timeout: number;
}

/** One section's review and what became of it. */
type SectionResult = PinSection;

/** A reviewed section to write once every review is done. */
interface PendingWrite {
  index: number;
  guard: ToolDefinitionPinGuard;
  target: Target;
  base: PinFileServer | undefined;
}

/**
 * Registers `airlock pin`: list a server's tools, show each with its scan findings and,
 * for a changed pinned tool, the field-by-field diff; then write the approved ones to
 * the pin file. Interactive on a terminal; `--yes` for scripts (approves new tools;
 * a changed tool needs `--reapprove NAME`). Never accepts drift silently.
 *
 * @example
 * ```ts
 * import { Command } from "commander";
 * import { registerPin } from "./pin.js";
 * const program = new Command("airlock");
 * registerPin(program);
 * await program.parseAsync(["node", "airlock", "pin", "--yes", "--server", "demo", "--from", "tools.json"]);
 * ```
 */
export function registerPin(program: Command): void {
  const command = program
    .command("pin")
    // Usage errors must reach main() (exit 2), not exit the process with commander's 1.
    .exitOverride()
    .description("Review a server's tools and approve them into the pin file")
    .usage("[options] [-- COMMAND ARGS...]")
    .option("--pins <file>", "pin file to create or update", DEFAULT_PIN_FILE)
    .option("--server <name>", 'pin-file section (default: the only one, else "default")')
    .option("--config <path>", "pin every server of an MCP client config (one section each)")
    .option("-y, --yes", "approve new tools without asking (for scripts)")
    .option(
      "--reapprove <name...>",
      "with --yes: accept these changed tools (the diff is still shown)",
    )
    .option("--prune", "remove pins of tools the server no longer lists")
    .option("--policy <name>", "scan-tools policy for the findings shown", "permissive");
  addServerSourceOptions(command, { markdown: true })
    .addHelpText(
      "after",
      `
Review: on a terminal, each new or changed tool is shown whole (description, schemas and
annotations, never cut; a screenful at a time when it is taller than the terminal), with
its scan findings and, for a changed tool, the diff against the approved one. Answer y or
n; "v" shows the whole definition as listed; "a" approves the remaining new tools (never
changed ones); "q" declines the rest. Ctrl-C stops the run and writes nothing. Without a
terminal, --yes is required: it approves new tools, and a changed tool only with
--reapprove NAME.

--output markdown prints a report of what was approved (or, without --yes and a terminal,
what would be) to paste into a pull request or a ticket.

Exit codes: 0 every listed tool is pinned; 1 some listed tools are not pinned (declined,
changed and not re-approved, duplicate, unreadable); 2 nothing written (no terminal and no
--yes, or a server, pin file or config that could not be read); 130 interrupted by Ctrl-C
(nothing written). Same codes for every --output.`,
    )
    .action(async (command: string[], options: PinCliOptions) => {
      try {
        process.exitCode = await runPin(command, options);
      } finally {
        closePrompt();
      }
    });
}

async function runPin(command: string[], options: PinCliOptions): Promise<number> {
  const format = options.output;
  const fail = (message: string) => {
    if (format === "json")
      writeJson({ pinFile: options.pins, exitCode: PIN_EXIT.error, error: message, servers: [] });
    else process.stderr.write(`airlock pin: ${printable(message)}\n`);
    if (format === "markdown") {
      process.stdout.write(
        formatPinMarkdown([], { pinFile: options.pins, exitCode: PIN_EXIT.error, error: message }),
      );
    }
    return PIN_EXIT.error;
  };
  let known: PinFileRead | null;
  try {
    known = await readPinFileText(options.pins);
  } catch (err) {
    return fail(`${(err as Error).message} (not overwritten)`);
  }
  let targets: Target[];
  try {
    targets = resolveTargets(options, command, known?.file ?? null);
    if (
      command.length === 0 &&
      options.url === undefined &&
      options.from === undefined &&
      options.config === undefined
    ) {
      targets = targets.filter((t) => t.source !== null);
      if (targets.length === 0)
        throw new Error("give the server: -- COMMAND ARGS, --url, --from or --config");
    }
    const { resolvePolicy } = await import("../../scan/policy.js");
    resolvePolicy(options.policy);
  } catch (err) {
    return fail((err as Error).message);
  }
  const interactive = !options.yes && process.stdin.isTTY === true && process.stderr.isTTY === true;
  if (!options.yes && !interactive) {
    progressLine("no terminal to review on: nothing will be written (use --yes in scripts)");
  }
  const ui: ReviewUi = {
    interactive,
    // The review goes to stderr on a terminal, to stdout in a text run without one.
    c: interactive
      ? paletteFor(process.stderr)
      : format === "text"
        ? paletteFor(process.stdout)
        : paletteFor({}),
    report: format !== "text",
    quit: false,
  };
  const results: SectionResult[] = [];
  const pending: PendingWrite[] = [];
  let interrupted = false;
  try {
    for (const target of targets) {
      if (wasInterrupted()) break;
      const reviewed = await reviewSection(target, known?.file ?? null, options, ui);
      results.push(reviewed.result);
      if (reviewed.write) pending.push({ ...reviewed.write, index: results.length - 1 });
    }
  } catch (err) {
    if (!(err instanceof PromptInterruptedError)) throw err;
  }
  interrupted = wasInterrupted();
  // Every section is written only once every review is done, and only after the
  // terminal is released: Ctrl-C at any question writes nothing.
  closePrompt();
  if (interrupted) return reportInterrupted(results, options);
  for (const write of pending) {
    const written = await writeSection(
      results[write.index]!,
      write.guard,
      write.target,
      write.base,
      known,
      options.pins,
    );
    results[write.index] = written.result;
    if (written.read) known = written.read;
  }
  const exitCode = exitCodeOf(results, options, interactive);
  if (format === "json") writeJson(pinJson(results, options.pins, exitCode));
  else if (format === "markdown") {
    process.stdout.write(
      formatPinMarkdown(results, {
        pinFile: options.pins,
        exitCode,
        wouldNeedConsent: !options.yes && !interactive,
      }),
    );
  } else {
    for (const r of results) process.stdout.write(summaryText(r, options.pins, ui.c));
  }
  return exitCode;
}

/** How the review talks to the person (or the script) running it. */
interface ReviewUi {
  interactive: boolean;
  c: Palette;
  /** A JSON or Markdown report owns stdout: the review is not printed there. */
  report: boolean;
  /** `q` was answered: the rest is declined without asking. */
  quit: boolean;
}

function exitCodeOf(
  results: SectionResult[],
  options: PinCliOptions,
  interactive: boolean,
): number {
  const errors = results.some((r) => r.error !== undefined);
  const unapproved = results.some((r) =>
    r.tools.some((t) => !["already_pinned", "approved", "reapproved"].includes(t.outcome)),
  );
  const wroteNothingForLackOfConsent =
    !options.yes &&
    !interactive &&
    results.some((r) =>
      r.tools.some((t) => t.outcome === "declined" || t.outcome === "drift_not_reapproved"),
    );
  return errors || wroteNothingForLackOfConsent
    ? PIN_EXIT.error
    : unapproved
      ? PIN_EXIT.someNotPinned
      : PIN_EXIT.allPinned;
}

function pinJson(results: SectionResult[], pinFile: string, exitCode: number, extra = {}) {
  return {
    pinFile,
    exitCode,
    ...extra,
    servers: results.map((r) => ({
      server: r.server,
      source: r.source,
      written: r.written,
      ...(r.error !== undefined ? { error: r.error } : {}),
      ...(r.code !== undefined ? { code: r.code } : {}),
      tools: r.tools.map((t) => ({
        ...toolReviewJson(t.review),
        outcome: t.outcome,
        scan: t.scan ? { grade: t.scan.grade, findings: t.scan.findings } : null,
      })),
      pruned: r.pruned,
      missing: r.missing,
    })),
  };
}

/** Ctrl-C: nothing was written; say so in the chosen format. */
function reportInterrupted(results: SectionResult[], options: PinCliOptions): number {
  const exitCode = PIN_EXIT.interrupted;
  process.stderr.write(
    `airlock pin: interrupted (Ctrl-C): nothing was written to ${printable(options.pins)}\n`,
  );
  if (options.output === "json") {
    writeJson(pinJson(results, options.pins, exitCode, { interrupted: true }));
  } else if (options.output === "markdown") {
    process.stdout.write(
      formatPinMarkdown(results, { pinFile: options.pins, exitCode, interrupted: true }),
    );
  }
  return exitCode;
}

/** Review one section; what to write is returned, not written (see runPin). */
async function reviewSection(
  target: Target,
  file: PinFile | null,
  options: PinCliOptions,
  ui: ReviewUi,
): Promise<{ result: SectionResult; write?: Omit<PendingWrite, "index"> }> {
  const result: SectionResult = {
    server: target.section,
    source: target.source ? describeSource(target.source) : null,
    written: false,
    tools: [],
    pruned: [],
    missing: [],
  };
  if (!target.source) return { result: { ...result, error: target.problem ?? "no source" } };
  const hasSection = file !== null && Object.hasOwn(file.servers, target.section);
  // The section as this review read it: the write refuses if it moved on disk meanwhile.
  const base = hasSection ? file!.servers[target.section] : undefined;
  let guard: ToolDefinitionPinGuard;
  let tools: unknown[];
  try {
    guard = hasSection
      ? guardFromPinFile(file!, { server: target.section })
      : new ToolDefinitionPinGuard();
    progressLine(`pinning section ${JSON.stringify(target.section)}`);
    tools = (
      await listToolsFrom(target.source, {
        maxPages: options.maxPages,
        timeoutMs: options.timeout,
        progress: progressLine,
      })
    ).tools;
  } catch (err) {
    return { result: { ...result, error: (err as Error).message } };
  }
  const review = reviewListing(guard, tools);
  result.missing = review.missing;
  const scans = await scanByName(tools, options.policy);
  const reapprove = new Set(options.reapprove ?? []);
  let approveRestOfNew = false;
  for (const item of review.tools) {
    const scan = item.name !== null ? scans.get(item.name) : undefined;
    let outcome: PinOutcome;
    if (item.status === "pinned") outcome = "already_pinned";
    else if (item.status === "duplicate" || item.status === "unreadable") {
      outcome = item.status;
      show(renderToolReview(item, ui.c), ui);
    } else {
      const drift = item.status === "drift";
      let yes = false;
      if (ui.interactive && !ui.quit && !(approveRestOfNew && !drift)) {
        await pageLines(reviewScreen(item, scan, ui.c), terminalOf(process.stderr));
        const key = await askApproval(item, drift, ui.c);
        if (key === "q") ui.quit = true;
        if (key === "a") approveRestOfNew = true;
        yes = key === "y" || key === "a";
      } else {
        show(reviewScreen(item, scan, ui.c), ui);
        if (ui.interactive) yes = !drift && approveRestOfNew && !ui.quit;
        else if (options.yes) yes = drift ? item.name !== null && reapprove.has(item.name) : true;
      }
      if (yes) {
        guard.approve(item.definition);
        outcome = drift ? "reapproved" : "approved";
      } else {
        outcome = drift ? "drift_not_reapproved" : "declined";
      }
    }
    result.tools.push({ review: item, outcome, scan });
  }
  if (options.prune) {
    for (const name of review.missing) {
      if ((ui.interactive || options.yes) && guard.revoke(name)) result.pruned.push(name);
    }
  }
  const changed =
    result.tools.some((t) => t.outcome === "approved" || t.outcome === "reapproved") ||
    result.pruned.length > 0 ||
    (!hasSection && (ui.interactive || options.yes === true));
  return changed ? { result, write: { guard, target, base } } : { result };
}

/** Print without paging: on stderr on a terminal, on stdout in a text run, nowhere for a report. */
function show(lines: string[], ui: ReviewUi): void {
  if (ui.interactive) process.stderr.write(`${lines.join("\n")}\n`);
  else if (!ui.report) process.stdout.write(`${lines.join("\n")}\n`);
}

/**
 * Ask about one tool until the answer decides: `v` shows the whole definition and asks
 * again. Enter (or anything else) declines; end of input quits.
 */
async function askApproval(
  item: ToolReview,
  drift: boolean,
  c: Palette,
): Promise<"y" | "n" | "a" | "q"> {
  const shown = printable(JSON.stringify(item.name));
  const question = drift
    ? `Re-approve the CHANGED tool ${shown}? [y/N/v=view whole/q] `
    : `Approve ${shown}? [y/N/a=all new/v=view whole/q] `;
  for (;;) {
    const answer = await askLine(question);
    if (answer === null) return "q";
    const key = answer.trim().toLowerCase();
    if (key === "v" || key === "view") {
      await pageLines(wholeDefinition(item.definition, c), terminalOf(process.stderr));
      continue;
    }
    if (key === "y" || key === "yes") return "y";
    if (key === "a" && !drift) return "a";
    if (key === "q") return "q";
    return "n";
  }
}

/**
 * Write the reviewed section under the pin file's lock: into the file as it is now, so
 * another run's sections are kept; if this section itself moved since the review read
 * it (`base`), nothing is written (the review was of other pins), unless it already holds
 * exactly this run's change.
 */
async function writeSection(
  result: SectionResult,
  guard: ToolDefinitionPinGuard,
  target: Target,
  base: PinFileServer | undefined,
  known: PinFileRead | null,
  pins: string,
): Promise<{ result: SectionResult; read?: PinFileRead }> {
  const record = target.source ? sourceRecord(target.source) : undefined;
  const withThisSection = (into: PinFile | null): PinFile => {
    const next = pinFileFromGuard(guard, { server: target.section, ...(into ? { into } : {}) });
    if (record) next.servers[target.section]!.source = record;
    return next;
  };
  const wanted = withThisSection(known?.file ?? null).servers[target.section];
  const update = (current: PinFile | null): PinFile => {
    const now =
      current !== null && Object.hasOwn(current.servers, target.section)
        ? current.servers[target.section]
        : undefined;
    if (!sameSection(now, base) && !sameSection(now, wanted)) {
      throw new PinFileError(
        "PIN_FILE_CONFLICT",
        `pin file ${pins}: section ${JSON.stringify(target.section)} changed on disk since this run read it (another writer approved, re-approved or pruned tools there); nothing was written for it: run airlock pin again to review against the new pins`,
      );
    }
    return withThisSection(current);
  };
  try {
    const written = await updatePinFileFrom(pins, update, {}, known);
    return { result: { ...result, written: written.written }, read: written.read };
  } catch (err) {
    const code = err instanceof AirlockError ? err.code : undefined;
    return { result: { ...result, error: (err as Error).message, ...(code ? { code } : {}) } };
  }
}

/** Whether two versions of a section are the same pins and source. */
function sameSection(a: PinFileServer | undefined, b: PinFileServer | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  const text = (s: PinFileServer) => serializePinFile({ version: 1, servers: { s } });
  return text(a) === text(b);
}

async function scanByName(tools: unknown[], policy: string): Promise<Map<string, TargetResult>> {
  const map = new Map<string, TargetResult>();
  try {
    const [{ scanTools }, { resolvePolicy }] = await Promise.all([
      import("../../scan/scan.js"),
      import("../../scan/policy.js"),
    ]);
    const report = scanTools(tools, resolvePolicy(policy), { policyName: policy });
    for (const result of report.results) {
      if (result.kind === "tool" && !map.has(result.name)) map.set(result.name, result);
    }
  } catch (err) {
    progressLine(`scan-tools could not scan this listing: ${(err as Error).message}`);
  }
  return map;
}

function summaryText(r: SectionResult, pins: string, c: Palette): string {
  const lines = [
    `${c.bold(`server ${printable(JSON.stringify(r.server))}`)}${r.source ? c.dim(` (${printable(r.source)})`) : ""}`,
  ];
  if (r.error !== undefined) {
    lines.push(
      `  ${c.red("ERROR")} ${printable(r.error)}${r.code !== undefined ? ` (${r.code})` : ""}`,
      "",
    );
    return `${lines.join("\n")}\n`;
  }
  const count = (o: PinOutcome) => r.tools.filter((t) => t.outcome === o).length;
  lines.push(
    `  ${r.tools.length} listed: ${count("already_pinned")} already pinned, ${count("approved")} approved, ${count("reapproved")} re-approved` +
      `, ${count("declined")} declined, ${count("drift_not_reapproved")} changed and not re-approved, ${count("duplicate") + count("unreadable")} not pinnable`,
  );
  for (const t of r.tools) {
    if (t.outcome === "drift_not_reapproved" || t.outcome === "declined") {
      lines.push(
        c.red(
          `  not pinned: ${printable(t.review.name ?? "?")} (${t.outcome === "declined" ? "declined" : "changed; re-approve it to accept the change"})`,
        ),
      );
    }
  }
  if (r.pruned.length > 0) lines.push(`  pruned: ${r.pruned.map((n) => printable(n)).join(", ")}`);
  if (r.missing.length > 0 && r.pruned.length === 0) {
    lines.push(
      c.dim(
        `  pinned but no longer listed (kept; --prune removes them): ${r.missing.map((n) => printable(n)).join(", ")}`,
      ),
    );
  }
  lines.push(r.written ? c.green(`  written to ${pins}`) : c.dim(`  ${pins} not changed`), "");
  return `${lines.join("\n")}\n`;
}
