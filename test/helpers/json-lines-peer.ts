import type { ChildProcessWithoutNullStreams } from "node:child_process";

type Message = Record<string, unknown>;

/**
 * Speak JSON-RPC in newline-delimited JSON to a child process, the way an MCP stdio
 * client does, without an SDK in between: every message it writes is kept, `next` waits
 * for the first (past or future) one a test accepts, `initialize` runs the handshake.
 */
export function jsonLinesPeer(child: ChildProcessWithoutNullStreams) {
  const messages: Message[] = [];
  const waiters: { test: (m: Message) => boolean; resolve: (m: Message) => void }[] = [];
  let buffer = "";
  child.stdout.on("data", (chunk: Buffer) => {
    buffer += chunk.toString("utf8");
    let newline = buffer.indexOf("\n");
    while (newline !== -1) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      const message = JSON.parse(line) as Message;
      messages.push(message);
      for (const waiter of [...waiters]) {
        if (waiter.test(message)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(message);
        }
      }
      newline = buffer.indexOf("\n");
    }
  });
  let stderr = "";
  child.stderr.on("data", (d) => {
    stderr += d;
  });
  const exited = new Promise<number | null>((resolve) =>
    child.on("close", (code) => resolve(code)),
  );
  const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
  const next = (test: (m: Message) => boolean) =>
    new Promise<Message>((resolve) => {
      const found = messages.find(test);
      if (found) resolve(found);
      else waiters.push({ test, resolve });
    });
  const initialize = async () => {
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "raw", version: "1" },
      },
    });
    await next((m) => m.id === 1);
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
  };
  return { child, send, next, initialize, exited, messages, stderr: () => stderr };
}
