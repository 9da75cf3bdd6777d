/**
 * `airlock proxy`: the command line of the pinning stdio MCP proxy. Reads its settings
 * (pins, delegation, the real server), refuses to start with a reason the client can
 * read when one of them cannot be used, and runs the proxy until the client leaves.
 */
import type { Command } from "commander";
import { DEFAULT_PIN_FILE, guardFromPinFile } from "../../pins/pin-file.js";
import { readPinFile } from "../../pins/pin-file-io.js";
import type { AuditSink } from "../../proxy/audit-log.js";
import type { PinProxyOptions } from "../../proxy/types.js";
import type { Upstream } from "../../proxy/upstream.js";
import { printable } from "../output.js";
import { parseHeaders } from "../targets.js";
import { UsageError } from "./delegate-input.js";
import { type DelegationFlags, type OpenedDelegation, openDelegation } from "./proxy-delegation.js";
import { addProxyPassThrough } from "./proxy-options.js";

/** Exit codes of `airlock proxy`. */
export const PROXY_EXIT = {
  /** The client closed the connection (the normal end). */
  clientClosed: 0,
  /** The real server exited, crashed, misbehaved or could not be reached. */
  upstreamFailed: 1,
  /** Not started: usage error, unreadable pin file, unknown section, unusable delegation settings. */
  notStarted: 2,
} as const;

interface ProxyCliOptions extends DelegationFlags {
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
  observe?: boolean;
}

/** Why the proxy did not start: a code for the audit line, a sentence for everyone. */
class StartRefused extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

/** What the proxy runs with, once every setting has been read. */
interface ProxySettings {
  proxy: Omit<PinProxyOptions, "client" | "audit" | "log">;
  delegation: OpenedDelegation | undefined;
}

/**
 * Registers `airlock proxy`: a stdio MCP server a client launches in place of the real
 * one. It starts the real server (or connects to `--url`), forwards every message, and
 * enforces the pins on every `tools/list` page and `tools/call` (and, with `--agent`,
 * the agent's delegation on every call).
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
  const command = program
    .command("proxy")
    // Usage errors must reach main() (exit 2), not exit the process with commander's 1.
    .exitOverride()
    .description(
      "Run an MCP server behind the pins: a stdio MCP server that forwards to the real one",
    )
    .usage(
      "--pins FILE [--server NAME] [--audit-log FILE] [--observe] [--agent DID --root DID (--chain FILE | --registry TARGET | --didis-url URL)] (-- COMMAND ARGS... | --url URL)",
    )
    .option("--pins <file>", "pin file", DEFAULT_PIN_FILE)
    .option("--server <name>", "pin-file section (default: the only one)")
    .option("--audit-log <file>", "append one JSON line per decision to this file")
    .option("--url <url>", "a remote Streamable HTTP server instead of a command")
    .option("--sse", "--url is a legacy HTTP+SSE server (its event-stream URL)")
    .option("--header <header...>", 'HTTP header for --url, "Name: value"');
  addProxyPassThrough(command, { defaults: true })
    .argument("[command...]", "the real server's command line, after --")
    .addHelpText(
      "after",
      `
What it does: every message is forwarded unchanged, except that each tools/list page only
carries tools the pins admit, and a tools/call of any other tool is answered with an
error result starting "AIRLOCK_BLOCK: tool ... is not admitted (VERDICT): REASON" without
reaching the server. The proxy lists the server itself after initialization and on every
notifications/tools/list_changed, and holds calls until that check is done. Prompts,
resources, notifications, progress and cancellation pass through untouched. Diagnostics
go to stderr.

Delegation: with --agent, --root and one chain source (--chain, --registry or
--didis-url), a call the pins admit is forwarded only when the agent's signed delegation
chain from a trusted root grants the tool's capability (the tool name, or its entry in
--capabilities). A verifier that cannot answer refuses the call (GUARD_UNAVAILABLE).

--observe: nothing is blocked; what would be refused is logged to stderr and to the audit
log (every line "observe": true). Not enforcement: use it to try pins or delegation first.

Exit codes: 0 the client closed the connection; 1 the real server exited, crashed,
misbehaved (malformed JSON, oversized message) or could not be reached (every waiting
request was answered with an error first); 2 not started (usage, pin file, section,
delegation settings): the client's initialize is answered with an error naming why.`,
    )
    .action(async (args: string[], options: ProxyCliOptions) => {
      process.exitCode = await runProxy(args, options);
    });
}

async function runProxy(args: string[], options: ProxyCliOptions): Promise<number> {
  const { openAuditLog } = await import("../../proxy/audit-log.js");
  let audit: ReturnType<typeof openAuditLog> | undefined;
  try {
    if (options.auditLog) audit = openAuditLog(options.auditLog);
  } catch (err) {
    return refuseStart(
      options,
      undefined,
      new StartRefused("audit_log", `cannot open the audit log: ${(err as Error).message}`),
    );
  }
  let settings: ProxySettings;
  try {
    settings = await readSettings(args, options);
  } catch (err) {
    const refused =
      err instanceof StartRefused ? err : new StartRefused(codeOf(err), messageOf(err));
    const code = await refuseStart(options, audit?.write, refused);
    audit?.close();
    return code;
  }
  try {
    return await serve(settings, audit?.write);
  } finally {
    audit?.close();
    await settings.delegation?.close().catch(() => {});
  }
}

/** Every setting, read and checked before anything starts. */
async function readSettings(args: string[], options: ProxyCliOptions): Promise<ProxySettings> {
  if (args.length > 0 === (options.url !== undefined)) {
    throw new StartRefused(
      "usage",
      "give the real server as -- COMMAND ARGS... or --url URL (exactly one)",
    );
  }
  if (options.sse === true && options.url === undefined) {
    throw new StartRefused("usage", "--sse needs --url");
  }
  const file = await readPinFile(options.pins);
  const guard = guardFromPinFile(file, {
    ...(options.server !== undefined && { server: options.server }),
    enforce: options.observe !== true,
  });
  const section = options.server ?? Object.keys(file.servers)[0]!;
  const delegation = await openDelegation(options);
  try {
    return {
      proxy: {
        guard,
        upstream: await openUpstream(args, options),
        server: section,
        maxPages: options.maxPages,
        listTimeoutMs: options.listTimeout,
        maxMessageBytes: options.maxMessageBytes,
        relistBeforeEachCall: options.relistBeforeEachCall === true,
        observe: options.observe === true,
        ...(delegation && { delegation: delegation.gate }),
      },
      delegation,
    };
  } catch (err) {
    await delegation?.close().catch(() => {});
    throw err;
  }
}

async function openUpstream(args: string[], options: ProxyCliOptions): Promise<Upstream> {
  if (options.url !== undefined) {
    const { connectHttpUpstream } = await import("../../proxy/http-upstream.js");
    const headers = parseHeaders(options.header ?? []);
    return connectHttpUpstream({
      url: options.url,
      ...(headers && { headers }),
      ...(options.sse === true ? { transport: "sse" as const } : {}),
    });
  }
  const { spawnStdioUpstream } = await import("../../proxy/stdio-upstream.js");
  return spawnStdioUpstream({
    command: args[0]!,
    args: args.slice(1),
    maxMessageBytes: options.maxMessageBytes,
  });
}

async function serve(settings: ProxySettings, audit: AuditSink | undefined): Promise<number> {
  const { runPinProxy } = await import("../../proxy/pin-proxy.js");
  const { delegation } = settings;
  if (delegation !== undefined) {
    const { agent, roots } = delegation.gate;
    stderrLine(
      `delegation: each call needs a chain from ${roots.join(" or ")} to ${agent} (${delegation.source})`,
    );
    for (const warning of delegation.warnings) stderrLine(`warning: ${warning}`);
  }
  const proxy = runPinProxy({
    ...settings.proxy,
    client: { input: process.stdin, output: process.stdout },
    ...(audit && { audit }),
  });
  const stopOnSignal = () => void proxy.stop();
  process.once("SIGTERM", stopOnSignal);
  process.once("SIGINT", stopOnSignal);
  const outcome = await proxy.done;
  process.off("SIGTERM", stopOnSignal);
  process.off("SIGINT", stopOnSignal);
  // Let the process end: nothing more will be read from the client.
  process.stdin.destroy();
  return outcome.reason === "client_closed" || outcome.reason === "stopped"
    ? PROXY_EXIT.clientClosed
    : PROXY_EXIT.upstreamFailed;
}

/**
 * The proxy will not start: say why on stderr and in the audit log, answer the client's
 * requests (its `initialize`) with an error naming the problem, and exit 2.
 */
async function refuseStart(
  options: ProxyCliOptions,
  audit: AuditSink | undefined,
  refused: StartRefused,
): Promise<number> {
  stderrLine(`refusing to start: ${refused.message}`);
  try {
    audit?.({
      time: new Date().toISOString(),
      server: options.server ?? null,
      ...(options.observe === true && { observe: true }),
      event: "proxy_refused",
      verdict: refused.code,
      reason: refused.message,
    });
  } catch (err) {
    stderrLine(`audit log write failed: ${(err as Error).message}`);
  }
  // A person at a terminal reads stderr; a client gets the reason as its answer.
  if (!process.stdin.isTTY) {
    const { answerStartRefusal } = await import("../../proxy/start-refusal.js");
    await answerStartRefusal({
      input: process.stdin,
      output: process.stdout,
      problem: refused.message,
    });
  }
  process.stdin.destroy();
  return PROXY_EXIT.notStarted;
}

function stderrLine(line: string): void {
  process.stderr.write(`airlock proxy: ${printable(line)}\n`);
}

function codeOf(err: unknown): string {
  if (err instanceof UsageError) return "usage";
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : "start_failed";
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
