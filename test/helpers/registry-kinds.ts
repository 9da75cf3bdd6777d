/**
 * The registry kinds every registry test runs against, as one table: the contract suite
 * (test/delegation/registry.test.ts) and the cross-process suite
 * (test/delegation/registry-processes.test.ts) iterate it. To put a new registry under
 * the same contract, add one entry here.
 */
import { join } from "node:path";
import { openFileRegistry } from "../../src/guard/registry/file.js";
import { createMemoryRegistry } from "../../src/guard/registry/memory.js";
import type { DelegationRegistry, RegistryLimits } from "../../src/guard/registry/registry.js";
import { openSqliteRegistry } from "../../src/guard/registry/sqlite.js";

/** One fresh store of a kind. */
export interface RegistryStore {
  /** What `airlock delegate serve --registry` and `revoke --registry` take for this store. */
  target: string;
  /** Open a handle on the store in this process (each call a new handle on the same store). */
  open(limits?: RegistryLimits): Promise<DelegationRegistry>;
}

/** A kind of registry. */
export interface RegistryKind {
  name: string;
  /**
   * Whether several processes (and several handles in one process) may use one store at
   * once. The memory registry lives in one object.
   */
  shared: boolean;
  /** A new, empty store; `dir` is a scratch folder the test removes. */
  fresh(dir: string): RegistryStore;
}

let serial = 0;
const unique = (dir: string, extension: string) =>
  join(dir, `r-${process.pid}-${serial++}${extension}`);

export const REGISTRY_KINDS: readonly RegistryKind[] = [
  {
    name: "memory",
    shared: false,
    fresh: () => ({ target: "", open: async (limits) => createMemoryRegistry(limits) }),
  },
  {
    name: "file",
    shared: true,
    fresh(dir) {
      const path = unique(dir, ".json");
      return { target: path, open: (limits) => openFileRegistry(path, limits) };
    },
  },
  {
    name: "sqlite",
    shared: true,
    fresh(dir) {
      const path = unique(dir, ".db");
      return { target: path, open: (limits) => openSqliteRegistry(path, limits) };
    },
  },
];

/** The kinds several processes may share. */
export const SHARED_REGISTRY_KINDS = REGISTRY_KINDS.filter((kind) => kind.shared);
