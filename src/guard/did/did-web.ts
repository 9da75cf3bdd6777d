/**
 * A `did:web` resolver (W3C did:web method): `did:web:example.com` is the DID document at
 * `https://example.com/.well-known/did.json`, `did:web:example.com:teams:ops` the one at
 * `https://example.com/teams/ops/did.json`. It fetches only when you plug it in
 * (`methodResolver({ web: didWebResolver() })`): HTTPS only, no redirects, a size cap and
 * a timeout, and the document must name exactly one Ed25519 key for assertions.
 *
 * @module
 */
import type { KeyObject } from "node:crypto";
import { request } from "node:https";
import { DidError } from "../delegation/errors.js";
import { didMethod, publicKeyFromDid } from "./did-key.js";
import { didFromPublicJwk } from "./keys.js";
import type { DidResolver, VerificationMethodKey } from "./resolver.js";

/** Options of {@link didWebResolver}. */
export interface DidWebResolverOptions {
  /** Certificate authorities (PEM) to trust instead of Node's, e.g. a private PKI. */
  ca?: string | Buffer | readonly (string | Buffer)[];
  /** Give up on a document after this many milliseconds. Default 5,000. */
  timeoutMs?: number;
  /** Largest document read, in bytes. Default 64 KiB. */
  maxBytes?: number;
  /** How long a resolved key is reused, in seconds; 0 disables. Default 300. Failures are never kept. */
  cacheSeconds?: number;
  /** Milliseconds since the epoch (default `Date.now`), for the cache. */
  clock?: () => number;
}

const HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)*[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?::\d{1,5})?$/;
const SEGMENT = /^[A-Za-z0-9._~-]+$/;
/** Most verification methods read from one document. */
const MAX_METHODS = 64;
/** Most resolved DIDs kept. */
const CACHE_LIMIT = 256;

function failed(did: string, why: string, cause?: unknown): DidError {
  return new DidError(
    "DID_RESOLUTION_FAILED",
    `${did}: ${why}`,
    cause === undefined ? undefined : { cause },
  );
}

/**
 * The HTTPS URL of a did:web's DID document.
 *
 * @throws {DidError} `DID_INVALID` for a did:web whose host or path cannot be a URL's
 *   (`..`, an empty segment, characters a host cannot hold), `DID_METHOD_UNSUPPORTED` for
 *   another method.
 * @example
 * ```ts
 * import { didWebUrl } from "agent-airlock/guard";
 * console.log(didWebUrl("did:web:example.com%3A8443:teams:ops").href); // https://example.com:8443/teams/ops/did.json
 * ```
 */
export function didWebUrl(did: string): URL {
  const method = didMethod(did);
  if (method !== "web") {
    throw new DidError("DID_METHOD_UNSUPPORTED", `expected a did:web, got did:${method}`);
  }
  const [hostPart = "", ...segments] = did.slice("did:web:".length).split(":");
  // Only the port separator may be percent-encoded in the host (did:web spec, 3.2).
  const host = hostPart.replace(/%3A/gi, ":");
  if (!HOST.test(host)) throw new DidError("DID_INVALID", `${did}: not a host name`);
  for (const segment of segments) {
    if (!SEGMENT.test(segment) || segment === "." || segment === "..") {
      throw new DidError("DID_INVALID", `${did}: path segment ${JSON.stringify(segment)}`);
    }
  }
  const path = segments.length === 0 ? ".well-known" : segments.join("/");
  let url: URL;
  try {
    url = new URL(`https://${host}/${path}/did.json`);
  } catch (cause) {
    // A last label of digits makes the URL parser read the host as an IPv4 address ("a.0").
    throw new DidError("DID_INVALID", `${did}: not a host name`, { cause });
  }
  // The URL parser reads some host names as IPv4 numbers ("0" is 0.0.0.0, "2130706433" is
  // 127.0.0.1): the document must come from the host the DID spells, nothing it maps to.
  const [hostname = "", port = ""] = host.toLowerCase().split(":");
  if (url.hostname !== hostname || (url.port !== port && !(port === "443" && url.port === ""))) {
    throw new DidError("DID_INVALID", `${did}: the host is read as ${url.host}`);
  }
  return url;
}

/** GET `url` over HTTPS: status 200, no redirect, at most `maxBytes`, within `timeoutMs`. */
function fetchDocument(
  did: string,
  url: URL,
  options: { ca?: DidWebResolverOptions["ca"]; timeoutMs: number; maxBytes: number },
): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: "GET",
      headers: { accept: "application/did+json, application/json" },
      ...(options.ca === undefined
        ? {}
        : { ca: options.ca as string | Buffer | (string | Buffer)[] }),
    });
    const timer = setTimeout(() => {
      req.destroy(failed(did, `${url.href} did not answer within ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    const settle = (err: unknown, text?: string) => {
      clearTimeout(timer);
      if (err === undefined) resolve(text ?? "");
      else
        reject(
          err instanceof DidError
            ? err
            : failed(did, `cannot fetch ${url.href}: ${(err as Error).message}`, err),
        );
    };
    req.on("error", (err) => settle(err));
    req.on("response", (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        // A redirect is not followed: the document must be where the DID says.
        return settle(failed(did, `${url.href} answered ${res.statusCode}, not 200`));
      }
      const declared = Number(res.headers["content-length"]);
      if (Number.isFinite(declared) && declared > options.maxBytes) {
        res.destroy();
        return settle(failed(did, `the DID document is larger than ${options.maxBytes} bytes`));
      }
      const chunks: Buffer[] = [];
      let total = 0;
      res.on("data", (chunk: Buffer) => {
        total += chunk.length;
        if (total > options.maxBytes) {
          res.destroy();
          settle(failed(did, `the DID document is larger than ${options.maxBytes} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      res.on("error", (err) => settle(err));
      res.on("end", () => settle(undefined, Buffer.concat(chunks).toString("utf8")));
    });
    req.end();
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The Ed25519 key of one verification method, as a did:key; undefined for another kind of key. */
function ed25519Of(did: string, method: Record<string, unknown>): string | undefined {
  const jwk = method.publicKeyJwk;
  const multibase = method.publicKeyMultibase;
  if (isObject(jwk)) {
    if (jwk.kty !== "OKP" || jwk.crv !== "Ed25519") return undefined;
    if ("d" in jwk) throw failed(did, "the DID document publishes a private key");
    return didFromPublicJwk(jwk);
  }
  if (typeof multibase === "string" && multibase.startsWith("z6Mk")) {
    const asKey = `did:key:${multibase}`;
    publicKeyFromDid(asKey); // validates it is a canonical Ed25519 multikey
    return asKey;
  }
  return undefined;
}

/** A method id as absolute: `#key-1` in the document of `did` is `<did>#key-1`. */
function absoluteId(did: string, id: unknown): string | undefined {
  if (typeof id !== "string") return undefined;
  return id.startsWith("#") ? `${did}${id}` : id;
}

/** The one Ed25519 assertion key of a DID document (as a did:key), and its method ids. */
function assertionKey(did: string, text: string): { didKey: string; ids: string[] } {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (cause) {
    throw failed(did, "the DID document is not JSON", cause);
  }
  if (!isObject(doc)) throw failed(did, "the DID document is not a JSON object");
  if (doc.id !== did) throw failed(did, `the DID document is for ${JSON.stringify(doc.id)}`);
  const methods = doc.verificationMethod ?? [];
  const assertions = doc.assertionMethod;
  if (!Array.isArray(methods) || !Array.isArray(assertions)) {
    throw failed(did, "the DID document has no assertionMethod list");
  }
  if (methods.length > MAX_METHODS || assertions.length > MAX_METHODS) {
    throw failed(did, `the DID document lists more than ${MAX_METHODS} keys`);
  }
  const byId = new Map<string, Record<string, unknown>>();
  for (const method of methods) {
    const id = isObject(method) ? absoluteId(did, method.id) : undefined;
    if (id !== undefined) byId.set(id, method as Record<string, unknown>);
  }
  // Each key with the ids it is published under (a link's kid must name one of them).
  const keys = new Map<string, string[]>();
  for (const entry of assertions) {
    const method = isObject(entry) ? entry : byId.get(absoluteId(did, entry) ?? "");
    if (method === undefined) continue;
    // A key controlled by another DID does not speak for this one.
    if (method.controller !== did) continue;
    const key = ed25519Of(did, method);
    if (key === undefined) continue;
    const ids = keys.get(key) ?? [];
    const id = absoluteId(did, method.id);
    if (id?.startsWith(`${did}#`) && !ids.includes(id)) ids.push(id);
    keys.set(key, ids);
  }
  if (keys.size === 0) throw failed(did, "the DID document has no Ed25519 assertion key");
  if (keys.size > 1) {
    // Links name only their issuer, so which key signs would be ambiguous.
    throw failed(
      did,
      `the DID document has ${keys.size} Ed25519 assertion keys; agent-airlock needs exactly one`,
    );
  }
  const [[didKey, ids]] = [...keys] as [[string, string[]]];
  return { didKey, ids };
}

/**
 * Resolve `did:web` DIDs to their Ed25519 key over HTTPS. Plug it in for the DIDs of the
 * roots and issuers you trust: `methodResolver({ web: didWebResolver() })`.
 *
 * The document must be served with status 200 at the DID's URL (redirects are refused),
 * have `id` equal to the DID, and list exactly one Ed25519 key in `assertionMethod`
 * (`publicKeyJwk` OKP/Ed25519 or `publicKeyMultibase` `z6Mk...`) whose `controller` is
 * the DID. Anything else is `DID_RESOLUTION_FAILED`, and the link is not verified.
 *
 * @example
 * ```ts
 * import { didWebResolver, localVerifier, methodResolver } from "agent-airlock/guard";
 * const resolver = methodResolver({ web: didWebResolver({ timeoutMs: 3000 }) });
 * const verifier = localVerifier({ chains: [], trustedRoots: ["did:web:example.com"], resolver });
 * ```
 */
export function didWebResolver(options: DidWebResolverOptions = {}): DidResolver {
  const timeoutMs = options.timeoutMs ?? 5000;
  const maxBytes = options.maxBytes ?? 64 * 1024;
  const cacheSeconds = options.cacheSeconds ?? 300;
  const clock = options.clock ?? Date.now;
  for (const [name, value, max] of [
    ["timeoutMs", timeoutMs, 60_000],
    ["maxBytes", maxBytes, 1024 * 1024],
    ["cacheSeconds", cacheSeconds, 86_400],
  ] as const) {
    if (
      !Number.isInteger(value) ||
      value < 0 ||
      value > max ||
      (name !== "cacheSeconds" && value === 0)
    ) {
      throw new TypeError(`didWebResolver: ${name} must be an integer up to ${max}`);
    }
  }
  const cache = new Map<string, { found: VerificationMethodKey; until: number }>();
  const resolveMethod = async (did: string): Promise<VerificationMethodKey> => {
    const now = clock();
    const hit = cache.get(did);
    if (hit !== undefined && now < hit.until) return hit.found;
    cache.delete(did);
    const url = didWebUrl(did);
    const text = await fetchDocument(did, url, {
      ...(options.ca === undefined ? {} : { ca: options.ca }),
      timeoutMs,
      maxBytes,
    });
    const { didKey, ids } = assertionKey(did, text);
    const found = Object.freeze({ key: publicKeyFromDid(didKey), ids: Object.freeze(ids) });
    if (cacheSeconds > 0) {
      if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
      cache.set(did, { found, until: now + cacheSeconds * 1000 });
    }
    return found;
  };
  return {
    resolveKey: async (did: string): Promise<KeyObject> => (await resolveMethod(did)).key,
    resolveMethod,
  };
}
