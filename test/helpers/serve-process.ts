/**
 * A real `airlock delegate serve` process (the shipped bundle, `dist/bundle/bin.js`) for
 * tests that drive the service as its users do: over HTTP, beside other processes on one
 * registry, with raw request lines that `fetch` would normalise away. Every process
 * started here is killed by `stopAll` (call it in `afterEach`).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { connect } from "node:net";
import { join } from "node:path";
import { runProcess } from "./process.js";

const root = join(import.meta.dirname, "..", "..");
/** The shipped CLI bundle (`npm run build` makes it). */
export const AIRLOCK_BIN = join(root, "dist", "bundle", "bin.js");

/** A running `airlock delegate serve`. */
export interface ServeProcess {
  url: string;
  port: number;
  child: ChildProcess;
  /** Everything it wrote on stderr so far. */
  stderr(): string;
  /** Whether it is still running. */
  alive(): boolean;
  /** SIGTERM, and its exit code once it has stopped. */
  stop(): Promise<number | null>;
}

const running = new Set<ChildProcess>();

/** Start `airlock delegate serve --registry <registry> --port 0 --output json ...extra`. */
export async function startServe(
  registry: string,
  extra: readonly string[] = [],
): Promise<ServeProcess> {
  const child = spawn(
    process.execPath,
    [
      AIRLOCK_BIN,
      "delegate",
      "serve",
      "--registry",
      registry,
      "--port",
      "0",
      "--output",
      "json",
      ...extra,
    ],
    { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1" } },
  );
  running.add(child);
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => resolve(code)),
  );
  exited.then(() => running.delete(child));
  let stdout = "";
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      const end = stdout.indexOf("}");
      if (end !== -1)
        resolve((JSON.parse(stdout.slice(stdout.indexOf("{"), end + 1)) as { url: string }).url);
    });
    exited.then((code) => reject(new Error(`serve exited ${code} before listening: ${stderr}`)));
  });
  return {
    url,
    port: Number(new URL(url).port),
    child,
    stderr: () => stderr,
    alive: () => child.exitCode === null && child.signalCode === null,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}

/** Kill every serve process still running (for `afterEach`). */
export async function stopAll(): Promise<void> {
  await Promise.all(
    [...running].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once("exit", () => resolve());
          child.kill("SIGKILL");
        }),
    ),
  );
}

/** Run the shipped CLI to its end: `airlock ...args`. */
export function runAirlock(args: readonly string[]) {
  return runProcess(process.execPath, [AIRLOCK_BIN, ...args]);
}

/**
 * Send `text` as it is over a new connection and collect everything the server sends
 * until it closes the connection (or `waitMs` passes: then `closed` is false).
 */
export function rawExchange(
  port: number,
  text: string,
  waitMs = 10_000,
): Promise<{ answer: string; closed: boolean }> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(text));
    let answer = "";
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ answer, closed: false });
    }, waitMs);
    socket.setEncoding("utf8").on("data", (chunk: string) => {
      answer += chunk;
    });
    socket.on("error", () => {});
    socket.on("close", () => {
      clearTimeout(timer);
      resolve({ answer, closed: true });
    });
  });
}

/** The status code of a raw HTTP answer (`HTTP/1.1 400 Bad Request` is 400). */
export function statusOf(answer: string): number | undefined {
  const m = /^HTTP\/1\.1 (\d{3}) /.exec(answer);
  return m ? Number(m[1]) : undefined;
}
