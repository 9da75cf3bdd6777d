/**
 * A small DID.is-compatible HTTP service on top of the local verifier and a persistent
 * registry, so a team can run its own (`airlock delegate serve`). Endpoints:
 *
 * - `GET /v1/agents/verify-tool?agent=&tool=&root=` → `{agent, tool, root, decision, reason, matchedCapability?, expires?}`
 * - `POST /v1/agents/authorize` `{agent, tool, root}` → the same answer
 * - `POST /v1/agents/verify-delegation` `{chain, trustedRoots, register?, agent?}` → a verification result, `registered`, `id`
 * - `GET /v1/mcp/inspect` → 501 (not offered: it would make this server fetch arbitrary URLs)
 *
 * Errors are RFC 9457 `application/problem+json`. With `tokens`, every request must carry
 * `Authorization: Bearer <token>` (else 401, before anything is read or answered). It
 * listens on 127.0.0.1 by default, and refuses an address other machines can reach
 * unless tokens are set (or `allowUnauthenticated`, for a server behind an
 * authenticating proxy).
 *
 * @module
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { CapabilityError, parseCapability } from "./capability.js";
import { DelegationError } from "./delegation/errors.js";
import { SignatureCache, verifyDelegation } from "./delegation/verify.js";
import { didMethod } from "./did/did-key.js";
import type { DidResolver } from "./did/resolver.js";
import { bearerAuthenticator, isLoopbackHost } from "./didis-auth.js";
import { localVerifier } from "./local-verifier.js";
import type { DelegationRegistry } from "./registry/registry.js";

/** Options of {@link createDidisHandler} and {@link startDidisServer}. */
export interface DidisServerOptions {
  /** Where chains and revocations live. */
  registry: DelegationRegistry;
  /**
   * Roots this server accepts. When given, a question or registration for any other root
   * is refused; when omitted, any root the caller names is used (each question still only
   * trusts the one root it names).
   */
  trustedRoots?: readonly string[];
  /** Milliseconds since the epoch (default `Date.now`). */
  clock?: () => number;
  skewSeconds?: number;
  maxLength?: number;
  resolver?: DidResolver;
  /** Largest request body, bytes (default 256 KiB). */
  maxBodyBytes?: number;
  /**
   * Bearer tokens a caller must present (`Authorization: Bearer <token>`); a request
   * without one of them gets 401. Each 16 to 512 characters. Default: no authentication.
   */
  tokens?: readonly string[];
}

const PROBLEM_BASE = "https://agent-airlock.dev/problems/";

class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    readonly title: string,
    readonly detail: string,
  ) {
    super(detail);
  }
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  contentType = "application/json",
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": contentType,
    "content-length": Buffer.byteLength(text),
    "cache-control": "no-store",
    ...headers,
  });
  res.end(text);
}

function sendProblem(
  res: ServerResponse,
  p: HttpProblem,
  instance: string,
  headers: Record<string, string> = {},
): void {
  send(
    res,
    p.status,
    {
      type: `${PROBLEM_BASE}${p.type}`,
      title: p.title,
      status: p.status,
      detail: p.detail,
      instance,
    },
    "application/problem+json",
    headers,
  );
}

function badRequest(detail: string, type = "bad-request"): HttpProblem {
  return new HttpProblem(400, type, "Bad Request", detail);
}

async function readJson(req: IncomingMessage, limit: number): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of req) {
    total += (chunk as Buffer).length;
    if (total > limit)
      throw new HttpProblem(
        413,
        "body-too-large",
        "Payload Too Large",
        `the body is larger than ${limit} bytes`,
      );
    chunks.push(chunk as Buffer);
  }
  let value: unknown;
  try {
    value = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw badRequest("the body is not JSON", "invalid-json");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw badRequest("the body must be a JSON object");
  return value as Record<string, unknown>;
}

function requireDid(value: unknown, name: string): string {
  if (typeof value !== "string") throw badRequest(`${name} is required (a DID)`);
  try {
    didMethod(value);
  } catch {
    throw badRequest(`${name} is not a DID`);
  }
  return value;
}

/**
 * The request handler, for mounting on your own `http.Server`.
 *
 * @example
 * ```ts
 * import { createServer } from "node:http";
 * import { createDidisHandler, openFileRegistry } from "agent-airlock/guard";
 * const handler = createDidisHandler({ registry: await openFileRegistry("delegations.json") });
 * createServer(handler).listen(8787, "127.0.0.1");
 * ```
 */
export function createDidisHandler(
  options: DidisServerOptions,
): (req: IncomingMessage, res: ServerResponse) => void {
  const { registry } = options;
  const authenticated =
    options.tokens === undefined ? undefined : bearerAuthenticator(options.tokens);
  const allowList = options.trustedRoots ? [...options.trustedRoots] : undefined;
  const clock = options.clock ?? Date.now;
  const limit = options.maxBodyBytes ?? 256 * 1024;
  // Shared by every request: a did:key signature that verified once stays verified.
  const signatureCache = new SignatureCache();
  const common = {
    signatureCache,
    ...(options.skewSeconds !== undefined && { skewSeconds: options.skewSeconds }),
    ...(options.maxLength !== undefined && { maxLength: options.maxLength }),
    ...(options.resolver !== undefined && { resolver: options.resolver }),
  };

  async function answerTool(agentIn: unknown, toolIn: unknown, rootIn: unknown) {
    const agent = requireDid(agentIn, "agent");
    const root = requireDid(rootIn, "root");
    if (typeof toolIn !== "string") throw badRequest("tool is required (an exact capability)");
    try {
      parseCapability(toolIn);
    } catch (err) {
      if (err instanceof CapabilityError) throw badRequest(err.message, "invalid-capability");
      throw err;
    }
    const tool = toolIn;
    if (allowList && !allowList.includes(root)) {
      return {
        agent,
        tool,
        root,
        decision: "DENY",
        reason: `root ${root} is not trusted by this server`,
      };
    }
    const verifier = localVerifier({ registry, trustedRoots: [root], clock, ...common });
    const result = await verifier.verifyTool({ agent, capability: tool, root });
    return { agent, tool, ...result, root };
  }

  async function route(req: IncomingMessage, url: URL): Promise<[number, unknown]> {
    const path = url.pathname.replace(/\/+$/, "");
    const method = req.method ?? "GET";
    const only = (allowed: string) => {
      if (method !== allowed)
        throw new HttpProblem(
          405,
          "method-not-allowed",
          "Method Not Allowed",
          `use ${allowed} for ${path}`,
        );
    };
    switch (path) {
      case "/v1/agents/verify-tool": {
        only("GET");
        const q = url.searchParams;
        return [
          200,
          await answerTool(
            q.get("agent") ?? undefined,
            q.get("tool") ?? undefined,
            q.get("root") ?? undefined,
          ),
        ];
      }
      case "/v1/agents/authorize": {
        only("POST");
        const body = await readJson(req, limit);
        return [200, await answerTool(body.agent, body.tool ?? body.capability, body.root)];
      }
      case "/v1/agents/verify-delegation": {
        only("POST");
        const body = await readJson(req, limit);
        const asked = body.trustedRoots;
        if (
          !Array.isArray(asked) ||
          asked.length === 0 ||
          !asked.every((r) => typeof r === "string")
        ) {
          throw badRequest("trustedRoots must be a non-empty array of DIDs");
        }
        const roots = allowList ? asked.filter((r) => allowList.includes(r)) : asked;
        const agent = body.agent === undefined ? undefined : requireDid(body.agent, "agent");
        const result = await verifyDelegation(body.chain, {
          trustedRoots: roots,
          now: new Date(clock()),
          isRevoked: (jti) => registry.isRevoked(jti),
          ...(agent !== undefined && { agent }),
          ...common,
        });
        if (body.register === true && result.status === "VALID") {
          const record = await registry.register(body.chain as string[]);
          return [200, { ...result, registered: true, id: record.id }];
        }
        return [200, { ...result, registered: false }];
      }
      case "/v1/mcp/inspect":
        only("GET");
        throw new HttpProblem(
          501,
          "not-implemented",
          "Not Implemented",
          "this server does not inspect MCP endpoints (it never fetches URLs it is given)",
        );
      default:
        throw new HttpProblem(404, "not-found", "Not Found", `no endpoint ${path}`);
    }
  }

  return (req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (authenticated !== undefined && !authenticated(req.headers.authorization)) {
      // Before routing: an unauthenticated caller learns nothing, not even which paths exist.
      return sendProblem(
        res,
        new HttpProblem(
          401,
          "unauthorized",
          "Unauthorized",
          "send Authorization: Bearer <token> with a token this server was given",
        ),
        url.pathname,
        { "www-authenticate": 'Bearer realm="agent-airlock"' },
      );
    }
    route(req, url)
      .then(([status, body]) => send(res, status, body))
      .catch((err: unknown) => {
        if (err instanceof HttpProblem) return sendProblem(res, err, url.pathname);
        if (err instanceof DelegationError && err.code === "REGISTRY_FULL") {
          return sendProblem(
            res,
            new HttpProblem(409, "registry-full", "Conflict", err.message),
            url.pathname,
          );
        }
        if (err instanceof DelegationError && err.code.startsWith("REGISTRY")) {
          return sendProblem(
            res,
            new HttpProblem(503, "registry-unavailable", "Service Unavailable", err.message),
            url.pathname,
          );
        }
        sendProblem(
          res,
          new HttpProblem(500, "internal", "Internal Server Error", "the server could not answer"),
          url.pathname,
        );
      });
  };
}

/** A running server. */
export interface RunningDidisServer {
  /** Base URL to give a `DidisClient`, e.g. `http://127.0.0.1:8787`. */
  url: string;
  server: Server;
  /** Stop listening and close the registry. */
  close(): Promise<void>;
}

/**
 * Start the service on `host:port` (default `127.0.0.1`, port 0 picks a free one).
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
  options: DidisServerOptions & {
    host?: string;
    port?: number;
    /** Listen on an address other machines can reach with no tokens (behind an authenticating proxy). */
    allowUnauthenticated?: boolean;
  },
): Promise<RunningDidisServer> {
  const host = options.host ?? "127.0.0.1";
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
  const server = createServer(createDidisHandler(options));
  server.headersTimeout = 10_000;
  server.requestTimeout = 15_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const shown = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}`,
    server,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await options.registry.close();
    },
  };
}
