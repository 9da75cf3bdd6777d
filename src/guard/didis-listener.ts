/**
 * Listening for our DID.is-compatible service (`startDidisServer`): the address check (no
 * unauthenticated service on an address other machines reach), the connection limits of
 * `didis-server-limits.ts`, and the graceful shutdown a load balancer expects. `close()`
 * stops accepting connections, answers `/readyz` with 503 from then on, asks every
 * keep-alive client to go elsewhere (`Connection: close`), waits for the requests in
 * flight up to `shutdownTimeoutMs`, cuts what is left, and only then closes the registry,
 * so no request that was admitted loses its registry half-way.
 *
 * @module
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { DelegationError } from "./delegation/errors.js";
import { isLoopbackHost } from "./didis-auth.js";
import { parseRequestTarget } from "./didis-http.js";
import { READY_PATH, sendNotReady } from "./didis-probes.js";
import { logWhenAnswered } from "./didis-request-log.js";
import { createDidisHandler, type DidisServerOptions } from "./didis-server.js";
import {
  type DidisServerLimits,
  readServerLimits,
  type ServerLimitSettings,
} from "./didis-server-limits.js";

/** A running server. */
export interface RunningDidisServer {
  /** Base URL to give a `DidisClient`, e.g. `http://127.0.0.1:8787`. */
  url: string;
  server: Server;
  /**
   * Shut down gracefully: stop accepting, finish the requests in flight (at most
   * `shutdownTimeoutMs`), then close the registry. Calling it again returns the same
   * promise.
   */
  close(): Promise<void>;
}

/** Options of {@link startDidisServer}: the handler's, where to listen, and the connection limits. */
export interface StartDidisServerOptions extends DidisServerOptions, DidisServerLimits {
  /** Address to listen on (default `127.0.0.1`). Any other needs `tokens` or `allowUnauthenticated`. */
  host?: string;
  /** Port (default 0: a free one). */
  port?: number;
  /** Listen on an address other machines can reach with no tokens (behind an authenticating proxy). */
  allowUnauthenticated?: boolean;
}

/** The requests a server is answering, and whether it is shutting down. */
class Drain {
  readonly #open = new Set<ServerResponse>();
  #waiting: (() => void) | undefined;
  draining = false;

  track(res: ServerResponse): void {
    this.#open.add(res);
    if (this.draining) res.setHeader("connection", "close");
    res.once("close", () => {
      this.#open.delete(res);
      if (this.#open.size === 0) this.#waiting?.();
    });
  }

  /** Start draining: every answer not yet started closes its connection after it. */
  begin(): void {
    this.draining = true;
    for (const res of this.#open) if (!res.headersSent) res.setHeader("connection", "close");
  }

  /** Resolves when nothing is in flight, or after `ms`; true when everything finished. */
  settled(ms: number): Promise<boolean> {
    if (this.#open.size === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      this.#waiting = () => {
        clearTimeout(timer);
        resolve(true);
      };
    });
  }
}

function assertAddressAllowed(options: StartDidisServerOptions, host: string): void {
  if (
    options.tokens === undefined &&
    !isLoopbackHost(host) &&
    options.allowUnauthenticated !== true
  ) {
    throw new DelegationError(
      "DIDIS_SERVER_MISCONFIGURED",
      `refusing to listen on ${host} without authentication: anyone who can reach it could register chains and ask about agents. Give tokens, listen on 127.0.0.1, or set allowUnauthenticated behind an authenticating proxy`,
    );
  }
}

function createListener(
  options: StartDidisServerOptions,
  limits: ServerLimitSettings,
  drain: Drain,
): Server {
  const handler = createDidisHandler(options);
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    drain.track(res);
    if (drain.draining && parseRequestTarget(req.url)?.pathname === READY_PATH) {
      // Tell the load balancer first: this instance takes no new work.
      const outcome = {};
      if (options.onRequest !== undefined) logWhenAnswered(options.onRequest, req, res, outcome);
      sendNotReady(res, "shutting-down", outcome);
      return;
    }
    handler(req, res);
  };
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      // Node checks the two timeouts above only this often (30 s by default), so a
      // half-open connection would outlive headersTimeout by up to that much.
      connectionsCheckingInterval: limits.checkIntervalMs,
    },
    listener,
  );
  server.maxConnections = limits.maxConnections;
  return server;
}

async function shutDown(
  server: Server,
  drain: Drain,
  limits: ServerLimitSettings,
  options: StartDidisServerOptions,
): Promise<void> {
  drain.begin();
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  // Idle keep-alive connections would otherwise hold the server open until they time out.
  server.closeIdleConnections();
  await drain.settled(limits.shutdownTimeoutMs);
  server.closeAllConnections();
  // The cut requests end on the next turns of the event loop: let them, so that none is
  // still using the registry when it closes.
  await drain.settled(1000);
  await closed;
  await options.registry.close();
}

/**
 * Start the service on `host:port` (default `127.0.0.1`, port 0 picks a free one), with
 * the connection limits of {@link DidisServerLimits}.
 *
 * @example
 * ```ts
 * import { DidisClient, openFileRegistry, startDidisServer } from "agent-airlock/guard";
 * const running = await startDidisServer({ registry: await openFileRegistry("delegations.json"), port: 0 });
 * const client = new DidisClient({ baseUrl: running.url });
 * await running.close();
 * ```
 */
export async function startDidisServer(
  options: StartDidisServerOptions,
): Promise<RunningDidisServer> {
  const host = options.host ?? "127.0.0.1";
  const limits = readServerLimits(options);
  assertAddressAllowed(options, host);
  const drain = new Drain();
  const server = createListener(options, limits, drain);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const shown = host.includes(":") ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${shown}:${port}`,
    server,
    close() {
      closing ??= shutDown(server, drain, limits, options);
      return closing;
    },
  };
}
