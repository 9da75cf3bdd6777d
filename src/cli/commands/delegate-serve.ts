/**
 * `airlock delegate serve`: the DID.is-compatible service on a registry, for one host or,
 * on a PostgreSQL registry, for several instances behind a load balancer. It logs JSON
 * lines on stderr (listening, one per request, errors, stopping, stopped), never a token,
 * a chain or a query; and on SIGTERM or SIGINT it shuts down gracefully (stops accepting,
 * `/readyz` 503, finishes the requests in flight within `--shutdown-timeout`) and exits 0.
 * A second signal cuts the requests still open at once.
 */
import { type OutputFormat, writeJson } from "../output.js";
import { parseCount, readTokenFile, UsageError } from "./delegate-input.js";
import { openRegistry, showRegistry } from "./delegate-registry.js";

/** The flags of `delegate serve`. */
export interface ServeFlags {
  registry: string;
  host: string;
  port: string;
  trustedRoot?: string[];
  tokenFile?: string;
  insecureNoAuth?: boolean;
  shutdownTimeout: string;
  output: string;
}

/** What a log line says about an error: its code and the start of its message. */
function describeError(err: unknown): Record<string, unknown> {
  const code = (err as { code?: unknown } | null)?.code;
  let message: string;
  try {
    message = err instanceof Error ? err.message : String(err);
  } catch {
    message = "an error that cannot be printed";
  }
  return { ...(typeof code === "string" && { code }), message: message.slice(0, 300) };
}

/** Resolves with the first SIGINT or SIGTERM; `again` runs on each one after it. */
function firstSignal(again: () => void): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    let seen = false;
    const on = (signal: NodeJS.Signals) => {
      if (seen) return again();
      seen = true;
      resolve(signal);
    };
    process.on("SIGINT", on);
    process.on("SIGTERM", on);
  });
}

/** Run the service until a signal stops it; 0 once it has stopped. */
export async function serve(flags: ServeFlags, format: OutputFormat): Promise<number> {
  const { startDidisServer } = await import("../../guard/didis-listener.js");
  const { DelegationError } = await import("../../guard/delegation/errors.js");
  const { formatLogLine } = await import("../../guard/didis-request-log.js");
  const log = (event: string, fields: Record<string, unknown> = {}) =>
    process.stderr.write(formatLogLine(event, fields));
  const port = parseCount(flags.port, "--port", 65535);
  const shutdownTimeoutMs = parseCount(flags.shutdownTimeout, "--shutdown-timeout", 600) * 1000;
  const tokens = flags.tokenFile === undefined ? undefined : await readTokenFile(flags.tokenFile);
  const shown = showRegistry(flags.registry);
  const registry = await openRegistry(flags.registry);
  const running = await startDidisServer({
    registry,
    host: flags.host,
    port,
    shutdownTimeoutMs,
    onRequest: (entry) => log("request", { ...entry }),
    onError: (err) => log("error", describeError(err)),
    ...(flags.trustedRoot !== undefined && { trustedRoots: flags.trustedRoot }),
    ...(tokens !== undefined && { tokens }),
    ...(flags.insecureNoAuth === true && { allowUnauthenticated: true }),
  }).catch(async (err: unknown) => {
    await registry.close();
    if (err instanceof DelegationError && err.code === "DIDIS_SERVER_MISCONFIGURED") {
      throw new UsageError(
        `refusing to listen on ${flags.host} without authentication: anyone who can reach it could register chains and ask about agents. Pass --token-file, keep --host 127.0.0.1, or add --insecure-no-auth behind an authenticating proxy`,
      );
    }
    throw new UsageError(`cannot listen on ${flags.host}:${port}: ${(err as Error).message}`);
  });
  if (format === "json") writeJson({ ok: true, url: running.url, registry: shown });
  else process.stdout.write(`${running.url}\n`);
  log("listening", { url: running.url, registry: shown });
  const signal = await firstSignal(() => {
    log("forced", { reason: "second signal: open requests are cut" });
    running.server.closeAllConnections();
  });
  log("stopping", { signal, shutdownTimeoutMs });
  await running.close();
  log("stopped");
  return 0;
}
