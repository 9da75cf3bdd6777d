/**
 * A real terminal for tests: a tmux server of its own (a socket in a temporary folder, so
 * parallel tests and anyone else's tmux are never touched), one window of a fixed size
 * running a command. Tests read the screen (`capture-pane`, with or without colours) and
 * type (`send-keys`), as a person at the keyboard would. `close()` kills the server (and
 * with it the command) and removes the folder.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Whether tmux can be run on this machine. */
export const hasTmux = spawnSync("tmux", ["-V"], { stdio: "ignore" }).status === 0;

/** A command running in a tmux window. */
export interface TmuxTerminal {
  /** Everything the window showed, scroll-back included; `colours` keeps SGR sequences. */
  screen(options?: { colours?: boolean }): string;
  /** Type keys (tmux names: `Enter`, `C-c`, or literal text). */
  keys(...keys: string[]): void;
  /** Wait until the screen matches (polls every 100 ms); throws after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** The command's exit code, once the window printed it. */
  exitCode(timeoutMs?: number): Promise<number>;
  close(): void;
}

const quote = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`;

/**
 * Start `command args` in a `columns` x `rows` tmux window with `env` added. The shell
 * line prints `EXIT:<code>` when the command ends, then keeps the window open.
 */
export function startInTmux(
  command: string,
  args: readonly string[],
  options: { env?: Record<string, string>; cwd: string; columns?: number; rows?: number },
): TmuxTerminal {
  const dir = mkdtempSync(join(tmpdir(), "airlock-tmux-"));
  const socket = join(dir, "socket");
  const tmux = (...a: string[]) => execFileSync("tmux", ["-S", socket, ...a], { encoding: "utf8" });
  const env = Object.entries(options.env ?? {})
    .map(([k, v]) => `${k}=${quote(v)}`)
    .join(" ");
  const line = `cd ${quote(options.cwd)} && env ${env} ${[command, ...args].map(quote).join(" ")}; echo EXIT:$?; sleep 600`;
  // No user configuration; scroll-back set before the window exists, in one client call.
  execFileSync("tmux", [
    "-S",
    socket,
    "-f",
    "/dev/null",
    "start-server",
    ";",
    "set-option",
    "-g",
    "history-limit",
    "50000",
    ";",
    "new-session",
    "-d",
    "-x",
    String(options.columns ?? 100),
    "-y",
    String(options.rows ?? 24),
    line,
  ]);
  const screen = (o: { colours?: boolean } = {}) =>
    tmux("capture-pane", "-p", "-J", "-S", "-", ...(o.colours ? ["-e"] : []));
  const waitFor = async (pattern: RegExp, timeoutMs = 60_000) => {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const text = screen();
      if (pattern.test(text)) return text;
      if (Date.now() > end)
        throw new Error(`the terminal never showed ${pattern}; it shows:\n${text}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  return {
    screen,
    keys: (...keys) => {
      tmux("send-keys", ...keys);
    },
    waitFor,
    exitCode: async (timeoutMs) =>
      Number(/EXIT:(\d+)/.exec(await waitFor(/EXIT:\d+/, timeoutMs))![1]),
    close: () => {
      spawnSync("tmux", ["-S", socket, "kill-server"], { stdio: "ignore" });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
