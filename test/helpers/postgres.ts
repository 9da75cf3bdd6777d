/**
 * A real, throwaway PostgreSQL server for the tests and benches that need one: a scratch
 * data directory under the system temp folder, `initdb` (trust authentication, superuser
 * `airlock`), `pg_ctl start` on 127.0.0.1 at a free port with no Unix socket, and
 * `pg_ctl stop` plus removal of the folder in teardown. Each test file that needs it
 * starts one server (`sharedPostgres()`, lazily) and stops it in `afterAll`
 * (`stopSharedPostgres`); each store gets its own database on it.
 *
 * PostgreSQL refuses to run as root, and CI runs as root: then every PostgreSQL command
 * runs as the unprivileged user `postgres` (Debian's package creates it) or, failing
 * that, `nobody`, and the scratch folder is handed to that user. The binaries are looked
 * for on PATH, then in Debian's /usr/lib/postgresql/<version>/bin. Without them, the
 * suites that need them skip loudly (`describePostgres`), unless
 * AIRLOCK_REQUIRE_POSTGRES=1 (set by .ci/run), which makes a missing server a failure.
 */
import { spawn } from "node:child_process";
import {
  appendFileSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { describe, it } from "vitest";

/** Where initdb and pg_ctl are, or undefined when this machine has no PostgreSQL. */
function findBinaries(): { initdb: string; pgCtl: string } | undefined {
  const dirs = (process.env.PATH ?? "").split(delimiter).filter((d) => d !== "");
  const debian = "/usr/lib/postgresql";
  if (existsSync(debian)) {
    const versions = readdirSync(debian).sort((a, b) => Number(b) - Number(a));
    for (const version of versions) dirs.push(join(debian, version, "bin"));
  }
  for (const dir of dirs) {
    if (existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl"))) {
      return { initdb: join(dir, "initdb"), pgCtl: join(dir, "pg_ctl") };
    }
  }
  return undefined;
}

const binaries = findBinaries();

/** True when initdb and pg_ctl were found. */
export const hasPostgres = binaries !== undefined;

const required = process.env.AIRLOCK_REQUIRE_POSTGRES === "1";

/** The user PostgreSQL runs as: ourselves, or an unprivileged account when we are root. */
interface RunAs {
  uid: number;
  gid: number;
  name: string;
}

function readRunAs(): RunAs | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const users = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .map((line) => line.split(":"));
  for (const wanted of ["postgres", "nobody"]) {
    const entry = users.find((u) => u[0] === wanted);
    if (entry) return { name: wanted, uid: Number(entry[2]), gid: Number(entry[3]) };
  }
  throw new Error(
    "running as root, and neither a postgres nor a nobody user exists to run PostgreSQL as",
  );
}

function exec(command: string, args: readonly string[], runAs: RunAs | undefined, cwd: string) {
  return new Promise<void>((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, LC_ALL: "C", TZ: "UTC" },
      ...(runAs && { uid: runAs.uid, gid: runAs.gid }),
    });
    let output = "";
    child.stdout!.on("data", (c: Buffer) => {
      output += c;
    });
    child.stderr!.on("data", (c: Buffer) => {
      output += c;
    });
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`${command} ${args.join(" ")} exited ${code}: ${output.slice(-2000)}`)),
    );
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A running scratch PostgreSQL server. */
export interface PostgresServer {
  readonly port: number;
  /** `postgres://airlock@127.0.0.1:<port>/<database>` (default database `postgres`). */
  url(database?: string): string;
  /** A new empty database; its URL. */
  createDatabase(): Promise<string>;
  /** Stop the server (fast shutdown: open connections are ended), keeping its data. */
  stop(): Promise<void>;
  /** Start it again on the same port and data. */
  start(): Promise<void>;
  /** Stop it and remove its folder. */
  destroy(): Promise<void>;
}

/** Settings for a test server: loopback TCP only, no durability on fsync (tests only). */
function serverConfig(port: number, durable: boolean): string {
  return [
    "listen_addresses = '127.0.0.1'",
    `port = ${port}`,
    "unix_socket_directories = ''",
    "max_connections = 200",
    "shared_buffers = 32MB",
    ...(durable ? [] : ["fsync = off", "synchronous_commit = off", "full_page_writes = off"]),
    "",
  ].join("\n");
}

let databases = 0;

/**
 * Create and start a scratch server. `durable: true` keeps PostgreSQL's default fsync
 * settings (for benches); tests turn fsync off, which only matters if the machine crashes.
 */
export async function startPostgres(options: { durable?: boolean } = {}): Promise<PostgresServer> {
  if (!binaries) throw new Error("PostgreSQL binaries (initdb, pg_ctl) not found");
  const runAs = readRunAs();
  const base = mkdtempSync(join(tmpdir(), "airlock-pg-"));
  if (runAs) chownSync(base, runAs.uid, runAs.gid);
  const data = join(base, "data");
  const log = join(base, "server.log");
  const pgCtl = (...args: string[]) => exec(binaries.pgCtl, ["-D", data, ...args], runAs, base);
  try {
    await exec(
      binaries.initdb,
      ["-D", data, "-U", "airlock", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"],
      runAs,
      base,
    );
  } catch (err) {
    rmSync(base, { recursive: true, force: true });
    throw err;
  }
  const start = () => pgCtl("start", "-w", "-t", "120", "-l", log);
  let port = 0;
  for (let attempt = 0; ; attempt++) {
    port = await freePort();
    appendFileSync(join(data, "postgresql.conf"), serverConfig(port, options.durable === true));
    try {
      await start();
      break;
    } catch (err) {
      // Another process took the port between our probe and the server's bind: retry.
      if (attempt >= 2) {
        rmSync(base, { recursive: true, force: true });
        throw err;
      }
    }
  }
  const stopOnExit = () => killPostmaster(data, base);
  process.once("exit", stopOnExit);
  const url = (database = "postgres") => `postgres://airlock@127.0.0.1:${port}/${database}`;
  return {
    port,
    url,
    async createDatabase() {
      const name = `r_${process.pid}_${databases++}`;
      const { default: pg } = await import("pg");
      const client = new pg.Client({ connectionString: url() });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return url(name);
    },
    stop: () => pgCtl("stop", "-w", "-m", "fast"),
    start,
    async destroy() {
      process.off("exit", stopOnExit);
      await pgCtl("stop", "-w", "-m", "immediate").catch(() => {});
      rmSync(base, { recursive: true, force: true });
    },
  };
}

/** Last resort when a test process ends without teardown: kill the server, remove its folder. */
function killPostmaster(data: string, base: string): void {
  try {
    const pid = Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0]);
    if (Number.isSafeInteger(pid) && pid > 0) process.kill(pid, "SIGQUIT");
  } catch {
    // Not running.
  }
  rmSync(base, { recursive: true, force: true });
}

let shared: Promise<PostgresServer> | undefined;

/** The one server of this test file, started on first use. */
export function sharedPostgres(): Promise<PostgresServer> {
  shared ??= startPostgres();
  return shared;
}

/** Stop and remove the server of this test file, if one was started (for `afterAll`). */
export async function stopSharedPostgres(): Promise<void> {
  if (!shared) return;
  const server = await shared.catch(() => undefined);
  shared = undefined;
  await server?.destroy();
}

/** Why PostgreSQL tests cannot run here, said loudly once. */
function announceMissing(name: string): void {
  process.stderr.write(
    `\n*** SKIPPED "${name}": PostgreSQL binaries (initdb, pg_ctl) were not found on PATH or in /usr/lib/postgresql/*/bin. These tests did not run. Install Debian's postgresql package to run them. ***\n`,
  );
}

/**
 * `describe` for tests that need a real PostgreSQL: without the binaries the suite is
 * skipped and says so on stderr, or fails when AIRLOCK_REQUIRE_POSTGRES=1 (CI).
 */
export function describePostgres(name: string, fn: () => void): void {
  if (hasPostgres) {
    describe(name, fn);
    return;
  }
  if (required) {
    describe(name, () => {
      it("needs PostgreSQL (AIRLOCK_REQUIRE_POSTGRES=1)", () => {
        throw new Error("PostgreSQL binaries (initdb, pg_ctl) not found, and CI requires them");
      });
    });
    return;
  }
  announceMissing(name);
  describe.skip(`${name} [SKIPPED: PostgreSQL binaries missing]`, () => {
    it("needs initdb and pg_ctl", () => {});
  });
}

/** Say loudly that the PostgreSQL kind is left out of a table of registry kinds. */
export function announcePostgresMissing(what: string): void {
  if (required) {
    throw new Error(`${what}: PostgreSQL binaries not found, and CI requires them`);
  }
  announceMissing(what);
}
