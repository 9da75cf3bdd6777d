/**
 * The JSON-file registry's format: `{"version": 1, "chains": [...], "revoked": [...]}`,
 * read strictly (a file that is not a registry is refused, never taken as empty) and
 * written the same way by every process.
 *
 * @module
 */
import { RegistryError } from "../delegation/errors.js";
import type { RegistrySnapshot } from "./memory.js";
import type { RegisteredChain } from "./registry.js";

/**
 * The version of the registry file format (`{"version": 1, "chains": [...], "revoked": [...]}`).
 *
 * @example
 * ```ts
 * import { REGISTRY_FILE_VERSION } from "agent-airlock/guard";
 * console.log(REGISTRY_FILE_VERSION); // 1
 * ```
 */
export const REGISTRY_FILE_VERSION = 1;
/**
 * Largest registry file read, in bytes; a larger one is refused (`REGISTRY_INVALID`).
 *
 * @example
 * ```ts
 * import { MAX_REGISTRY_FILE_BYTES } from "agent-airlock/guard";
 * console.log(MAX_REGISTRY_FILE_BYTES); // 67108864
 * ```
 */
export const MAX_REGISTRY_FILE_BYTES = 64 * 1024 * 1024;

/** The snapshot a registry file holds. @internal */
export function parseRegistryFile(text: string, path: string): RegistrySnapshot {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (cause) {
    throw new RegistryError("REGISTRY_INVALID", `${path} is not JSON`, { cause });
  }
  const d = data as { version?: unknown; chains?: unknown; revoked?: unknown } | null;
  if (typeof d !== "object" || d === null || Array.isArray(d)) {
    throw new RegistryError(
      "REGISTRY_INVALID",
      `${path} is not a registry file (expected an object)`,
    );
  }
  if (d.version !== REGISTRY_FILE_VERSION) {
    throw new RegistryError(
      "REGISTRY_INVALID",
      `${path} has version ${JSON.stringify(d.version)}; expected ${REGISTRY_FILE_VERSION}`,
    );
  }
  if (!Array.isArray(d.chains) || !Array.isArray(d.revoked)) {
    throw new RegistryError("REGISTRY_INVALID", `${path} needs "chains" and "revoked" arrays`);
  }
  const chains = d.chains.map((entry: unknown, i: number): RegisteredChain => {
    const e = entry as Partial<RegisteredChain> | null;
    if (
      typeof e !== "object" ||
      e === null ||
      !Array.isArray(e.chain) ||
      !Number.isSafeInteger(e.registeredAt)
    ) {
      throw new RegistryError(
        "REGISTRY_INVALID",
        `${path}: chains[${i}] needs "chain" and "registeredAt"`,
      );
    }
    return e as RegisteredChain;
  });
  return { chains, revoked: d.revoked as string[] };
}

/** The text of a registry file holding `snapshot`. @internal */
export function formatRegistryFile(snapshot: RegistrySnapshot): string {
  return `${JSON.stringify({ version: REGISTRY_FILE_VERSION, chains: snapshot.chains, revoked: snapshot.revoked }, null, 2)}\n`;
}
