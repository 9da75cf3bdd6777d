/**
 * The delegation flags of `airlock proxy` (`--agent`, `--root`, one chain source:
 * `--chain` files checked offline, a `--registry`, or a `--didis-url` service with its
 * `--didis-token-file`; `--capabilities`, `--verify-timeout`, `--allow-cache`), read
 * into the proxy's delegation gate. The guard modules are imported only when the flags
 * are given, so a proxy without them loads none of them.
 */

import type { DelegationVerifier } from "../../guard/verifier.js";
import { readBoundedFile } from "../../lib/bounded-read.js";
import { findDuplicateKey } from "../../lib/json-duplicate-key.js";
import type { DelegationGate } from "../../proxy/delegation-gate.js";
import { readChainFile, readTokenFile, UsageError } from "./delegate-input.js";
import { openRegistry, showRegistry } from "./delegate-registry.js";

/** The delegation flags as commander parsed them. */
export interface DelegationFlags {
  agent?: string;
  root?: string[];
  chain?: string[];
  registry?: string;
  didisUrl?: string;
  didisTokenFile?: string;
  capabilities?: string;
  verifyTimeout?: number;
  allowCache?: number;
}

/** A delegation gate ready for the proxy, and how to let go of what it holds. */
export interface OpenedDelegation {
  gate: DelegationGate;
  /** Where chains come from, for the start-up line (no password, no token). */
  source: string;
  /** Things a person should know (a chain that ends at another agent). */
  warnings: string[];
  /** Close the registry, when there is one. */
  close(): Promise<void>;
}

/** Most bytes read from a capability table. */
const MAX_CAPABILITIES_BYTES = 1024 * 1024;

/**
 * What is wrong with the combination of delegation flags, or null: none given is fine
 * (pins only); otherwise `--agent`, at least one `--root` and exactly one chain source.
 *
 * @example
 * ```ts
 * import { delegationUsageProblem } from "./proxy-delegation.js";
 * console.log(delegationUsageProblem({})); // null
 * console.log(delegationUsageProblem({ agent: "did:key:z6Mk..." })); // "delegation needs --root DID ..."
 * ```
 */
export function delegationUsageProblem(flags: DelegationFlags): string | null {
  const sources = [
    (flags.chain?.length ?? 0) > 0,
    flags.registry !== undefined,
    flags.didisUrl !== undefined,
  ].filter(Boolean).length;
  const given =
    sources > 0 ||
    [
      flags.agent,
      flags.root,
      flags.capabilities,
      flags.didisTokenFile,
      flags.verifyTimeout,
      flags.allowCache,
    ].some((value) => value !== undefined);
  if (!given) return null;
  if (flags.agent === undefined) {
    return "delegation needs --agent DID (the agent whose chain must grant each call)";
  }
  if ((flags.root?.length ?? 0) === 0) {
    return "delegation needs --root DID (a trusted root the agent's chain starts from; repeatable)";
  }
  if (sources === 0) {
    return "delegation needs a chain source: --chain FILE, --registry PATH|postgres://..., or --didis-url URL";
  }
  if (sources > 1) return "give one chain source: --chain, --registry or --didis-url";
  if (flags.didisTokenFile !== undefined && flags.didisUrl === undefined) {
    return "--didis-token-file goes with --didis-url";
  }
  return null;
}

/**
 * Build the delegation gate the flags describe; undefined when none is given. Throws a
 * `UsageError` for files that cannot be read and the guard's `GUARD_MISCONFIGURED` (or
 * the registry's error) for settings that cannot be used.
 *
 * @example
 * ```ts
 * import { openDelegation } from "./proxy-delegation.js";
 * const opened = await openDelegation({ agent: agentDid, root: [rootDid], chain: ["agent.chain.json"] });
 * console.log(opened?.source); // "chain file(s) agent.chain.json"
 * await opened?.close();
 * ```
 */
export async function openDelegation(
  flags: DelegationFlags,
): Promise<OpenedDelegation | undefined> {
  const problem = delegationUsageProblem(flags);
  if (problem !== null) throw new UsageError(problem);
  if (flags.agent === undefined) return undefined;
  const [{ createDelegationGate }, capabilities] = await Promise.all([
    import("../../proxy/delegation-gate.js"),
    flags.capabilities === undefined ? undefined : readCapabilities(flags.capabilities),
  ]);
  const roots = flags.root ?? [];
  const { verifier, source, warnings, close } = await openVerifier(flags, roots);
  try {
    const gate = createDelegationGate({
      verifier,
      agent: flags.agent,
      roots,
      ...(capabilities !== undefined && { capabilities }),
      ...(flags.verifyTimeout !== undefined && { verifyTimeoutMs: flags.verifyTimeout }),
      ...(flags.allowCache !== undefined && { allowCacheSeconds: flags.allowCache }),
    });
    return { gate, source, warnings, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The verifier the chain source gives. */
interface OpenedVerifier {
  verifier: DelegationVerifier;
  source: string;
  warnings: string[];
  close(): Promise<void>;
}

async function openVerifier(flags: DelegationFlags, roots: string[]): Promise<OpenedVerifier> {
  const { localVerifier } = await import("../../guard/local-verifier.js");
  if (flags.registry !== undefined) {
    const registry = await openRegistry(flags.registry);
    return {
      verifier: localVerifier({ registry, trustedRoots: roots }),
      source: `registry ${showRegistry(flags.registry)}`,
      warnings: [],
      close: () => registry.close(),
    };
  }
  if (flags.didisUrl !== undefined) return openDidis(flags.didisUrl, flags.didisTokenFile);
  const files = flags.chain ?? [];
  const chains: string[][] = [];
  const warnings: string[] = [];
  for (const file of files) {
    // The proxy's stdin is the client's messages, never a chain.
    if (file === "-") throw new UsageError("--chain - is not accepted: give the chain's file");
    const chain = await readChainFile(file);
    if (!Array.isArray(chain) || !chain.every((link) => typeof link === "string")) {
      throw new UsageError(`chain ${file}: the chain must be an array of links (strings)`);
    }
    const end = await chainAudience(chain);
    if (end !== flags.agent) {
      warnings.push(
        `chain ${file} ends at ${end ?? "an unreadable link"}, not at --agent: it grants this agent nothing`,
      );
    }
    chains.push(chain);
  }
  return {
    verifier: localVerifier({ chains, trustedRoots: roots }),
    source: `chain file(s) ${files.join(", ")}`,
    warnings,
    close: async () => {},
  };
}

async function openDidis(url: string, tokenFile: string | undefined): Promise<OpenedVerifier> {
  const [{ DidisClient }, { didisVerifier }] = await Promise.all([
    import("../../guard/didis-client.js"),
    import("../../guard/didis-verifier.js"),
  ]);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--didis-url ${JSON.stringify(url)} is not a URL`);
  }
  const loopback = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i.test(parsed.hostname);
  if (parsed.protocol !== "https:" && !(parsed.protocol === "http:" && loopback)) {
    throw new UsageError(
      `--didis-url must be https:// (http:// only on loopback), got ${parsed.protocol}//${parsed.host}`,
    );
  }
  const token = tokenFile === undefined ? undefined : (await readTokenFile(tokenFile))[0];
  const client = new DidisClient({
    baseUrl: url,
    ...(token !== undefined && { headers: { authorization: `Bearer ${token}` } }),
  });
  return {
    verifier: didisVerifier(client),
    source: `service ${parsed.origin}${parsed.pathname === "/" ? "" : parsed.pathname}`,
    warnings: [],
    close: async () => {},
  };
}

async function chainAudience(chain: string[]): Promise<string | undefined> {
  const { decodeLink, readClaims } = await import("../../guard/delegation/link.js");
  try {
    return readClaims(decodeLink(chain[chain.length - 1]).claims).aud;
  } catch {
    return undefined;
  }
}

/** The `--capabilities` table: a JSON object of strings, no key twice. */
async function readCapabilities(path: string): Promise<Record<string, string>> {
  const read = await readBoundedFile(path, MAX_CAPABILITIES_BYTES);
  if (!read.ok) throw new UsageError(`cannot read capabilities ${path}: ${read.reason}`);
  const text = read.bytes.toString("utf8");
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`capabilities ${path} is not JSON: ${(error as Error).message}`);
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    throw new UsageError(`capabilities ${path}: expected {"tool name": "capability", ...}`);
  }
  const twice = findDuplicateKey(text);
  if (twice !== null) {
    throw new UsageError(
      `capabilities ${path}: tool ${JSON.stringify(twice.key.slice(0, 80))} is listed twice (line ${twice.line})`,
    );
  }
  return data as Record<string, string>;
}
