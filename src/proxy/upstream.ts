import type { ProxyError } from "./errors.js";
import type { ReceivedMessage } from "./line-channel.js";

/** What an {@link Upstream} reports. */
export interface UpstreamEvents {
  message(received: ReceivedMessage): void;
  /** The server broke the protocol (malformed JSON, a message too large). */
  fault(error: ProxyError): void;
  /** The server is gone (exited, closed its output, the connection failed). */
  closed(error: ProxyError): void;
}

/**
 * The real MCP server behind the proxy, at the JSON-RPC message level: a child process
 * over stdio ({@link spawnStdioUpstream}) or a remote Streamable HTTP server
 * ({@link connectHttpUpstream}).
 */
export interface Upstream {
  /** For messages and the audit log, e.g. `node server.js` or a URL. */
  readonly description: string;
  start(events: UpstreamEvents): Promise<void>;
  /** Send a message; `raw` is its exact text when forwarded unchanged. False = congested. */
  send(message: unknown, raw?: string): boolean;
  /** Stop reading from the server for now (the client is slow). */
  pause(): void;
  resume(): void;
  /** Call `fn` once the server accepts more input. */
  onceDrained(fn: () => void): void;
  readonly congested: boolean;
  /**
   * Stop the server: close its input, wait a little, then terminate it. With `force`
   * (a server that misbehaved) terminate it at once.
   */
  close(options?: { force?: boolean }): Promise<void>;
}
