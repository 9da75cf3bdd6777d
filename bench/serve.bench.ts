/**
 * `verify-tool` through real `airlock delegate serve` processes (the shipped bundle) over
 * HTTP keep-alive connections, on a PostgreSQL registry (a scratch server with its
 * default, durable settings, test/helpers/postgres.ts) against a SQLite registry measured
 * in the same run: 1, 16 and 64 connections to one instance, and 16 and 64 connections
 * spread over two instances on the same store. The load generator runs in this process,
 * on the same two cores as the servers and the database: the figures are ratios, never
 * capacities.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { issueDelegation } from "../src/guard/delegation/issue.js";
import { generateDelegationKey } from "../src/guard/did/keys.js";
import { startPostgres } from "../test/helpers/postgres.js";
import { AIRLOCK_BIN } from "../test/helpers/serve-process.js";
import { formatRatio, table } from "./lib/measure.js";

/** Seconds of load per measurement, after a short warm-up. */
const SECONDS = 3;
const PASSES = 3;
const AGENTS = 32;

export const title = "delegate serve: verify-tool on PostgreSQL vs SQLite, one and two instances";

interface Instance {
  port: number;
  child: ChildProcess;
}

async function startInstance(registry: string): Promise<Instance> {
  const child = spawn(
    process.execPath,
    [AIRLOCK_BIN, "delegate", "serve", "--registry", registry, "--port", "0", "--output", "json"],
    { stdio: ["ignore", "pipe", "ignore"] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      if (out.includes("}")) resolve((JSON.parse(out) as { url: string }).url);
    });
    child.once("exit", (code) => reject(new Error(`serve exited ${code}`)));
  });
  return { port: Number(new URL(url).port), child };
}

function stopInstance(instance: Instance): Promise<void> {
  return new Promise((resolve) => {
    if (instance.child.exitCode !== null) return resolve();
    instance.child.once("exit", () => resolve());
    instance.child.kill("SIGTERM");
  });
}

/** One HTTP exchange on a keep-alive agent: status and body. */
function exchange(
  agent: Agent,
  port: number,
  method: string,
  path: string,
  body?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        method,
        path,
        agent,
        headers: { "content-type": "application/json" },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (c: string) => {
          text += c;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

interface Load {
  perSecond: number;
  p50: number;
  p99: number;
  failures: number;
}

/** `connections` loops of verify-tool for `SECONDS`, spread over `instances`. */
async function load(instances: Instance[], connections: number, paths: string[]): Promise<Load> {
  const agents = instances.map(() => new Agent({ keepAlive: true, maxSockets: connections }));
  const latencies: number[] = [];
  let failures = 0;
  const run = async (seconds: number, keep: boolean) => {
    const end = performance.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: connections }, async (_, w) => {
        const k = w % instances.length;
        for (let i = w; performance.now() < end; i += connections) {
          const t0 = performance.now();
          const answer = await exchange(
            agents[k]!,
            instances[k]!.port,
            "GET",
            paths[i % paths.length]!,
          );
          if (!keep) continue;
          latencies.push(performance.now() - t0);
          if (answer.status !== 200 || !answer.body.includes('"ALLOW"')) failures++;
        }
      }),
    );
  };
  await run(0.5, false);
  await run(SECONDS, true);
  for (const agent of agents) agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))]!;
  return { perSecond: latencies.length / SECONDS, p50: at(0.5), p99: at(0.99), failures };
}

const CASES: readonly { instances: 1 | 2; connections: number }[] = [
  { instances: 1, connections: 1 },
  { instances: 1, connections: 16 },
  { instances: 1, connections: 64 },
  { instances: 2, connections: 16 },
  { instances: 2, connections: 64 },
];

async function questions(root: ReturnType<typeof generateDelegationKey>) {
  const chains: string[][] = [];
  const paths: string[] = [];
  for (let i = 0; i < AGENTS; i++) {
    const agent = generateDelegationKey();
    const { chain } = await issueDelegation({
      issuer: root,
      audience: agent.did,
      capabilities: ["weather:*"],
      ttlSeconds: 3600,
    });
    chains.push(chain);
    const q = new URLSearchParams({ agent: agent.did, tool: "weather:forecast", root: root.did });
    paths.push(`/v1/agents/verify-tool?${q}`);
  }
  return { chains, paths };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function run(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "airlock-bench-serve-"));
  const postgres = await startPostgres({ durable: true });
  const started: Instance[] = [];
  try {
    const root = generateDelegationKey();
    const { chains, paths } = await questions(root);
    const stores = { sqlite: join(dir, "bench.db"), postgres: await postgres.createDatabase() };
    const pairs: Record<string, Instance[]> = {};
    for (const [name, target] of Object.entries(stores)) {
      const pair = [await startInstance(target), await startInstance(target)];
      started.push(...pair);
      pairs[name] = pair;
      const agent = new Agent({ keepAlive: true });
      for (const chain of chains) {
        const body = JSON.stringify({ chain, trustedRoots: [root.did], register: true });
        const answer = await exchange(
          agent,
          pair[0]!.port,
          "POST",
          "/v1/agents/verify-delegation",
          body,
        );
        if (answer.status !== 200) throw new Error(`registration failed: ${answer.body}`);
      }
      agent.destroy();
    }
    // Interleaved passes: a burst of load on the machine hits every case of a pass alike.
    const results = new Map<string, Load[]>();
    for (let pass = 0; pass < PASSES; pass++) {
      for (const c of CASES) {
        for (const name of Object.keys(stores)) {
          const key = `${name} ${c.instances} ${c.connections}`;
          const got = await load(pairs[name]!.slice(0, c.instances), c.connections, paths);
          results.set(key, [...(results.get(key) ?? []), got]);
        }
      }
    }
    return report(results);
  } finally {
    await Promise.all(started.map(stopInstance));
    await postgres.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

function report(results: Map<string, Load[]>): string {
  const mid = (key: string, f: (l: Load) => number) => median(results.get(key)!.map(f));
  const rate = (name: string, n: number, c: number) => mid(`${name} ${n} ${c}`, (l) => l.perSecond);
  const failures = [...results.values()].flat().reduce((sum, l) => sum + l.failures, 0);
  const rows = CASES.map(({ instances: n, connections: c }) => [
    `${n} instance${n === 2 ? "s" : ""}, ${c} connection${c === 1 ? "" : "s"}`,
    `${rate("sqlite", n, c).toFixed(0)} /s (p50 ${mid(`sqlite ${n} ${c}`, (l) => l.p50).toFixed(2)} ms, p99 ${mid(`sqlite ${n} ${c}`, (l) => l.p99).toFixed(1)} ms)`,
    `${rate("postgres", n, c).toFixed(0)} /s (p50 ${mid(`postgres ${n} ${c}`, (l) => l.p50).toFixed(2)} ms, p99 ${mid(`postgres ${n} ${c}`, (l) => l.p99).toFixed(1)} ms)`,
    formatRatio(rate("postgres", n, c) / rate("sqlite", n, c)),
    n === 2
      ? `SQLite ${formatRatio(rate("sqlite", 2, c) / rate("sqlite", 1, c))}, PostgreSQL ${formatRatio(rate("postgres", 2, c) / rate("postgres", 1, c))}`
      : "",
  ]);
  return `${table(
    [
      "verify-tool (1-link chain, ALLOW)",
      "SQLite",
      "PostgreSQL",
      "PostgreSQL / SQLite",
      "2 instances / 1",
    ],
    rows,
  )}

Requests per second over ${SECONDS} s of keep-alive load, median of ${PASSES} interleaved passes;
${AGENTS} agents, one registered chain each; the PostgreSQL instances use their default pool
of 10 connections. Answers that were not a 200 ALLOW: ${failures}. A verify-tool question reads
the agent's chains and the revocation of each link: two statements either way, run in
the serving process by SQLite and two round trips to the database server for PostgreSQL
(pool checkout, protocol, a server backend). On this 2-core machine the load generator,
both instances and PostgreSQL share the cores, so a second instance adds processes, not
capacity: the two-instance rows show what sharing one store costs here, not how
far it scales on more machines.

_Load average at the end of the run: ${loadavg()[0]!.toFixed(1)} on the shared cores._`;
}
