import type { Command } from "commander";
import { DEFAULT_PIN_FILE, guardFromPinFile } from "../../pins/pin-file.js";
import { readPinFile } from "../../pins/pin-file-io.js";
import { listToolsFrom } from "../connect.js";
import { paletteFor, printable, progressLine, type ReportFormat, writeJson } from "../output.js";
import { type CheckServer, formatCheckMarkdown } from "../report-markdown.js";
import { renderToolReview, reviewListing, toolReviewJson } from "../review.js";
import {
  addServerSourceOptions,
  describeSource,
  resolveTargets,
  type Target,
  type TargetOptions,
} from "../targets.js";

/** Exit codes of `airlock check` (identical for text and JSON output). */
export const CHECK_EXIT = {
  /** Every listed tool of every server is admitted by the pins. */
  clean: 0,
  /** Drift, unpinned, duplicate or unreadable tools; or a server, pin file or config that could not be read. */
  refused: 2,
} as const;

interface CheckCliOptions extends TargetOptions {
  pins: string;
  output: ReportFormat;
  maxPages: number;
  timeout: number;
}

/** One server's outcome. */
type ServerCheck = CheckServer;

/**
 * Registers `airlock check`: compare what servers list now with the pin file. For CI and
 * cron; exit 0 when everything listed is admitted, 2 otherwise.
 *
 * @example
 * ```ts
 * import { Command } from "commander";
 * import { registerCheck } from "./check.js";
 * const program = new Command("airlock");
 * registerCheck(program);
 * await program.parseAsync(["node", "airlock", "check", "--pins", "airlock.pins.json", "--from", "tools.json"]);
 * ```
 */
export function registerCheck(program: Command): void {
  const command = program
    .command("check")
    // Usage errors must reach main() (exit 2), not exit the process with commander's 1.
    .exitOverride()
    .description(
      "Compare servers' tools with the pin file (for CI): exit 0 when all are admitted, 2 on drift, unpinned or duplicate tools",
    )
    .usage("[options] [-- COMMAND ARGS...]")
    .option("--pins <file>", "pin file", DEFAULT_PIN_FILE)
    .option("--server <name>", "pin-file section (default: the only one, or every recorded server)")
    .option("--config <path>", "check every server of an MCP client config");
  addServerSourceOptions(command, { markdown: true })
    .addHelpText(
      "after",
      `
Where the tools come from (one of):
  -- COMMAND ARGS...   start the server over stdio
  --url URL            Streamable HTTP
  --from FILE          a saved tools/list answer (any listing shape)
  --config PATH        every server of a Claude Desktop / Claude Code / Cursor / VS Code config
  (none)               every pin-file section that records its source ("airlock pin" records it)

--output markdown prints a report to paste into a pull request or a ticket.

Exit codes: 0 every listed tool is admitted; 2 drift, unpinned, duplicate or unreadable
tools, or a server, pin file or config that could not be read. Same codes for every --output.`,
    )
    .action(async (command: string[], options: CheckCliOptions) => {
      process.exitCode = await runCheck(command, options);
    });
}

async function runCheck(command: string[], options: CheckCliOptions): Promise<number> {
  const json = options.output === "json";
  const fail = (message: string) => {
    if (json)
      writeJson({
        pinFile: options.pins,
        ok: false,
        exitCode: CHECK_EXIT.refused,
        error: message,
        servers: [],
      });
    else process.stderr.write(`airlock check: ${printable(message)}\n`);
    if (options.output === "markdown") {
      process.stdout.write(
        formatCheckMarkdown([], {
          pinFile: options.pins,
          exitCode: CHECK_EXIT.refused,
          error: message,
        }),
      );
    }
    return CHECK_EXIT.refused;
  };
  let pinFile: Awaited<ReturnType<typeof readPinFile>>;
  try {
    pinFile = await readPinFile(options.pins);
  } catch (err) {
    return fail((err as Error).message);
  }
  let targets: Target[];
  try {
    targets = resolveTargets(options, command, pinFile);
  } catch (err) {
    return fail((err as Error).message);
  }
  if (targets.length === 0) return fail("nothing to check: the pin file has no server sections");
  const maxPages = options.maxPages;
  const timeoutMs = options.timeout;
  const results: ServerCheck[] = [];
  for (const target of targets) {
    results.push(await checkOne(target, pinFile, { maxPages, timeoutMs }));
  }
  const ok = results.every((r) => r.status === "ok");
  const exitCode = ok ? CHECK_EXIT.clean : CHECK_EXIT.refused;
  if (json) {
    writeJson({
      pinFile: options.pins,
      ok,
      exitCode,
      servers: results.map((r) => ({
        server: r.server,
        source: r.source,
        status: r.status,
        ...(r.error !== undefined ? { error: r.error } : {}),
        ...(r.review
          ? {
              listed: r.review.tools.length,
              admitted: r.review.tools.filter((t) => t.status === "pinned").map((t) => t.name),
              tools: r.review.tools.map(toolReviewJson),
              missing: r.review.missing,
            }
          : {}),
      })),
    });
  } else if (options.output === "markdown") {
    process.stdout.write(formatCheckMarkdown(results, { pinFile: options.pins, exitCode }));
  } else {
    process.stdout.write(renderText(results, ok));
  }
  return exitCode;
}

async function checkOne(
  target: Target,
  pinFile: Parameters<typeof guardFromPinFile>[0],
  limits: { maxPages: number; timeoutMs: number },
): Promise<ServerCheck> {
  const base = {
    server: target.section,
    source: target.source ? describeSource(target.source) : null,
  };
  if (!target.source) return { ...base, status: "error", error: target.problem ?? "no source" };
  let guard: ReturnType<typeof guardFromPinFile>;
  try {
    guard = guardFromPinFile(pinFile, { server: target.section });
  } catch (err) {
    return { ...base, status: "error", error: (err as Error).message };
  }
  try {
    progressLine(`checking ${target.section}`);
    const listed = await listToolsFrom(target.source, { ...limits, progress: progressLine });
    const review = reviewListing(guard, listed.tools);
    return { ...base, status: review.clean ? "ok" : "refused", review };
  } catch (err) {
    return { ...base, status: "error", error: (err as Error).message };
  }
}

function renderText(results: ServerCheck[], ok: boolean): string {
  const c = paletteFor(process.stdout);
  const lines: string[] = [];
  for (const result of results) {
    const where = result.source ? c.dim(` (${printable(result.source)})`) : "";
    lines.push(`${c.bold(`server ${printable(JSON.stringify(result.server))}`)}${where}`);
    if (result.status === "error") {
      lines.push(`  ${c.red("ERROR")}      ${printable(result.error ?? "")}`);
      lines.push("");
      continue;
    }
    const review = result.review!;
    const admitted = review.tools.filter((t) => t.status === "pinned").length;
    const refused = review.tools.length - admitted;
    lines.push(
      `  ${review.tools.length} listed, ${admitted} admitted${refused > 0 ? `, ${c.red(`${refused} refused`)}` : ""}`,
    );
    for (const tool of review.tools) {
      if (tool.status !== "pinned") lines.push(...renderToolReview(tool, c));
    }
    if (review.missing.length > 0) {
      lines.push(
        c.dim(
          `  pinned but not listed (refuses nothing): ${review.missing.map((n) => printable(n)).join(", ")}`,
        ),
      );
    }
    lines.push("");
  }
  const bad = results.filter((r) => r.status !== "ok").length;
  lines.push(
    ok
      ? c.green(`OK: every listed tool of ${results.length} server(s) is admitted by the pins`)
      : c.red(`FAIL: ${bad} of ${results.length} server(s) not clean (exit ${CHECK_EXIT.refused})`),
  );
  return `${lines.join("\n")}\n`;
}
