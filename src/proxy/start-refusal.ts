/**
 * What `airlock proxy` says to its client when it refuses to start (a pin file that
 * cannot be read, a section that does not exist, delegation settings that cannot be
 * used): it answers each request the client sends meanwhile, its `initialize` first,
 * with a JSON-RPC error that names the problem, so the client shows the reason instead
 * of a bare "Connection closed". Wire messages (what the client reads).
 *
 * Bounded: it waits {@link DEFAULT_FIRST_REQUEST_MS} for a first request, and after each
 * answer {@link DEFAULT_LINGER_MS} for another one or the end of the client's input.
 */
import type { Readable, Writable } from "node:stream";
import { AIRLOCK_BLOCK } from "../mcp/refusal.js";
import { errorResponse, type JsonRpcMessage, messageKind, RPC_INTERNAL_ERROR } from "./json-rpc.js";
import { LineChannel } from "./line-channel.js";

/** How long a proxy that refused to start waits for the client's first request. */
export const DEFAULT_FIRST_REQUEST_MS = 5_000;

/** How long it waits, after an answer, for another request or the end of the client's input. */
export const DEFAULT_LINGER_MS = 1_000;

/** Largest message read from the client meanwhile (an `initialize` is a few hundred bytes). */
const MAX_MESSAGE_BYTES = 1024 * 1024;

/** Options of {@link answerStartRefusal}. */
export interface StartRefusalOptions {
  /** What the client writes (stdin). */
  input: Readable;
  /** Where to answer it (stdout). */
  output: Writable;
  /** The problem, as one sentence that says what to fix. */
  problem: string;
  /** Wait for a first request, in ms. Default {@link DEFAULT_FIRST_REQUEST_MS}. */
  firstRequestMs?: number;
  /** Wait after an answer, in ms. Default {@link DEFAULT_LINGER_MS}. */
  lingerMs?: number;
}

/**
 * The error a proxy that refused to start answers every request with.
 *
 * @example
 * ```ts
 * import { startRefusalAnswer } from "./start-refusal.js";
 * console.log(startRefusalAnswer(0, "the pin file is missing").error);
 * // { code: -32603, message: "AIRLOCK_BLOCK: airlock proxy did not start: the pin file is missing" }
 * ```
 */
export function startRefusalAnswer(id: unknown, problem: string): JsonRpcMessage {
  return errorResponse(
    id,
    RPC_INTERNAL_ERROR,
    `${AIRLOCK_BLOCK} airlock proxy did not start: ${problem}`,
  );
}

/**
 * Answer the client's requests with {@link startRefusalAnswer} until its input ends or
 * nothing more comes; resolves with the number of requests answered.
 *
 * @example
 * ```ts
 * import { answerStartRefusal } from "./start-refusal.js";
 * const answered = await answerStartRefusal({ input: process.stdin, output: process.stdout, problem: "pin file airlock.pins.json: not found" });
 * console.error(answered); // 1: the client's initialize
 * ```
 */
export function answerStartRefusal(options: StartRefusalOptions): Promise<number> {
  const channel = new LineChannel(options.input, options.output, {
    name: "the client",
    maxMessageBytes: MAX_MESSAGE_BYTES,
    keepReadingAfterMalformed: true,
  });
  const linger = options.lingerMs ?? DEFAULT_LINGER_MS;
  return new Promise((resolve) => {
    let answered = 0;
    let timer: NodeJS.Timeout | undefined;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      options.input.pause();
      void channel.flush().then(() => resolve(answered));
    };
    const wait = (ms: number) => {
      clearTimeout(timer);
      timer = setTimeout(finish, ms);
    };
    channel.start({
      message: ({ message }) => {
        if (done || messageKind(message) !== "request") return;
        answered++;
        channel.send(startRefusalAnswer((message as JsonRpcMessage).id, options.problem));
        wait(linger);
      },
      // A line that is not JSON is skipped; one over the size cap stops the reading.
      fault: (error) => {
        if (error.code === "PROXY_MESSAGE_TOO_LARGE") finish();
      },
      end: finish,
    });
    wait(options.firstRequestMs ?? DEFAULT_FIRST_REQUEST_MS);
  });
}
