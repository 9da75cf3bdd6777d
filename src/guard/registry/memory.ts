/**
 * The in-memory delegation registry: for tests, short-lived processes, and as the state
 * behind the file registry.
 *
 * @module
 */
import { RegistryError } from "../delegation/errors.js";
import {
  assertJti,
  copyRecord,
  type DelegationRegistry,
  describeChain,
  maxPerAgent,
  type RegisteredChain,
  type RegistryLimits,
} from "./registry.js";

/** Plain state a registry can be saved as and restored from (see `MemoryRegistry.snapshot`). */
export interface RegistrySnapshot {
  chains: RegisteredChain[];
  revoked: string[];
}

/**
 * The in-memory registry, with snapshot support for persistence.
 *
 * @example
 * ```ts
 * import { MemoryRegistry } from "agent-airlock/guard";
 * const registry = new MemoryRegistry({ maxChainsPerAgent: 8 });
 * await registry.register(chain);
 * console.log(registry.snapshot().chains.length); // 1
 * ```
 */
export class MemoryRegistry implements DelegationRegistry {
  readonly #byId = new Map<string, RegisteredChain>();
  readonly #byAgent = new Map<string, string[]>();
  readonly #revoked = new Set<string>();
  readonly #max: number;
  readonly #now: () => number;

  constructor(limits?: RegistryLimits & { clock?: () => number }) {
    this.#max = maxPerAgent(limits);
    this.#now = limits?.clock ?? Date.now;
  }

  /** Store a record as is (used when restoring a snapshot). */
  protected put(record: RegisteredChain): void {
    if (this.#byId.has(record.id)) return;
    const ids = this.#byAgent.get(record.agent) ?? [];
    if (ids.length >= this.#max) {
      throw new RegistryError(
        "REGISTRY_FULL",
        `agent ${record.agent} already has ${this.#max} chains registered; unregister some first`,
      );
    }
    ids.push(record.id);
    this.#byAgent.set(record.agent, ids);
    this.#byId.set(record.id, copyRecord(record));
  }

  async register(chain: readonly string[]): Promise<RegisteredChain> {
    const record = describeChain(chain, Math.floor(this.#now() / 1000));
    const existing = this.#byId.get(record.id);
    if (existing) return copyRecord(existing);
    this.put(record);
    return copyRecord(record);
  }

  async chainsFor(agent: string): Promise<RegisteredChain[]> {
    const ids = this.#byAgent.get(agent) ?? [];
    return ids.map((id) => copyRecord(this.#byId.get(id)!));
  }

  async list(): Promise<RegisteredChain[]> {
    return [...this.#byId.values()].map(copyRecord);
  }

  async unregister(id: string): Promise<boolean> {
    const record = this.#byId.get(id);
    if (!record) return false;
    this.#byId.delete(id);
    const ids = (this.#byAgent.get(record.agent) ?? []).filter((x) => x !== id);
    if (ids.length === 0) this.#byAgent.delete(record.agent);
    else this.#byAgent.set(record.agent, ids);
    return true;
  }

  async revoke(jti: string): Promise<void> {
    assertJti(jti);
    this.#revoked.add(jti);
  }

  async isRevoked(jti: string): Promise<boolean> {
    return this.#revoked.has(jti);
  }

  async close(): Promise<void> {}

  /** The registry's state as plain data. */
  snapshot(): RegistrySnapshot {
    return { chains: [...this.#byId.values()].map(copyRecord), revoked: [...this.#revoked].sort() };
  }

  /** Replace the state with a snapshot's (validating every record). */
  protected restore(snapshot: RegistrySnapshot): void {
    this.#byId.clear();
    this.#byAgent.clear();
    this.#revoked.clear();
    for (const record of snapshot.chains) {
      const described = describeChain(record.chain, record.registeredAt);
      this.put({ ...described, registeredAt: record.registeredAt });
    }
    for (const jti of snapshot.revoked) {
      assertJti(jti);
      this.#revoked.add(jti);
    }
  }
}

/**
 * A registry that lives in memory.
 *
 * @example
 * ```ts
 * import { createMemoryRegistry, localVerifier } from "agent-airlock/guard";
 * const registry = createMemoryRegistry();
 * await registry.register(chain);
 * const verifier = localVerifier({ registry, trustedRoots: [rootDid] });
 * ```
 */
export function createMemoryRegistry(limits?: RegistryLimits): MemoryRegistry {
  return new MemoryRegistry(limits);
}
