/**
 * Attestation: does an MCP endpoint, as a DID.is-compatible service inspected it, serve
 * the tools you pinned?
 *
 * @module
 */
import { timingSafeEqual } from "node:crypto";
import { definitionSha256 } from "../canonical/index.js";
import { ToolGuardError } from "./errors.js";

/** What {@link attestMcpPins} needs of a client: `DidisClient` has it. */
export interface McpInspector {
  inspectMcp(endpoint: string): Promise<unknown>;
}

/** A served tool whose definition is not the pinned one. */
export interface AttestMismatch {
  name: string;
  /** The pinned digest. */
  pinned: string;
  /** The served digest; `null` when the tool was listed twice or could not be read. */
  observed: string | null;
  reason: "digest" | "duplicate" | "unreadable";
}

/** The outcome of {@link attestMcpPins}. */
export interface AttestResult {
  /** True when the inspection worked and every served tool is pinned and matches. */
  ok: boolean;
  endpoint: string;
  /** Pinned tools served with another definition (or twice, or unreadably). */
  mismatched: AttestMismatch[];
  /** Pinned tools the endpoint does not serve. Reported; they do not make `ok` false. */
  missing: string[];
  /** Tools the endpoint serves that nobody pinned. */
  unexpected: string[];
  /** Why the endpoint could not be attested, when it could not. */
  error?: { code: string; message: string };
}

/**
 * Most tools read from one inspection report.
 *
 * @example
 * ```ts
 * import { MAX_ATTESTED_TOOLS } from "agent-airlock/guard";
 * console.log(MAX_ATTESTED_TOOLS); // 10000
 * ```
 */
export const MAX_ATTESTED_TOOLS = 10_000;

const HEX64 = /^[0-9a-fA-F]{64}$/;

function readPins(pins: unknown): Map<string, string> {
  if (pins === null || typeof pins !== "object" || Array.isArray(pins)) {
    throw new ToolGuardError("GUARD_MISCONFIGURED", undefined, "pins must be { toolName: sha256 }");
  }
  const out = new Map<string, string>();
  for (const [name, digest] of Object.entries(pins)) {
    if (typeof digest !== "string" || !HEX64.test(digest)) {
      throw new ToolGuardError(
        "GUARD_MISCONFIGURED",
        name,
        `pin of tool ${JSON.stringify(name)} is not a SHA-256 digest (64 hex digits)`,
      );
    }
    out.set(name, digest.toLowerCase());
  }
  return out;
}

/**
 * The digest a report gives for one tool: its `sha256` (or `digest`) when it carries one,
 * else the JCS SHA-256 of its `definition`, else of the entry itself (a bare definition).
 */
function servedDigest(entry: Record<string, unknown>): string {
  for (const field of ["sha256", "digest"] as const) {
    const value = entry[field];
    if (value !== undefined) {
      if (typeof value !== "string" || !HEX64.test(value))
        throw new Error(`${field} is not 64 hex`);
      return value.toLowerCase();
    }
  }
  const definition = entry.definition;
  return definitionSha256(
    definition !== null && typeof definition === "object" ? definition : entry,
  );
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function failed(endpoint: string, code: string, message: string): AttestResult {
  return {
    ok: false,
    endpoint,
    mismatched: [],
    missing: [],
    unexpected: [],
    error: { code, message },
  };
}

/**
 * Ask a DID.is-compatible service to inspect an MCP endpoint (`GET /v1/mcp/inspect`) and
 * compare what it serves with your pins. Never throws for a failed inspection: the result
 * is `ok: false` with `error` set. A report lists `tools`, each `{ name, sha256 }` (or
 * `digest`), `{ name, definition }`, or a bare tool definition.
 *
 * @throws {ToolGuardError} `GUARD_MISCONFIGURED` when the client, endpoint or pins are invalid.
 * @example
 * ```ts
 * import { DidisClient, attestMcpPins } from "agent-airlock/didis";
 * const client = new DidisClient({ baseUrl: "http://127.0.0.1:8787" });
 * const report = await attestMcpPins(client, "https://mcp.example.com/mcp", { get_forecast: "f1e1..." });
 * if (!report.ok) console.error(report.mismatched, report.unexpected, report.error);
 * ```
 */
export async function attestMcpPins(
  client: McpInspector,
  endpoint: string,
  pins: Readonly<Record<string, string>>,
): Promise<AttestResult> {
  if (client === null || typeof client !== "object" || typeof client.inspectMcp !== "function") {
    throw new ToolGuardError(
      "GUARD_MISCONFIGURED",
      undefined,
      "attestMcpPins needs a client with inspectMcp(endpoint)",
    );
  }
  if (typeof endpoint !== "string" || endpoint.length === 0) {
    throw new ToolGuardError(
      "GUARD_MISCONFIGURED",
      undefined,
      "endpoint must be a non-empty string",
    );
  }
  const pinned = readPins(pins);

  let report: unknown;
  try {
    report = await client.inspectMcp(endpoint);
  } catch (err) {
    return failed(endpoint, codeOf(err), `the endpoint could not be inspected: ${messageOf(err)}`);
  }
  try {
    return compare(endpoint, report, pinned);
  } catch (err) {
    // A report whose fields throw when read (a hostile proxy) is not a report.
    return failed(
      endpoint,
      "INSPECTION_UNREADABLE",
      `the inspection report could not be read: ${messageOf(err)}`,
    );
  }
}

function codeOf(err: unknown): string {
  try {
    const code = (err as { code?: unknown } | null)?.code;
    return typeof code === "string" && code.length <= 64 ? code : "INSPECTION_FAILED";
  } catch {
    return "INSPECTION_FAILED";
  }
}

function messageOf(err: unknown): string {
  try {
    const message = (err as { message?: unknown } | null)?.message;
    const text = typeof message === "string" ? message : String(err);
    return text.length > 500 ? `${text.slice(0, 500)}...` : text;
  } catch {
    return "an error that cannot be described";
  }
}

function compare(endpoint: string, report: unknown, pinned: Map<string, string>): AttestResult {
  const tools = (report as { tools?: unknown } | null)?.tools;
  if (!Array.isArray(tools)) {
    return failed(endpoint, "INSPECTION_UNREADABLE", "the inspection report has no tools list");
  }
  if (tools.length > MAX_ATTESTED_TOOLS) {
    return failed(
      endpoint,
      "INSPECTION_UNREADABLE",
      `the inspection lists more than ${MAX_ATTESTED_TOOLS} tools`,
    );
  }

  const served = new Map<string, (string | null)[]>();
  for (const entry of tools) {
    const name = (entry as { name?: unknown } | null)?.name;
    if (typeof name !== "string") {
      return failed(
        endpoint,
        "INSPECTION_UNREADABLE",
        "the inspection lists a tool without a name",
      );
    }
    let digest: string | null;
    try {
      digest = servedDigest(entry as Record<string, unknown>);
    } catch {
      digest = null;
    }
    const copies = served.get(name);
    if (copies === undefined) served.set(name, [digest]);
    else copies.push(digest);
  }

  const mismatched: AttestMismatch[] = [];
  const unexpected: string[] = [];
  for (const [name, copies] of served) {
    const pin = pinned.get(name);
    if (pin === undefined) {
      unexpected.push(name);
      continue;
    }
    const [first] = copies;
    if (copies.length > 1)
      mismatched.push({ name, pinned: pin, observed: null, reason: "duplicate" });
    else if (first === null || first === undefined)
      mismatched.push({ name, pinned: pin, observed: null, reason: "unreadable" });
    else if (!same(first, pin))
      mismatched.push({ name, pinned: pin, observed: first, reason: "digest" });
  }
  const missing = [...pinned.keys()].filter((name) => !served.has(name)).sort();
  unexpected.sort();
  mismatched.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return {
    ok: mismatched.length === 0 && unexpected.length === 0,
    endpoint,
    mismatched,
    missing,
    unexpected,
  };
}
