/**
 * Questions on the terminal (prompts on stderr, answers from stdin), for the review of
 * `airlock pin`. One readline interface for the whole run; it holds the terminal in raw
 * mode, so Ctrl-C reaches it as a key, not as a signal: the first Ctrl-C interrupts (the
 * question waiting, or the next one, fails with `CLI_INTERRUPTED`, and the caller writes
 * nothing), a second one ends the process at once (exit 130). Callers release the
 * terminal ({@link closePrompt}) before they write anything, so an interruption can
 * never land in the middle of a write.
 */
import { createInterface, type Interface } from "node:readline";
import { AirlockError } from "../errors.js";

/** Exit code of a run ended by Ctrl-C (128 + SIGINT, what a shell reports). */
export const INTERRUPTED_EXIT = 130;

/**
 * The person at the terminal pressed Ctrl-C. Code `CLI_INTERRUPTED`.
 *
 * @example
 * ```ts
 * import { askLine, PromptInterruptedError } from "./prompt.js";
 * try { await askLine("Approve? [y/N] "); }
 * catch (err) { if (err instanceof PromptInterruptedError) console.log(err.code); } // "CLI_INTERRUPTED"
 * ```
 */
export class PromptInterruptedError extends AirlockError {
  declare readonly code: "CLI_INTERRUPTED";
  constructor() {
    super("CLI_INTERRUPTED", "interrupted (Ctrl-C)");
  }
}

interface Waiting {
  resolve(line: string | null): void;
  reject(err: Error): void;
}

let shared: Interface | null = null;
let closed = false;
let interrupted = false;
const waiting: Waiting[] = [];
const buffered: string[] = [];

function open(): Interface {
  if (shared) return shared;
  shared = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  shared.on("line", (line) => {
    const next = waiting.shift();
    if (next) next.resolve(line);
    else buffered.push(line);
  });
  shared.on("close", () => {
    closed = true;
    for (const next of waiting.splice(0)) next.resolve(null);
  });
  shared.on("SIGINT", onInterrupt);
  return shared;
}

function onInterrupt(): void {
  if (interrupted) {
    // The second Ctrl-C: the caller has not written anything yet (it closes the prompt
    // before any write), so ending here loses nothing.
    process.stderr.write("\nairlock: interrupted again: stopped, nothing was written\n");
    process.exit(INTERRUPTED_EXIT);
  }
  interrupted = true;
  process.stderr.write("\n");
  if (waiting.length === 0) {
    process.stderr.write(
      "airlock: interrupted: stopping before anything is written (Ctrl-C again to quit now)\n",
    );
  }
  for (const next of waiting.splice(0)) next.reject(new PromptInterruptedError());
}

/**
 * Ask one question on the terminal (the prompt goes to stderr) and return the line typed,
 * or null when input ended (Ctrl-D): callers treat null as "no". Rejects with
 * {@link PromptInterruptedError} when Ctrl-C is pressed while it waits, or was pressed
 * since the terminal was opened.
 *
 * @example
 * ```ts
 * import { askLine, closePrompt } from "./prompt.js";
 * const answer = await askLine("Approve \"echo\"? [y/N] ");
 * closePrompt();
 * ```
 */
export function askLine(question: string): Promise<string | null> {
  const rl = open();
  if (interrupted) return Promise.reject(new PromptInterruptedError());
  if (buffered.length > 0) return Promise.resolve(buffered.shift()!);
  if (closed) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    waiting.push({ resolve, reject });
    rl.setPrompt(question);
    rl.prompt();
  });
}

/**
 * Whether Ctrl-C was pressed on the terminal since it was opened.
 *
 * @example
 * ```ts
 * import { wasInterrupted } from "./prompt.js";
 * console.log(wasInterrupted()); // false
 * ```
 */
export function wasInterrupted(): boolean {
  return interrupted;
}

/** Release the terminal so the process can exit (and Ctrl-C is a signal again). */
export function closePrompt(): void {
  shared?.close();
  shared = null;
}
