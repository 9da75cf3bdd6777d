import { type ChildProcess, spawn } from "node:child_process";
import { ProxyError } from "./errors.js";
import { LineChannel } from "./line-channel.js";
import type { Upstream, UpstreamEvents } from "./upstream.js";

/** Options of {@link spawnStdioUpstream}. */
export interface StdioUpstreamOptions {
  command: string;
  args?: readonly string[];
  /** Environment of the server (default: the proxy's own). */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Largest message accepted from the server, in bytes. */
  maxMessageBytes?: number;
  /** How long `close` waits for the server to exit after its input closes (default 2 s). */
  gracePeriodMs?: number;
}

/**
 * The real server as a child process speaking MCP over stdio. Its stderr goes to the
 * proxy's stderr (an MCP client shows it as the server's log).
 *
 * @example
 * ```ts
 * import { spawnStdioUpstream } from "./stdio-upstream.js";
 * const upstream = spawnStdioUpstream({ command: process.execPath, args: ["server.js"] });
 * console.log(upstream.description); // ".../node server.js"
 * ```
 */
export function spawnStdioUpstream(options: StdioUpstreamOptions): Upstream {
  return new StdioUpstream(options);
}

class StdioUpstream implements Upstream {
  readonly description: string;
  private readonly options: StdioUpstreamOptions;
  private child: ChildProcess | undefined;
  private channel: LineChannel | undefined;
  private exited: Promise<void> | undefined;
  private closing = false;

  constructor(options: StdioUpstreamOptions) {
    this.options = options;
    this.description = [options.command, ...(options.args ?? [])].join(" ");
  }

  start(events: UpstreamEvents): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.options.command, [...(this.options.args ?? [])], {
        stdio: ["pipe", "pipe", "inherit"],
        env: this.options.env ?? process.env,
        cwd: this.options.cwd,
        windowsHide: true,
      });
      this.child = child;
      let reported = false;
      const report = (error: ProxyError) => {
        if (reported || this.closing) return;
        reported = true;
        events.closed(error);
      };
      this.exited = new Promise((done) => child.once("close", () => done()));
      child.once("close", (code, signal) => {
        // A command that never started is reported by the "error" handler below.
        if (this.closing || !child.pid) return;
        report(
          new ProxyError(
            "PROXY_UPSTREAM_EXITED",
            `the server exited (${signal ? `signal ${signal}` : `code ${code}`})`,
          ),
        );
      });
      child.once("error", (cause) => {
        const error = new ProxyError(
          "PROXY_UPSTREAM_SPAWN",
          `could not start ${this.description}: ${(cause as Error).message}`,
          { cause },
        );
        if (!child.pid) {
          reject(error);
          return;
        }
        report(error);
      });
      child.once("spawn", () => {
        const channel = new LineChannel(child.stdout!, child.stdin!, {
          name: "the server",
          maxMessageBytes: this.options.maxMessageBytes,
        });
        this.channel = channel;
        channel.start({
          message: events.message,
          fault: events.fault,
          end: () => {
            // Output closed. The exit status says how it ended; a server that closes its
            // output but keeps running is gone all the same.
            setTimeout(
              () => report(new ProxyError("PROXY_UPSTREAM_EXITED", "the server closed its output")),
              1_000,
            ).unref();
          },
        });
        resolve();
      });
    });
  }

  send(message: unknown, raw?: string): boolean {
    if (!this.channel) return true;
    return raw === undefined ? this.channel.send(message) : this.channel.sendRaw(raw);
  }

  pause(): void {
    this.channel?.pause();
  }

  resume(): void {
    this.channel?.resume();
  }

  onceDrained(fn: () => void): void {
    if (this.channel) this.channel.onceDrained(fn);
    else fn();
  }

  get congested(): boolean {
    return this.channel?.congested ?? false;
  }

  async close(options: { force?: boolean } = {}): Promise<void> {
    this.closing = true;
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.stdin?.end();
    const grace = this.options.gracePeriodMs ?? 2_000;
    const exited = this.exited ?? Promise.resolve();
    if (!options.force && (await settlesWithin(exited, grace))) return;
    child.kill("SIGTERM");
    if (await settlesWithin(exited, grace)) return;
    child.kill("SIGKILL");
    await exited;
  }
}

function settlesWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    promise.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}
