import { type ChildProcess, spawn } from "node:child_process";

/** What a finished child process left: its exit code and its whole output. */
export interface ProcessRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Options of {@link startProcess} and {@link runProcess}. */
export interface ProcessOptions {
  cwd?: string;
  /** Fed to its standard input (none by default). */
  stdin?: string;
  /** Added to the environment. */
  env?: NodeJS.ProcessEnv;
}

/** A started child: the process (to signal or kill) and its end. */
export interface StartedProcess {
  child: ChildProcess;
  done: Promise<ProcessRun>;
}

/**
 * Start `command args` without colours (`NO_COLOR=1`); `done` settles with its exit code
 * and whole output. The caller kills it (in `afterEach`) if the test ends first.
 */
export function startProcess(
  command: string,
  args: readonly string[],
  options: ProcessOptions = {},
): StartedProcess {
  const child = spawn(command, args, {
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    env: { ...process.env, NO_COLOR: "1", ...options.env },
    stdio: [options.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const done = new Promise<ProcessRun>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
  if (options.stdin !== undefined) child.stdin?.end(options.stdin);
  return { child, done };
}

/**
 * Run `command args` to the end without colours (`NO_COLOR=1`), feeding it `stdin` (none
 * by default), and collect its exit code and output.
 */
export function runProcess(
  command: string,
  args: readonly string[],
  options: ProcessOptions = {},
): Promise<ProcessRun> {
  return startProcess(command, args, options).done;
}

/**
 * A live process that does nothing for two minutes (its pid names a lock holder or a
 * writer that still runs), added to `track` so the caller's `afterEach` kills it.
 */
export function idleProcess(track: ChildProcess[]): ChildProcess {
  const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 120000)"], {
    stdio: "ignore",
  });
  track.push(child);
  return child;
}

/** The pid of a process that has ended (what a writer killed with -9 leaves behind). */
export async function endedPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((resolve) => child.once("exit", resolve));
  return child.pid!;
}
