import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { McpServerProbeError } from "./errors.js";
import { errorMessage, isObject, isRequest, isResponse, resultMessage } from "./json-rpc.js";

/** @internal Send one request to a server, resolve with its result. */
export type ProbeRequest = (method: string, params: Record<string, unknown>) => Promise<unknown>;

const DEFAULT_TIMEOUT_MS = 10_000;

/** @internal The error a JSON-RPC error answer becomes. */
export function rpcError(error: unknown): McpServerProbeError {
  const text = isObject(error) ? String(error.message) : "error";
  const code = isObject(error) && typeof error.code === "number" ? error.code : undefined;
  return new McpServerProbeError(
    `the server answered with an error: ${text.slice(0, 500)}`,
    code === undefined ? {} : { rpcCode: code },
  );
}

/**
 * @internal Connect `server` to an in-memory transport, initialise it as a minimal
 * client, run `work`, then disconnect. Every failure is an `McpServerProbeError`
 * except the errors `work` throws itself.
 */
export async function probeServer<T>(
  server: { connect(transport: Transport): Promise<unknown> },
  work: (request: ProbeRequest) => Promise<T>,
  options: { timeoutMs?: number } = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  let failure: Error | undefined;
  const failAll = (error: Error) => {
    failure ??= error;
    for (const entry of pending.values()) entry.reject(error);
    pending.clear();
  };
  clientSide.onmessage = (message: unknown) => {
    if (isResponse(message) && typeof message.id === "number") {
      const entry = pending.get(message.id);
      if (!entry) return;
      pending.delete(message.id);
      if (message.error !== undefined) {
        entry.reject(rpcError(message.error));
      } else {
        entry.resolve(message.result);
      }
    } else if (isRequest(message)) {
      // The server asking the client something (ping, roots): answer minimally.
      const reply =
        message.method === "ping"
          ? resultMessage(message.id, {})
          : errorMessage(message.id, -32601, "Method not found");
      void clientSide.send(reply as never).catch(() => {});
    }
  };
  clientSide.onclose = () => failAll(new McpServerProbeError("the server closed the connection"));
  const request: ProbeRequest = (method, params) => {
    if (failure) return Promise.reject(failure);
    const id = nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(
          new McpServerProbeError(`the server did not answer ${method} within ${timeoutMs} ms`),
        );
      }, timeoutMs);
      pending.set(id, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      clientSide.send({ jsonrpc: "2.0", id, method, params } as never).catch((err: unknown) => {
        pending.delete(id);
        clearTimeout(timer);
        reject(new McpServerProbeError(`could not send ${method}`, { cause: err }));
      });
    });
  };
  await clientSide.start();
  const connecting = Promise.resolve()
    .then(() => server.connect(serverSide))
    .catch((err: unknown) => {
      const error = new McpServerProbeError(
        `could not connect to the server to read its tools (${(err as Error)?.message ?? String(err)}); read them before connecting it elsewhere`,
        { cause: err },
      );
      failAll(error);
      throw error;
    });
  try {
    await request("initialize", {
      protocolVersion: LATEST_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: "agent-airlock-probe", version: "1.0.0" },
    });
    await clientSide.send({ jsonrpc: "2.0", method: "notifications/initialized" } as never);
    await connecting;
    return await work(request);
  } finally {
    connecting.catch(() => {});
    clientSide.onclose = undefined;
    await clientSide.close().catch(() => {});
  }
}
