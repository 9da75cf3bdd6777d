import { performance } from "node:perf_hooks";

/** Result of {@link measure}: nanoseconds per operation. */
export interface Measurement {
  /** Median ns/op over the rounds. */
  median: number;
  /** Fastest round, ns/op. */
  min: number;
  /** Rounds measured. */
  rounds: number;
  /** Operations per round. */
  opsPerRound: number;
}

/** Microseconds of CPU this process has used (user and system, every thread). */
function cpuMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

// Operations per round so that one round takes about `roundMs`.
function calibrate(fn: () => unknown, roundMs: number): number {
  for (let ops = 1; ; ops *= 4) {
    const t0 = performance.now();
    for (let i = 0; i < ops; i++) fn();
    const dt = performance.now() - t0;
    if (dt >= roundMs / 4 || ops >= 1 << 24)
      return Math.max(1, Math.round((ops * roundMs) / Math.max(dt, 0.001)));
  }
}

async function calibrateAsync(fn: () => Promise<unknown>, roundMs: number): Promise<number> {
  for (let ops = 1; ; ops *= 4) {
    const t0 = performance.now();
    for (let i = 0; i < ops; i++) await fn();
    const dt = performance.now() - t0;
    if (dt >= roundMs / 4 || ops >= 1 << 20)
      return Math.max(1, Math.round((ops * roundMs) / Math.max(dt, 0.001)));
  }
}

function summarise(samples: number[], opsPerRound: number): Measurement {
  samples.sort((a, b) => a - b);
  return {
    median: samples[Math.floor(samples.length / 2)]!,
    min: samples[0]!,
    rounds: samples.length,
    opsPerRound,
  };
}

/**
 * Time `fn` (one operation per call). Calibrates the batch size to about `roundMs`,
 * then takes `rounds` rounds and reports the median. Machines here are noisy: compare
 * medians measured in the same run, as ratios, never absolute numbers across runs.
 */
export function measure(
  fn: () => unknown,
  opts: { rounds?: number; roundMs?: number; clock?: "wall" | "cpu" } = {},
): Measurement {
  const now = opts.clock === "cpu" ? () => cpuMicros() / 1000 : () => performance.now();
  const ops = calibrate(fn, opts.roundMs ?? 40);
  const samples: number[] = [];
  for (let r = 0; r < (opts.rounds ?? 15); r++) {
    const t0 = now();
    for (let i = 0; i < ops; i++) fn();
    samples.push(((now() - t0) * 1e6) / ops);
  }
  return summarise(samples, ops);
}

/** Async variant of {@link measure} for operations that return a promise. */
export async function measureAsync(
  fn: () => Promise<unknown>,
  opts: { rounds?: number; roundMs?: number } = {},
): Promise<Measurement> {
  const ops = await calibrateAsync(fn, opts.roundMs ?? 40);
  const samples: number[] = [];
  for (let r = 0; r < (opts.rounds ?? 15); r++) {
    const t0 = performance.now();
    for (let i = 0; i < ops; i++) await fn();
    samples.push(((performance.now() - t0) * 1e6) / ops);
  }
  return summarise(samples, ops);
}

/** Format nanoseconds for a table: `850 ns`, `12.3 µs`, `4.56 ms`. */
export function formatNs(ns: number): string {
  if (ns < 1_000) return `${ns.toFixed(0)} ns`;
  if (ns < 1_000_000) return `${(ns / 1_000).toFixed(2)} µs`;
  if (ns < 1_000_000_000) return `${(ns / 1_000_000).toFixed(2)} ms`;
  return `${(ns / 1_000_000_000).toFixed(2)} s`;
}

/** A ratio for a table: `2.41x`. */
export function formatRatio(x: number): string {
  return `${x.toFixed(2)}x`;
}

/** A Markdown table from a header row and body rows. */
export function table(header: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

/**
 * Measure several operations in interleaved rounds (A, B, C, A, B, C, ...), so machine
 * noise hits each alike and their ratios stay meaningful on a loaded machine. Returns
 * the median ns/op of each (or, with `statistic: "min"`, its fastest round: the round
 * least disturbed by other jobs), in the order given.
 */
export function measureInterleaved(
  fns: (() => unknown)[],
  opts: {
    rounds?: number;
    roundMs?: number;
    statistic?: "median" | "min";
    /** `cpu`: time rounds by the CPU the process used (see measureInterleavedAsync). */
    clock?: "wall" | "cpu";
  } = {},
): number[] {
  const now = opts.clock === "cpu" ? () => cpuMicros() / 1000 : () => performance.now();
  const rounds = opts.rounds ?? 21;
  const ops = fns.map((fn) => calibrate(fn, opts.roundMs ?? 30));
  const samples: number[][] = fns.map(() => []);
  for (let r = 0; r < rounds; r++) {
    fns.forEach((fn, k) => {
      const n = ops[k]!;
      const t0 = now();
      for (let i = 0; i < n; i++) fn();
      samples[k]!.push(((now() - t0) * 1e6) / n);
    });
  }
  const at = opts.statistic === "min" ? () => 0 : (n: number) => Math.floor(n / 2);
  return samples.map((s) => s.sort((a, b) => a - b)[at(s.length)]!);
}

/**
 * {@link measureInterleaved} for operations that may return a promise (each is awaited):
 * interleaved rounds, then each operation's fastest round and median round, ns/op. With
 * `clock: "cpu"` a round is timed by the CPU the process used rather than the wall clock:
 * on cores shared with other jobs, time spent waiting for a core is not counted.
 */
export async function measureInterleavedAsync(
  fns: (() => unknown)[],
  opts: { rounds?: number; roundMs?: number; clock?: "wall" | "cpu" } = {},
): Promise<{ min: number; median: number }[]> {
  const now = opts.clock === "cpu" ? () => cpuMicros() / 1000 : () => performance.now();
  const rounds = opts.rounds ?? 21;
  const ops: number[] = [];
  for (const fn of fns) ops.push(await calibrateAsync(async () => fn(), opts.roundMs ?? 30));
  const samples: number[][] = fns.map(() => []);
  for (let r = 0; r < rounds; r++) {
    for (const [k, fn] of fns.entries()) {
      const n = ops[k]!;
      const t0 = now();
      for (let i = 0; i < n; i++) await fn();
      samples[k]!.push(((now() - t0) * 1e6) / n);
    }
  }
  return samples.map((s) => {
    s.sort((a, b) => a - b);
    return { min: s[0]!, median: s[Math.floor(s.length / 2)]! };
  });
}
