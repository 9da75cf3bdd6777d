/**
 * A small DID.is-compatible HTTP service on top of the local verifier and a persistent
 * registry, so a team can run its own (`airlock delegate serve`). Endpoints:
 *
 * - `GET /v1/agents/verify-tool?agent=&tool=&root=` → `{agent, tool, root, decision, reason, matchedCapability?, expires?}`
 * - `POST /v1/agents/authorize` `{agent, tool, root}` → the same answer
 * - `POST /v1/agents/verify-delegation` `{chain, trustedRoots, register?, agent?}` → a verification result, `registered`, `id`
 * - `GET /v1/mcp/inspect` → 501 (not offered: it would make this server fetch arbitrary URLs)
 * - `GET /healthz` and `GET /readyz` → the load balancer's probes (`didis-probes.ts`), without a token
 *
 * Errors are RFC 9457 `application/problem+json`. With `tokens`, every request must carry
 * `Authorization: Bearer <token>` (else 401, before anything is read or answered). It
 * listens on 127.0.0.1 by default, and refuses an address other machines can reach
 * unless tokens are set (or `allowUnauthenticated`, for a server behind an
 * authenticating proxy). No request can stop it: a target that is not a URL is 400, and an
 * error nothing else handles is 500 (and logged). Slow or idle connections are closed by
 * the timeouts of `didis-server-limits.ts`. Listening, and the graceful shutdown, are in
 * `didis-listener.ts`.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { AirlockError } from "../errors.js";
import { CapabilityError, parseCapability } from "./capability.js";
import { DelegationError } from "./delegation/errors.js";
import { SignatureCache, verifyDelegation } from "./delegation/verify.js";
import { didMethod } from "./did/did-key.js";
import type { DidResolver } from "./did/resolver.js";
import { bearerAuthenticator } from "./didis-auth.js";
import {
  answerLastResort,
  badRequest,
  type DidisErrorLogger,
  HttpProblem,
  logToStderr,
  parseRequestTarget,
  readJson,
  send,
  sendProblem,
} from "./didis-http.js";
import { answerProbe, isProbePath } from "./didis-probes.js";
import {
  type DidisRequestLogger,
  logWhenAnswered,
  type RequestOutcome,
} from "./didis-request-log.js";
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
  /**
   * Called with every error no other handler took (the caller got a 500). Default: one
   * line on stderr. An exception it throws is ignored.
   */
  onError?: DidisErrorLogger;
  /**
   * Called once per request when its answer is over, with its method, path, status,
   * duration and error code (never a query, header or body). Default: none. An exception
   * it throws is ignored.
   */
  onRequest?: DidisRequestLogger;
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

/** The answer to an error a route threw on purpose; undefined for any other error. */
function problemOf(err: unknown): HttpProblem | undefined {
  if (err instanceof HttpProblem) return err;
  if (err instanceof DelegationError && err.code === "REGISTRY_FULL") {
    return new HttpProblem(409, "registry-full", "Conflict", err.message);
  }
  if (err instanceof DelegationError && err.code.startsWith("REGISTRY")) {
    return new HttpProblem(503, "registry-unavailable", "Service Unavailable", err.message);
  }
  return undefined;
}

/** What every request of one handler shares, read once from its options. */
interface HandlerSettings {
  readonly registry: DelegationRegistry;
  readonly authenticated: ((authorization: string | undefined) => boolean) | undefined;
  readonly allowList: readonly string[] | undefined;
  readonly clock: () => number;
  readonly limit: number;
  readonly onError: DidisErrorLogger;
  readonly onRequest: DidisRequestLogger | undefined;
  /** What every verification is given: the shared signature cache and the chain options. */
  readonly common: {
    signatureCache: SignatureCache;
    skewSeconds?: number;
    maxLength?: number;
    resolver?: DidResolver;
  };
}

function readHandlerSettings(options: DidisServerOptions): HandlerSettings {
  return Object.freeze({
    registry: options.registry,
    authenticated: options.tokens === undefined ? undefined : bearerAuthenticator(options.tokens),
    allowList: options.trustedRoots ? [...options.trustedRoots] : undefined,
    clock: options.clock ?? Date.now,
    limit: options.maxBodyBytes ?? 256 * 1024,
    onError: options.onError ?? logToStderr,
    onRequest: options.onRequest,
    common: {
      // Shared by every request: a did:key signature that verified once stays verified.
      signatureCache: new SignatureCache(),
      ...(options.skewSeconds !== undefined && { skewSeconds: options.skewSeconds }),
      ...(options.maxLength !== undefined && { maxLength: options.maxLength }),
      ...(options.resolver !== undefined && { resolver: options.resolver }),
    },
  });
}

/** verify-tool and authorize: may `agentIn` use `toolIn` under `rootIn`? */
async function answerTool(s: HandlerSettings, agentIn: unknown, toolIn: unknown, rootIn: unknown) {
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
  if (s.allowList && !s.allowList.includes(root)) {
    return {
      agent,
      tool,
      root,
      decision: "DENY",
      reason: `root ${root} is not trusted by this server`,
    };
  }
  const verifier = localVerifier({
    registry: s.registry,
    trustedRoots: [root],
    clock: s.clock,
    ...s.common,
  });
  const result = await verifier.verifyTool({ agent, capability: tool, root });
  return { agent, tool, ...result, root };
}

/** verify-delegation: the verification result, and the chain registered when asked and valid. */
async function answerDelegation(s: HandlerSettings, body: Record<string, unknown>) {
  const asked = body.trustedRoots;
  if (!Array.isArray(asked) || asked.length === 0 || !asked.every((r) => typeof r === "string")) {
    throw badRequest("trustedRoots must be a non-empty array of DIDs");
  }
  const roots = s.allowList ? asked.filter((r) => s.allowList!.includes(r)) : asked;
  const agent = body.agent === undefined ? undefined : requireDid(body.agent, "agent");
  const result = await verifyDelegation(body.chain, {
    trustedRoots: roots,
    now: new Date(s.clock()),
    isRevoked: (jti) => s.registry.isRevoked(jti),
    ...(agent !== undefined && { agent }),
    ...s.common,
  });
  if (body.register === true && result.status === "VALID") {
    // Answered only once the registry has stored it (for the file registry: on disk).
    const record = await s.registry.register(body.chain as string[]);
    return { ...result, registered: true, id: record.id };
  }
  return { ...result, registered: false };
}

async function route(s: HandlerSettings, req: IncomingMessage, url: URL): Promise<unknown> {
  const path = url.pathname.replace(/\/+$/, "");
  const only = (allowed: string) => {
    if ((req.method ?? "GET") !== allowed) {
      throw new HttpProblem(
        405,
        "method-not-allowed",
        "Method Not Allowed",
        `use ${allowed} for ${path}`,
      );
    }
  };
  switch (path) {
    case "/v1/agents/verify-tool": {
      only("GET");
      const q = url.searchParams;
      const param = (name: string) => q.get(name) ?? undefined;
      return answerTool(s, param("agent"), param("tool"), param("root"));
    }
    case "/v1/agents/authorize": {
      only("POST");
      const body = await readJson(req, s.limit);
      return answerTool(s, body.agent, body.tool ?? body.capability, body.root);
    }
    case "/v1/agents/verify-delegation":
      only("POST");
      return answerDelegation(s, await readJson(req, s.limit));
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

async function answer(
  s: HandlerSettings,
  req: IncomingMessage,
  res: ServerResponse,
  outcome: RequestOutcome,
) {
  const url = parseRequestTarget(req.url);
  if (url === undefined) {
    // A malformed request line, like the ones Node's parser answers 400 itself: it says
    // nothing about this server, so it needs no token.
    outcome.code = "invalid-target";
    return sendProblem(
      res,
      badRequest("the request target is not a path on this server", "invalid-target"),
      "/",
    );
  }
  // Load balancers send no token; the probes tell nothing but the status.
  if (isProbePath(url.pathname)) return answerProbe(s.registry, req, res, url.pathname, outcome);
  if (s.authenticated !== undefined && !s.authenticated(req.headers.authorization)) {
    // Before routing: an unauthenticated caller learns nothing, not even which paths exist.
    outcome.code = "unauthorized";
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
  try {
    send(res, 200, await route(s, req, url));
  } catch (err) {
    const problem = problemOf(err);
    outcome.code = err instanceof AirlockError ? err.code : (problem?.type ?? "internal");
    if (problem === undefined) answerLastResort(res, err, s.onError);
    else sendProblem(res, problem, url.pathname);
  }
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
  const settings = readHandlerSettings(options);
  // The listener's one exit: whatever answering throws ends in the last resort, never in
  // an uncaught exception or unhandled rejection (either would stop the process).
  return (req, res) => {
    const outcome: RequestOutcome = {};
    try {
      if (settings.onRequest !== undefined) logWhenAnswered(settings.onRequest, req, res, outcome);
      answer(settings, req, res, outcome).catch((err: unknown) => {
        outcome.code = "internal";
        answerLastResort(res, err, settings.onError);
      });
    } catch (err) {
      outcome.code = "internal";
      answerLastResort(res, err, settings.onError);
    }
  };
}
