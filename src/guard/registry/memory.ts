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
  maxTotal,
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
  readonly #maxTotal: number;
  readonly #now: () => number;
  #changes = 0;

  constructor(limits?: RegistryLimits) {
    this.#max = maxPerAgent(limits);
    this.#maxTotal = maxTotal(limits);
    this.#now = limits?.clock ?? Date.now;
  }

  /** Counts mutations, so a persisting subclass knows whether to write. */
  protected get changes(): number {
    return this.#changes;
  }

  #nowSeconds(): number {
    return Math.floor(this.#now() / 1000);
  }

  #dropExpired(ids: readonly string[]): void {
    const now = this.#nowSeconds();
    for (const id of ids) {
      const record = this.#byId.get(id);
      if (record && record.notAfter <= now) this.#remove(record);
    }
  }

  /** Store a record as is (also used when restoring a snapshot). */
  protected put(record: RegisteredChain): void {
    if (this.#byId.has(record.id)) return;
    if ((this.#byAgent.get(record.agent)?.length ?? 0) >= this.#max) {
      this.#dropExpired(this.#byAgent.get(record.agent) ?? []);
    }
    if (this.#byId.size >= this.#maxTotal) this.#dropExpired([...this.#byId.keys()]);
    const ids = this.#byAgent.get(record.agent) ?? [];
    if (ids.length >= this.#max) {
      throw new RegistryError(
        "REGISTRY_FULL",
        `agent ${record.agent} already has ${this.#max} unexpired chains registered; unregister some first`,
      );
    }
    if (this.#byId.size >= this.#maxTotal) {
      throw new RegistryError(
        "REGISTRY_FULL",
        `the registry holds ${this.#maxTotal} unexpired chains`,
      );
    }
    ids.push(record.id);
    this.#byAgent.set(record.agent, ids);
    this.#byId.set(record.id, copyRecord(record));
    this.#changes++;
  }

  #remove(record: RegisteredChain): void {
    this.#byId.delete(record.id);
    const ids = (this.#byAgent.get(record.agent) ?? []).filter((x) => x !== record.id);
    if (ids.length === 0) this.#byAgent.delete(record.agent);
    else this.#byAgent.set(record.agent, ids);
    this.#changes++;
  }

  async register(chain: readonly string[]): Promise<RegisteredChain> {
    const record = describeChain(chain, this.#nowSeconds());
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
    this.#remove(record);
    return true;
  }

  async revoke(jti: string): Promise<void> {
    assertJti(jti);
    if (this.#revoked.has(jti)) return;
    this.#revoked.add(jti);
    this.#changes++;
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
