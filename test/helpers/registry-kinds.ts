/**
 * The registry kinds every registry test runs against, as one table: the contract suite
 * (test/delegation/registry.test.ts) and the cross-process suite
 * (test/delegation/registry-processes.test.ts) iterate it. To put a new registry under
 * the same contract, add one entry here. The PostgreSQL kind needs a real server: each
 * test file that uses it starts one (test/helpers/postgres.ts) and must call
 * `closeRegistryKinds` in `afterAll`; without the PostgreSQL binaries the kind is left out,
 * loudly (and CI, which sets AIRLOCK_REQUIRE_POSTGRES=1, fails instead).
 */
import { join } from "node:path";
import { openFileRegistry } from "../../src/guard/registry/file.js";
import { createMemoryRegistry } from "../../src/guard/registry/memory.js";
import { openPostgresRegistry } from "../../src/guard/registry/postgres.js";
import type { DelegationRegistry, RegistryLimits } from "../../src/guard/registry/registry.js";
import { openSqliteRegistry } from "../../src/guard/registry/sqlite.js";
import {
  announcePostgresMissing,
  hasPostgres,
  sharedPostgres,
  stopSharedPostgres,
} from "./postgres.js";

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
  fresh(dir: string): Promise<RegistryStore>;
}

/** Whether the PostgreSQL kind can run here; says so loudly when it cannot. */
function postgresKindAvailable(): boolean {
  if (!hasPostgres) announcePostgresMissing("the postgres registry kind");
  return hasPostgres;
}

let serial = 0;
const unique = (dir: string, extension: string) =>
  join(dir, `r-${process.pid}-${serial++}${extension}`);

export const REGISTRY_KINDS: readonly RegistryKind[] = [
  {
    name: "memory",
    shared: false,
    fresh: async () => ({ target: "", open: async (limits) => createMemoryRegistry(limits) }),
  },
  {
    name: "file",
    shared: true,
    async fresh(dir) {
      const path = unique(dir, ".json");
      return { target: path, open: (limits) => openFileRegistry(path, limits) };
    },
  },
  {
    name: "sqlite",
    shared: true,
    async fresh(dir) {
      const path = unique(dir, ".db");
      return { target: path, open: (limits) => openSqliteRegistry(path, limits) };
    },
  },
  ...(postgresKindAvailable()
    ? [
        {
          name: "postgres",
          shared: true,
          // A new database on this file's server: the target is its URL, as
          // `delegate serve --registry` takes it.
          async fresh() {
            const url = await (await sharedPostgres()).createDatabase();
            return {
              target: url,
              open: (limits?: RegistryLimits) => openPostgresRegistry(url, limits),
            };
          },
        },
      ]
    : []),
];

/** Stop what the kinds started (the PostgreSQL server of this file); call in `afterAll`. */
export async function closeRegistryKinds(): Promise<void> {
  await stopSharedPostgres();
}

/** The kinds several processes may share. */
export const SHARED_REGISTRY_KINDS = REGISTRY_KINDS.filter((kind) => kind.shared);
