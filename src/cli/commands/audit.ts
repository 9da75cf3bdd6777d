/**
 * `airlock audit [FILE]`: read an `airlock proxy` audit log back (a file, or stdin) and
 * summarise it per server and tool (allowed, refused by verdict, would be refused in
 * observe mode), with filters, in bounded memory whatever the file holds. Exit codes,
 * identical for every `--output`: 0 no refusal among the matched records, 1 some, 2 the
 * log could not be read or a usage error.
 */
import { closeSync, constants, createReadStream, fstatSync, openSync } from "node:fs";
import type { Readable } from "node:stream";
import { type Command, InvalidArgumentError, Option } from "commander";
import type { AuditReadStats } from "../../proxy/audit-reader.js";
import type { AuditFilter, AuditSummaryResult } from "../../proxy/audit-summary.js";
import {
  type OutputFormat,
  paletteFor,
  parseOutputFormat,
  positiveInteger,
  printable,
  writeJson,
} from "../output.js";
import { formatAuditText } from "./audit-format.js";

/** Exit codes of `airlock audit`. */
export const AUDIT_EXIT = {
  /** Read; no refusal (nor would-be refusal) among the matched records. */
  clean: 0,
  /** Read; at least one matched record is a refusal or, in observe mode, a would-be refusal. */
  refusals: 1,
  /** Not read: usage error, a file that is missing, not a regular file, or fails while read. */
  error: 2,
} as const;

/** Most refusals `--limit` lists. */
const MAX_LIMIT = 10_000;

interface AuditCliOptions {
  server?: string;
  tool?: string;
  refused?: boolean;
  since?: number;
  limit: number;
  maxLineBytes: number;
  output: OutputFormat;
}

/**
 * Registers `airlock audit`.
 *
 * @example
 * ```ts
 * import { Command } from "commander";
 * import { registerAudit } from "./audit.js";
 * const program = new Command("airlock");
 * registerAudit(program);
 * // airlock audit ~/airlock-audit.jsonl --refused --since 1d
 * ```
 */
export function registerAudit(program: Command): void {
  program
    .command("audit")
    // Usage errors must reach main() (exit 2), not exit the process with commander's 1.
    .exitOverride()
    .description("Summarise an airlock proxy audit log: per server and tool, allowed and refused")
    .argument("[file]", "the audit log (JSON lines); - or nothing for stdin")
    .option("--server <name>", "only this pin-file section")
    .option("--tool <name>", "only decisions about this tool")
    .option("--refused", "only refusals (and would-be refusals of --observe); list the last ones")
    .addOption(
      new Option(
        "--since <time>",
        "only records from then: ISO 8601, epoch seconds, or 30m, 12h, 7d ago",
      ).argParser(parseSince),
    )
    .addOption(
      new Option("--limit <n>", `refusals --refused lists, 0 to ${MAX_LIMIT}`)
        .default(50)
        .argParser(parseLimit),
    )
    .option(
      "--max-line-bytes <n>",
      "longer lines are skipped and counted",
      positiveInteger,
      1024 * 1024,
    )
    .addOption(
      new Option("--output <format>", "text or json").default("text").argParser(parseOutputFormat),
    )
    .addHelpText(
      "after",
      `
Reads the log line by line: a line over --max-line-bytes, a line that is not JSON, or a
JSON line that is not an audit record (no "event", no "time") is skipped and counted,
never fatal. A record counts as allowed ("allowed": true), refused ("allowed": false, or
a listing_refused, request_refused, response_dropped or proxy_refused line), or would be
refused (the same with "enforced": false, written by airlock proxy --observe).

Exit codes (identical for every --output):
  0  read; no refusal among the matched records
  1  read; at least one refusal (or would-be refusal) matched
  2  usage error, or the log cannot be read (missing, not a regular file, I/O error)`,
    )
    .action(async (file: string | undefined, options: AuditCliOptions) => {
      process.exitCode = await runAudit(file, options);
    });
}

async function runAudit(file: string | undefined, options: AuditCliOptions): Promise<number> {
  const json = options.output === "json";
  const fail = (message: string) => {
    if (json) writeJson({ exitCode: AUDIT_EXIT.error, error: message });
    else process.stderr.write(`airlock audit: ${printable(message)}\n`);
    return AUDIT_EXIT.error;
  };
  const fromStdin = file === undefined || file === "-";
  if (fromStdin && process.stdin.isTTY) {
    return fail("give the audit log: airlock audit FILE (or pipe it in)");
  }
  let input: Readable;
  try {
    input = fromStdin ? process.stdin : openLog(file);
  } catch (err) {
    return fail((err as Error).message);
  }
  const [{ readAuditLog }, { AuditSummary }] = await Promise.all([
    import("../../proxy/audit-reader.js"),
    import("../../proxy/audit-summary.js"),
  ]);
  const filter: AuditFilter = {
    ...(options.server !== undefined && { server: options.server }),
    ...(options.tool !== undefined && { tool: options.tool }),
    ...(options.refused === true && { refused: true }),
    ...(options.since !== undefined && { sinceMs: options.since }),
  };
  const summary = new AuditSummary(filter, options.refused === true ? options.limit : 0);
  let stats: AuditReadStats;
  try {
    stats = await readAuditLog(input, (record) => summary.add(record), {
      maxLineBytes: options.maxLineBytes,
    });
  } catch (err) {
    return fail(`reading ${fromStdin ? "stdin" : file} failed: ${(err as Error).message}`);
  }
  return report(fromStdin ? "stdin" : (file as string), filter, stats, summary.result(), options);
}

/** Print the summary in the chosen format; the exit code depends on the records alone. */
function report(
  source: string,
  filter: AuditFilter,
  stats: AuditReadStats,
  result: AuditSummaryResult,
  options: AuditCliOptions,
): number {
  const exitCode =
    result.refusals + result.wouldRefuse > 0 ? AUDIT_EXIT.refusals : AUDIT_EXIT.clean;
  const skipped = stats.oversized + stats.notJson + stats.notRecord;
  if (skipped > 0) {
    process.stderr.write(
      `airlock audit: ${skipped} line(s) skipped: ${stats.oversized} over ${options.maxLineBytes} bytes, ${stats.notJson} not JSON, ${stats.notRecord} not audit records\n`,
    );
  }
  if (options.output === "json") {
    writeJson({
      exitCode,
      log: source,
      filter: jsonFilter(filter),
      read: stats,
      ...withoutRecent(result, options),
    });
  } else {
    process.stdout.write(
      formatAuditText(source, stats, result, {
        palette: paletteFor(process.stdout),
        listRefusals: options.refused === true,
        maxLineBytes: options.maxLineBytes,
      }),
    );
  }
  return exitCode;
}

/** Open a log file: a regular file only (a FIFO or a device is refused, never waited on). */
function openLog(path: string): Readable {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (err) {
    throw new Error(
      `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  if (!fstatSync(fd).isFile()) {
    closeSync(fd);
    throw new Error(`${path} is not a regular file`);
  }
  return createReadStream("", { fd });
}

function withoutRecent(
  result: AuditSummaryResult,
  options: AuditCliOptions,
): Partial<AuditSummaryResult> {
  if (options.refused === true) return result;
  const { recent: _recent, ...rest } = result;
  return rest;
}

function jsonFilter(filter: AuditFilter): Record<string, unknown> {
  const { sinceMs, ...rest } = filter;
  return sinceMs === undefined ? rest : { ...rest, since: new Date(sinceMs).toISOString() };
}

const AGO = /^(\d{1,9})(m|h|d)$/;
const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `--since`: an ISO 8601 date, epoch seconds, or a duration ago (`30m`, `12h`, `7d`). */
function parseSince(text: string): number {
  const ago = AGO.exec(text.trim());
  if (ago) return Date.now() - Number(ago[1]) * UNIT_MS[ago[2] as keyof typeof UNIT_MS];
  if (/^\d{1,12}$/.test(text.trim())) return Number(text.trim()) * 1000;
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) {
    throw new InvalidArgumentError(
      `expected an ISO 8601 date, epoch seconds, or 30m, 12h, 7d; got ${JSON.stringify(text)}`,
    );
  }
  return ms;
}

function parseLimit(text: string): number {
  const n = Number(text);
  if (!/^\d{1,5}$/.test(text) || n > MAX_LIMIT) {
    throw new InvalidArgumentError(`expected 0 to ${MAX_LIMIT}, got ${JSON.stringify(text)}`);
  }
  return n;
}
