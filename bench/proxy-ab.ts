/**
 * Paired A/B of `airlock proxy` per-call latency between two builds, for a change whose
 * cost must be judged against the code before it on a noisy machine: the same real SDK
 * client calls the same trivial tool (`echo` of test/fixtures/operator/rug-pull-server.mjs)
 * directly, through the baseline's proxy and through this checkout's proxy, in blocks
 * whose order rotates every round, so load that comes and goes hits all three alike.
 * Besides wall-clock latency it reads each proxy process's CPU time from /proc (Linux),
 * which waiting for a shared core does not inflate.
 *
 *   node --import tsx bench/proxy-ab.ts <baseline checkout> [rounds=40] [block=50]
 *
 * Both checkouts must be built (`dist/bundle/bin.js`). Not part of `npm run bench`: it
 * needs a second checkout.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const here = join(dirname(fileURLToPath(import.meta.url)), "..");
const baseline = resolve(process.argv[2] ?? "");
const ROUNDS = Number(process.argv[3] ?? 40);
const BLOCK = Number(process.argv[4] ?? 50);
const WARMUP = 200;
const server = join(here, "test/fixtures/operator/rug-pull-server.mjs");

interface Path {
  label: string;
  client: Client;
  transport: StdioClientTransport;
  samples: number[];
  roundMedians: number[];
  cpuTicks: number;
}

/** utime + stime of a process, in clock ticks. */
function cpuTicks(pid: number | null): number {
  if (pid === null) return 0;
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]);
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
  return { label, client, transport, samples: [], roundMedians: [], cpuTicks: 0 };
}

async function calls(path: Path, n: number, keep: boolean): Promise<void> {
  const round: number[] = [];
  const before = cpuTicks(path.transport.pid);
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await path.client.callTool({ name: "echo", arguments: { text: "ping" } });
    round.push((performance.now() - t0) * 1e3);
  }
  if (!keep) return;
  path.cpuTicks += cpuTicks(path.transport.pid) - before;
  path.samples.push(...round);
  path.roundMedians.push(median(round));
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

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "airlock-proxy-ab-"));
  const paths: Path[] = [];
  try {
    const proxyOf = (checkout: string, name: string) => {
      const pins = join(dir, `${name}.pins.json`);
      pinWith(checkout, pins);
      return [
        join(checkout, "dist/bundle/bin.js"),
        "proxy",
        "--pins",
        pins,
        "--",
        process.execPath,
        server,
      ];
    };
    paths.push(await open("direct", [server]));
    paths.push(await open("baseline proxy", proxyOf(baseline, "baseline")));
    paths.push(await open("this proxy", proxyOf(here, "this")));
    for (const path of paths) await calls(path, WARMUP, false);
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < paths.length; k++) {
        await calls(paths[(round + k) % paths.length]!, BLOCK, true);
      }
    }
    const [direct, base, self] = paths as [Path, Path, Path];
    const perRound = self.roundMedians.map((m, i) => m / base.roundMedians[i]!);
    const addedPerRound = self.roundMedians.map(
      (m, i) => (m - direct.roundMedians[i]!) / (base.roundMedians[i]! - direct.roundMedians[i]!),
    );
    const ticksPerCall = (p: Path) => p.cpuTicks / (ROUNDS * BLOCK);
    const result = {
      rounds: ROUNDS,
      block: BLOCK,
      medianUs: Object.fromEntries(paths.map((p) => [p.label, Math.round(median(p.samples))])),
      ratioOfMedians: median(self.samples) / median(base.samples),
      perRoundRatioQuartiles: quartiles(perRound),
      addedLatencyRatioQuartiles: quartiles(addedPerRound),
      proxyCpuMsPerCall: {
        baseline: (ticksPerCall(base) * 1000) / 100,
        this: (ticksPerCall(self) * 1000) / 100,
      },
      cpuRatio: base.cpuTicks === 0 ? null : self.cpuTicks / base.cpuTicks,
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    for (const path of paths) await path.client.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
