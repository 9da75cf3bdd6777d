import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { ProxyError } from "./errors.js";
import { errorResponse, messageKind, RPC_INTERNAL_ERROR } from "./json-rpc.js";
import type { Upstream, UpstreamEvents } from "./upstream.js";

/** Options of {@link connectHttpUpstream}. */
export interface HttpUpstreamOptions {
  url: string | URL;
  /** Extra HTTP headers for every request (e.g. `Authorization`). */
  headers?: Record<string, string>;
  /**
   * `"streamable-http"` (default), or `"sse"` for a legacy HTTP+SSE server (protocol
   * 2024-11-05), whose `url` is its event stream.
   */
  transport?: "streamable-http" | "sse";
}

/**
 * A remote MCP server over Streamable HTTP (or legacy HTTP+SSE), at the message level
 * (the SDK's client transport handles sessions and event streams; the proxy sees JSON-RPC
 * messages). A request the transport fails to deliver is answered with an error so the
 * client is never left waiting.
 *
 * @example
 * ```ts
 * import { connectHttpUpstream } from "./http-upstream.js";
 * const upstream = connectHttpUpstream({ url: "http://127.0.0.1:3000/mcp" });
 * console.log(upstream.description); // "http://127.0.0.1:3000/mcp"
 * ```
 */
export function connectHttpUpstream(options: HttpUpstreamOptions): Upstream {
  return new HttpUpstream(options);
}

class HttpUpstream implements Upstream {
  readonly description: string;
  private readonly transport: StreamableHTTPClientTransport | SSEClientTransport;
  private events: UpstreamEvents | undefined;
  private closing = false;
  private closedReported = false;

  constructor(options: HttpUpstreamOptions) {
    const url = new URL(options.url);
    this.description = url.href;
    const init = { requestInit: options.headers ? { headers: options.headers } : undefined };
    this.transport =
      options.transport === "sse"
        ? new SSEClientTransport(url, init)
        : new StreamableHTTPClientTransport(url, init);
  }

  async start(events: UpstreamEvents): Promise<void> {
    this.events = events;
    this.transport.onmessage = (message) => {
      // The protocol version header must follow what the server agreed in `initialize`.
      const result = (message as { result?: { protocolVersion?: unknown } }).result;
      if (typeof result?.protocolVersion === "string") {
        this.transport.setProtocolVersion?.(result.protocolVersion);
      }
      events.message({ message, raw: JSON.stringify(message) });
    };
    this.transport.onerror = (error) => {
      // Transport errors that are not tied to one request (a dropped event stream) are
      // reported on stderr by the proxy; per-request failures are answered below.
      process.stderr.write(`airlock proxy: ${this.description}: ${error.message}\n`);
    };
    this.transport.onclose = () => {
      if (this.closing || this.closedReported) return;
      this.closedReported = true;
      events.closed(
        new ProxyError("PROXY_UPSTREAM_TRANSPORT", `${this.description} closed the connection`),
      );
    };
    try {
      await this.transport.start();
    } catch (cause) {
      throw new ProxyError(
        "PROXY_UPSTREAM_SPAWN",
        `could not connect to ${this.description}: ${(cause as Error).message}`,
        { cause },
      );
    }
  }

  send(message: unknown): boolean {
    this.transport.send(message as JSONRPCMessage).catch((cause: Error) => {
      if (this.closing) return;
      const m = message as { id?: unknown };
      if (messageKind(message) === "request" && this.events) {
        // Answer for the server: the request will never get a reply otherwise.
        const reply = errorResponse(
          m.id,
          RPC_INTERNAL_ERROR,
          `airlock proxy: ${this.description} did not accept the request: ${cause.message}`,
        );
        this.events.message({ message: reply, raw: JSON.stringify(reply) });
      } else {
        process.stderr.write(`airlock proxy: ${this.description}: ${cause.message}\n`);
      }
    });
    return true;
  }

  pause(): void {}

  resume(): void {}

  onceDrained(fn: () => void): void {
    fn();
  }

  get congested(): boolean {
    return false;
  }

  async close(): Promise<void> {
    this.closing = true;
    try {
      // Streamable HTTP sessions end with a DELETE; an SSE stream just closes.
      if (this.transport instanceof StreamableHTTPClientTransport) {
        await this.transport.terminateSession();
      }
    } catch {
      // The session may already be gone; closing is what matters.
    }
    await this.transport.close();
  }
}
