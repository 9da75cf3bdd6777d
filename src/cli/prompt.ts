import { createInterface, type Interface } from "node:readline";

let shared: Interface | null = null;
let closed = false;
const waiting: ((line: string | null) => void)[] = [];
const buffered: string[] = [];

function open(): Interface {
  if (shared) return shared;
  shared = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  shared.on("line", (line) => {
    const next = waiting.shift();
    if (next) next(line);
    else buffered.push(line);
  });
  shared.on("close", () => {
    closed = true;
    for (const next of waiting.splice(0)) next(null);
  });
  return shared;
}

/**
 * Ask one question on the terminal (the prompt goes to stderr) and return the line typed,
 * or null when input ended (Ctrl-D): callers treat null as "no".
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
  if (buffered.length > 0) return Promise.resolve(buffered.shift()!);
  if (closed) return Promise.resolve(null);
  return new Promise((resolve) => {
    waiting.push(resolve);
    rl.setPrompt(question);
    rl.prompt();
  });
}

/** Release the terminal so the process can exit. */
export function closePrompt(): void {
  shared?.close();
  shared = null;
}
