/**
 * Paired A/B of `airlock proxy` per-call cost between two builds, for a change whose
 * cost must be judged against the code before it on a noisy machine. Each round starts a
 * fresh proxy of each build in front of the same trivial tool (`echo` of
 * test/fixtures/operator/rug-pull-server.mjs), warms both, then times one real SDK
 * client's sequential calls through each in alternating blocks (the order reversed every
 * block, the start order every round), so load that comes and goes, and whatever one
 * process happens to get from the machine, falls on both builds alike. Besides wall-clock
 * latency it reads each proxy process's CPU time from the schedstat file of each of its
 * threads under /proc (Linux), which waiting for a shared core does not inflate. Reported:
 * quartiles over rounds of this build's median latency and CPU per call over the
 * baseline's.
 *
 *   node --import tsx bench/proxy-ab.ts <baseline checkout> [rounds=30] [block=25]
 *
 * Both checkouts must be built (`dist/bundle/bin.js`). Not part of `npm run bench`: it
 * needs a second checkout.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const here = join(dirname(fileURLToPath(import.meta.url)), "..");
const baseline = resolve(process.argv[2] ?? "");
const ROUNDS = Number(process.argv[3] ?? 30);
const BLOCK = Number(process.argv[4] ?? 25);
/** Blocks per proxy and round, the order of the two builds reversed each time. */
const SLICES = 8;
const WARMUP = 150;
const server = join(here, "test/fixtures/operator/rug-pull-server.mjs");

interface Path {
  label: string;
  client: Client;
  transport: StdioClientTransport;
  samples: number[];
  cpuNs: number;
}

/** CPU time of a process, every thread, in nanoseconds (the first field of each schedstat). */
function cpuNs(pid: number | null): number {
  if (pid === null) return 0;
  let total = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    total += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]);
  }
  return total;
}

async function open(label: string, args: string[]): Promise<Path> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    cwd: here,
    stderr: "ignore",
  });
  const client = new Client({ name: "proxy-ab", version: "1" });
  await client.connect(transport);
  return { label, client, transport, samples: [], cpuNs: 0 };
}

async function calls(path: Path, n: number, keep: boolean): Promise<void> {
  const round: number[] = [];
  const before = cpuNs(path.transport.pid);
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await path.client.callTool({ name: "echo", arguments: { text: "ping" } });
    round.push((performance.now() - t0) * 1e3);
  }
  if (!keep) return;
  path.cpuNs += cpuNs(path.transport.pid) - before;
  path.samples.push(...round);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function quartiles(values: number[]): [number, number, number] {
  const s = [...values].sort((a, b) => a - b);
  return [
    s[Math.floor(s.length / 4)]!,
    s[Math.floor(s.length / 2)]!,
    s[Math.floor((3 * s.length) / 4)]!,
  ];
}

function pinWith(checkout: string, pins: string): void {
  execFileSync(
    process.execPath,
    [
      join(checkout, "dist/bundle/bin.js"),
      "pin",
      "--pins",
      pins,
      "--yes",
      "--",
      process.execPath,
      server,
    ],
    { stdio: "ignore" },
  );
}

/** One round: fresh proxies of both builds (started in `order`), warmed, then measured in alternating blocks. */
async function round(dir: string, first: "baseline" | "this"): Promise<{ base: Path; self: Path }> {
  const proxyArgs = (name: string) => [
    join(name === "baseline" ? baseline : here, "dist/bundle/bin.js"),
    "proxy",
    "--pins",
    join(dir, `${name}.pins.json`),
    "--",
    process.execPath,
    server,
  ];
  const order = first === "baseline" ? ["baseline", "this"] : ["this", "baseline"];
  const opened: Record<string, Path> = {};
  for (const name of order) opened[name] = await open(name, proxyArgs(name));
  const base = opened.baseline!;
  const self = opened.this!;
  try {
    for (const name of order) await calls(opened[name]!, WARMUP, false);
    for (let k = 0; k < SLICES; k++) {
      for (const name of k % 2 === 0 ? order : [...order].reverse()) {
        await calls(opened[name]!, BLOCK, true);
      }
    }
  } finally {
    await base.client.close();
    await self.client.close();
  }
  return { base, self };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "airlock-proxy-ab-"));
  try {
    pinWith(baseline, join(dir, "baseline.pins.json"));
    pinWith(here, join(dir, "this.pins.json"));
    const wall: number[] = [];
    const cpu: number[] = [];
    const medians = { baseline: [] as number[], this: [] as number[] };
    const cpuUs = { baseline: [] as number[], this: [] as number[] };
    for (let r = 0; r < ROUNDS; r++) {
      const { base, self } = await round(dir, r % 2 === 0 ? "baseline" : "this");
      wall.push(median(self.samples) / median(base.samples));
      cpu.push(self.cpuNs / base.cpuNs);
      medians.baseline.push(median(base.samples));
      medians.this.push(median(self.samples));
      cpuUs.baseline.push(base.cpuNs / base.samples.length / 1000);
      cpuUs.this.push(self.cpuNs / self.samples.length / 1000);
    }
    const result = {
      rounds: ROUNDS,
      callsPerProxyPerRound: SLICES * BLOCK,
      medianCallUs: { baseline: median(medians.baseline), this: median(medians.this) },
      proxyCpuUsPerCall: { baseline: median(cpuUs.baseline), this: median(cpuUs.this) },
      wallRatioQuartiles: quartiles(wall),
      cpuRatioQuartiles: quartiles(cpu),
      roundsThisSlower: wall.filter((x) => x > 1).length,
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
