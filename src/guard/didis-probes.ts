/**
 * The load balancer's two questions to our DID.is-compatible service. `GET /healthz`: is
 * the process running and answering (always 200; it touches nothing)? `GET /readyz`: can
 * it answer questions now (200 when the registry answers a read within
 * {@link READINESS_TIMEOUT_MS}, 503 when it does not, or when the server is shutting
 * down)? Both are answered without a bearer token, since load balancers send none, and say
 * nothing but their status: a failed readiness names the error code, never the database.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { AirlockError } from "../errors.js";
import { HttpProblem, send, sendProblem } from "./didis-http.js";
import type { RequestOutcome } from "./didis-request-log.js";
import type { DelegationRegistry } from "./registry/registry.js";

/** The probe paths. @internal */
export const HEALTH_PATH = "/healthz";
/** @internal */
export const READY_PATH = "/readyz";

/** How long a readiness check waits for the registry, in milliseconds. @internal */
export const READINESS_TIMEOUT_MS = 2000;

/** A jti no link carries (link ids are UUIDs by default): reading it is a pure round trip. */
const PROBE_JTI = "airlock-readiness-probe";

/** Whether `path` is one of the probes. @internal */
export function isProbePath(path: string): boolean {
  return path === HEALTH_PATH || path === READY_PATH;
}

async function registryReady(registry: DelegationRegistry): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve("registry-timeout"), READINESS_TIMEOUT_MS);
  });
  const read = registry.isRevoked(PROBE_JTI).then(
    () => undefined,
    (err: unknown) => (err instanceof AirlockError ? err.code : "REGISTRY_IO"),
  );
  try {
    return await Promise.race([read, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A 503 readiness answer. @internal */
export function sendNotReady(res: ServerResponse, reason: string, outcome: RequestOutcome): void {
  outcome.code = reason;
  sendProblem(
    res,
    new HttpProblem(503, "not-ready", "Service Unavailable", `not ready: ${reason}`),
    READY_PATH,
  );
}

/**
 * Answer a probe request (`path` is one of {@link isProbePath}).
 *
 * @internal
 */
export async function answerProbe(
  registry: DelegationRegistry,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  outcome: RequestOutcome,
): Promise<void> {
  const method = req.method ?? "GET";
  if (method !== "GET" && method !== "HEAD") {
    outcome.code = "method-not-allowed";
    sendProblem(
      res,
      new HttpProblem(405, "method-not-allowed", "Method Not Allowed", `use GET for ${path}`),
      path,
    );
    return;
  }
  if (path === HEALTH_PATH) {
    send(res, 200, { status: "ok" });
    return;
  }
  const failure = await registryReady(registry);
  if (failure === undefined) send(res, 200, { status: "ready" });
  else sendNotReady(res, failure, outcome);
}
