import type { Command } from "commander";
import { DEFAULT_PIN_FILE, guardFromPinFile } from "../../pins/pin-file.js";
import { readPinFile } from "../../pins/pin-file-io.js";
import type { openAuditLog } from "../../proxy/audit-log.js";
import type { Upstream } from "../../proxy/upstream.js";
import { positiveInteger, printable } from "../output.js";
import { parseHeaders } from "../targets.js";

/** Exit codes of `airlock proxy`. */
export const PROXY_EXIT = {
  /** The client closed the connection (the normal end). */
  clientClosed: 0,
  /** The real server exited, crashed, misbehaved or could not be reached. */
  upstreamFailed: 1,
  /** Not started: usage error, unreadable pin file, unknown server section. */
  notStarted: 2,
} as const;

interface ProxyCliOptions {
  pins: string;
  server?: string;
  auditLog?: string;
  url?: string;
  sse?: boolean;
  header?: string[];
  maxMessageBytes: number;
  maxPages: number;
  listTimeout: number;
  relistBeforeEachCall?: boolean;
}

/**
 * Registers `airlock proxy`: a stdio MCP server a client launches in place of the real
 * one. It starts the real server (or connects to `--url`), forwards every message, and
 * enforces the pins on every `tools/list` page and `tools/call`.
 *
 * @example
 * ```ts
 * import { Command } from "commander";
 * import { registerProxy } from "./proxy.js";
 * const program = new Command("airlock");
 * registerProxy(program);
 * // airlock proxy --pins airlock.pins.json --server everything -- npx -y @modelcontextprotocol/server-everything
 * ```
 */
export function registerProxy(program: Command): void {
  program
    .command("proxy")
    // Usage errors must reach main() (exit 2), not exit the process with commander's 1.
    .exitOverride()
    .description(
      "Run an MCP server behind the pins: a stdio MCP server that forwards to the real one",
    )
    .usage("--pins FILE [--server NAME] [--audit-log FILE] (-- COMMAND ARGS... | --url URL)")
    .option("--pins <file>", "pin file", DEFAULT_PIN_FILE)
    .option("--server <name>", "pin-file section (default: the only one)")
    .option("--audit-log <file>", "append one JSON line per decision to this file")
    .option("--url <url>", "a remote Streamable HTTP server instead of a command")
    .option("--sse", "--url is a legacy HTTP+SSE server (its event-stream URL)")
    .option("--header <header...>", 'HTTP header for --url, "Name: value"')
    .option(
      "--max-message-bytes <n>",
      "largest message accepted from either side",
      positiveInteger,
      64 * 1024 * 1024,
    )
    .option("--max-pages <n>", "page cap of the proxy's own listings", positiveInteger, 100)
    .option(
      "--list-timeout <ms>",
      "how long to wait for the server's tools/list",
      positiveInteger,
      30_000,
    )
    .option(
      "--relist-before-each-call",
      "list the server again before every tools/call (strict, slower)",
    )
    .argument("[command...]", "the real server's command line, after --")
    .addHelpText(
      "after",
      `
What it does: every message is forwarded unchanged, except that each tools/list page only
carries tools the pins admit, and a tools/call of any other tool is answered with an
error result starting "AIRLOCK_BLOCK:" without reaching the server. The proxy lists the
server itself after initialization and on every notifications/tools/list_changed, and
holds calls until that check is done. Prompts, resources, notifications, progress and
cancellation pass through untouched. Diagnostics go to stderr.

Exit codes: 0 the client closed the connection; 1 the real server exited, crashed,
misbehaved (malformed JSON, oversized message) or could not be reached (every waiting
request was answered with an error first); 2 not started (usage, pin file, section).`,
    )
    .action(async (command: string[], options: ProxyCliOptions) => {
      process.exitCode = await runProxy(command, options);
    });
}

async function runProxy(command: string[], options: ProxyCliOptions): Promise<number> {
  const [{ openAuditLog }, { connectHttpUpstream }, { runPinProxy }, { spawnStdioUpstream }] =
    await Promise.all([
      import("../../proxy/audit-log.js"),
      import("../../proxy/http-upstream.js"),
      import("../../proxy/pin-proxy.js"),
      import("../../proxy/stdio-upstream.js"),
    ]);
  const fail = (message: string) => {
    process.stderr.write(`airlock proxy: ${printable(message)}\n`);
    return PROXY_EXIT.notStarted;
  };
  if (command.length > 0 === (options.url !== undefined)) {
    return fail("give the real server as -- COMMAND ARGS... or --url URL (exactly one)");
  }
  if (options.sse === true && options.url === undefined) return fail("--sse needs --url");
  const { maxMessageBytes, maxPages } = options;
  const listTimeoutMs = options.listTimeout;
  let guard: ReturnType<typeof guardFromPinFile>;
  let section: string;
  try {
    const file = await readPinFile(options.pins);
    guard = guardFromPinFile(file, options.server === undefined ? {} : { server: options.server });
    section = options.server ?? Object.keys(file.servers)[0]!;
  } catch (err) {
    return fail((err as Error).message);
  }
  let audit: ReturnType<typeof openAuditLog> | undefined;
  try {
    if (options.auditLog) audit = openAuditLog(options.auditLog);
  } catch (err) {
    return fail(`cannot open the audit log: ${(err as Error).message}`);
  }
  let upstream: Upstream;
  try {
    upstream =
      options.url !== undefined
        ? connectHttpUpstream({
            url: options.url,
            ...withHeaders(parseHeaders(options.header ?? [])),
            ...(options.sse === true ? { transport: "sse" as const } : {}),
          })
        : spawnStdioUpstream({ command: command[0]!, args: command.slice(1), maxMessageBytes });
  } catch (err) {
    audit?.close();
    return fail((err as Error).message);
  }
  const proxy = runPinProxy({
    guard,
    upstream,
    client: { input: process.stdin, output: process.stdout },
    server: section,
    ...(audit ? { audit: audit.write } : {}),
    maxPages,
    listTimeoutMs,
    maxMessageBytes,
    relistBeforeEachCall: options.relistBeforeEachCall === true,
  });
  const stopOnSignal = () => void proxy.stop();
  process.once("SIGTERM", stopOnSignal);
  process.once("SIGINT", stopOnSignal);
  const outcome = await proxy.done;
  process.off("SIGTERM", stopOnSignal);
  process.off("SIGINT", stopOnSignal);
  audit?.close();
  // Let the process end: nothing more will be read from the client.
  process.stdin.destroy();
  return outcome.reason === "client_closed" || outcome.reason === "stopped"
    ? PROXY_EXIT.clientClosed
    : PROXY_EXIT.upstreamFailed;
}

function withHeaders(headers: Record<string, string> | undefined): {
  headers?: Record<string, string>;
} {
  return headers ? { headers } : {};
}
