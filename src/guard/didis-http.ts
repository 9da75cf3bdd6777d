/**
 * The HTTP plumbing of our DID.is-compatible service (`didis-server.ts`): RFC 9457
 * problem answers, bounded JSON bodies, the request target read without throwing, and
 * the last-resort answer for an error nothing else caught. Wire errors only: what a
 * caller of the service sees. Nothing here may throw out of the request listener, where
 * an exception would end the process.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from "node:http";

const PROBLEM_BASE = "https://agent-airlock.dev/problems/";

/** An answer other than 200, sent as a problem document. @internal */
export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    readonly title: string,
    readonly detail: string,
  ) {
    super(detail);
  }
}

/** Send `body` as JSON with `status`. @internal */
export function send(
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

/** Send `p` as an RFC 9457 problem document. @internal */
export function sendProblem(
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

/** A 400 problem. @internal */
export function badRequest(detail: string, type = "bad-request"): HttpProblem {
  return new HttpProblem(400, type, "Bad Request", detail);
}

/** The body as a JSON object, refused past `limit` bytes. @internal */
export async function readJson(
  req: IncomingMessage,
  limit: number,
): Promise<Record<string, unknown>> {
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

/**
 * The request target as a URL, or undefined when it is not one. An origin-form target
 * (`/path?query`) is a path on this server even when it starts with `//` (which
 * `new URL(target, base)` would read as another host, and throw on for `//x:99999`); an
 * absolute-form target must be http or https. Anything else (`*`, `//[`) is undefined.
 *
 * @internal
 */
export function parseRequestTarget(target: string | undefined): URL | undefined {
  const raw = target ?? "/";
  try {
    if (raw.startsWith("/")) return new URL(`http://localhost${raw}`);
    const url = new URL(raw);
    return url.protocol === "http:" || url.protocol === "https:" ? url : undefined;
  } catch {
    return undefined;
  }
}

/** What to do with an error that reached the last-resort handler. */
export type DidisErrorLogger = (error: unknown) => void;

/** The default logger: one line on stderr, and never a throw. @internal */
export function logToStderr(error: unknown): void {
  let text: string;
  try {
    text = error instanceof Error ? (error.stack ?? error.message) : String(error);
  } catch {
    text = "an error that cannot be printed";
  }
  process.stderr.write(`agent-airlock DID.is server: internal error: ${text.slice(0, 4000)}\n`);
}

/**
 * Answer 500 (or end the connection when an answer was already started) for an error no
 * other handler took, after telling `log`. Never throws.
 *
 * @internal
 */
export function answerLastResort(res: ServerResponse, error: unknown, log: DidisErrorLogger): void {
  try {
    log(error);
  } catch {
    // A logger that throws must not take the answer, or the process, with it.
  }
  try {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    sendProblem(
      res,
      new HttpProblem(500, "internal", "Internal Server Error", "the server could not answer"),
      "/",
    );
  } catch {
    res.destroy();
  }
}
