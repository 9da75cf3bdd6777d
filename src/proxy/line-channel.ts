import type { Readable, Writable } from "node:stream";
import { ProxyError } from "./errors.js";

/** One message read from a channel: the parsed value and the exact text it came from. */
export interface ReceivedMessage {
  message: unknown;
  /** The line as received (without its newline), so an unchanged message is forwarded as is. */
  raw: string;
}

/** What a {@link LineChannel} reports while reading. */
export interface LineChannelEvents {
  message(received: ReceivedMessage): void;
  /**
   * A line that is not JSON, or larger than the limit. Reading stops after it unless the
   * channel was made with `keepReadingAfterMalformed` and the line was merely not JSON.
   */
  fault(error: ProxyError): void;
  /** The input ended (the peer closed it or exited). */
  end(): void;
}

/** Default largest message, in bytes: big enough for any real listing or result. */
export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/**
 * Newline-delimited JSON over a pair of streams (the MCP stdio framing), with a size cap
 * per message and backpressure: `send` reports when the output is full, and `pause` /
 * `resume` stop and restart reading, so a flood from one side cannot grow the proxy's
 * memory without bound.
 *
 * @example
 * ```ts
 * import { PassThrough } from "node:stream";
 * import { LineChannel } from "./line-channel.js";
 * const input = new PassThrough();
 * const channel = new LineChannel(input, new PassThrough(), { name: "client" });
 * channel.start({ message: (m) => console.log(m.message), fault: console.error, end() {} });
 * input.write('{"jsonrpc":"2.0","method":"ping"}\n');
 * ```
 */
export class LineChannel {
  readonly name: string;
  private readonly input: Readable;
  private readonly output: Writable;
  private readonly maxBytes: number;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private stopped = false;
  private outputBroken = false;
  private readonly keepReading: boolean;

  constructor(
    input: Readable,
    output: Writable,
    options: { name: string; maxMessageBytes?: number; keepReadingAfterMalformed?: boolean },
  ) {
    this.keepReading = options.keepReadingAfterMalformed ?? false;
    this.input = input;
    this.output = output;
    this.name = options.name;
    this.maxBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  }

  /** Start reading. Events fire until the input ends or a fault stops reading. */
  start(events: LineChannelEvents): void {
    this.output.on("error", () => {
      // The peer closed its end (EPIPE): there is nobody left to write to.
      this.outputBroken = true;
    });
    this.input.on("data", (chunk: Buffer | string) => {
      if (this.stopped) return;
      this.consume(typeof chunk === "string" ? Buffer.from(chunk) : chunk, events);
    });
    this.input.on("end", () => {
      if (this.stopped) return;
      this.stopped = true;
      // A last message without its newline still counts.
      if (this.pendingBytes > 0) this.emitLine(Buffer.concat(this.pending), events);
      this.pending = [];
      events.end();
    });
    this.input.on("error", () => {
      if (this.stopped) return;
      this.stopped = true;
      events.end();
    });
  }

  private consume(chunk: Buffer, events: LineChannelEvents): void {
    let from = 0;
    for (;;) {
      const newline = chunk.indexOf(10, from);
      if (newline === -1) break;
      const piece = chunk.subarray(from, newline);
      from = newline + 1;
      if (this.pendingBytes + piece.length > this.maxBytes) {
        this.tooLarge(events);
        return;
      }
      const line = this.pending.length === 0 ? piece : Buffer.concat([...this.pending, piece]);
      this.pending = [];
      this.pendingBytes = 0;
      this.emitLine(line, events);
      if (this.stopped) return;
    }
    if (from < chunk.length) {
      const rest = chunk.subarray(from);
      this.pendingBytes += rest.length;
      if (this.pendingBytes > this.maxBytes) {
        this.tooLarge(events);
        return;
      }
      this.pending.push(rest);
    }
  }

  private tooLarge(events: LineChannelEvents): void {
    this.stopped = true;
    this.pending = [];
    this.pendingBytes = 0;
    this.input.pause();
    events.fault(
      new ProxyError(
        "PROXY_MESSAGE_TOO_LARGE",
        `${this.name} sent a message larger than ${this.maxBytes} bytes`,
      ),
    );
  }

  private emitLine(line: Buffer, events: LineChannelEvents): void {
    let raw = line.toString("utf8");
    if (raw.endsWith("\r")) raw = raw.slice(0, -1);
    if (raw.trim() === "") return;
    let message: unknown;
    try {
      message = JSON.parse(raw);
    } catch (cause) {
      if (!this.keepReading) {
        this.stopped = true;
        this.input.pause();
      }
      events.fault(
        new ProxyError(
          "PROXY_UPSTREAM_MALFORMED",
          `${this.name} sent a line that is not JSON: ${JSON.stringify(raw.slice(0, 120))}`,
          { cause },
        ),
      );
      return;
    }
    events.message({ message, raw });
  }

  /**
   * Write one message (a JSON text without newline). Returns false when the output is
   * full: the caller should pause its source until {@link onceDrained} fires.
   */
  sendRaw(text: string): boolean {
    if (this.outputBroken || this.output.destroyed || this.output.writableEnded) return true;
    return this.output.write(`${text}\n`);
  }

  /** Serialise and write a message; see {@link sendRaw}. */
  send(message: unknown): boolean {
    return this.sendRaw(JSON.stringify(message));
  }

  /** True when writes are buffered past the high-water mark. */
  get congested(): boolean {
    return this.output.writableNeedDrain;
  }

  /** Call `fn` once the output has drained. */
  onceDrained(fn: () => void): void {
    if (!this.output.writableNeedDrain) {
      fn();
      return;
    }
    this.output.once("drain", fn);
  }

  /** Stop reading for now (backpressure). */
  pause(): void {
    this.input.pause();
  }

  /** Resume reading after {@link pause}. */
  resume(): void {
    if (!this.stopped) this.input.resume();
  }

  /** Resolves once everything written so far has been handed to the OS (or the peer is gone). */
  flush(): Promise<void> {
    return new Promise((resolve) => {
      if (this.outputBroken || this.output.destroyed || this.output.writableEnded) {
        resolve();
        return;
      }
      this.output.write("", () => resolve());
    });
  }

  /** True when the peer can no longer be written to. */
  get closed(): boolean {
    return this.outputBroken || this.output.destroyed || this.output.writableEnded;
  }
}
