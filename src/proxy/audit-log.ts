import { closeSync, openSync, writeSync } from "node:fs";

/**
 * One line of the proxy's audit log. A decision (`tool_definition_check`,
 * `tool_call_check`, `listing_refused`, `request_refused`, `response_dropped`,
 * `proxy_refused`) carries `verdict` (a stable word or code) and `reason` (a sentence);
 * `allowed` where something was admitted or refused; `enforced: false` and
 * `observe: true` in observe mode, where nothing is blocked.
 */
export interface AuditRecord {
  /** ISO 8601 time the decision was made. */
  time: string;
  /**
   * What was decided: a listed tool, a call, a request refused for its id, an answer of
   * the server's that did not reach the client, a start refused, or a proxy life-cycle
   * event.
   */
  event:
    | "proxy_start"
    | "proxy_refused"
    | "tool_definition_check"
    | "listing_refused"
    | "tool_call_check"
    | "request_refused"
    | "response_dropped"
    | "upstream_closed"
    | "proxy_stop";
  /** The pin-file server section in force. */
  server: string | null;
  [field: string]: unknown;
}

/** Where audit records go. */
export type AuditSink = (record: AuditRecord) => void;

/**
 * An append-only JSON-lines audit log: one decision per line, written synchronously so a
 * crash or a kill loses no decision already made.
 *
 * @example
 * ```ts
 * import { openAuditLog } from "./audit-log.js";
 * const log = openAuditLog("/tmp/airlock-audit.jsonl");
 * log.write({ time: new Date().toISOString(), event: "proxy_start", server: "everything" });
 * log.close();
 * ```
 */
export function openAuditLog(path: string): { write: AuditSink; close(): void } {
  const fd = openSync(path, "a", 0o600);
  let open = true;
  return {
    write(record) {
      if (!open) return;
      writeSync(fd, `${JSON.stringify(record)}\n`);
    },
    close() {
      if (!open) return;
      open = false;
      closeSync(fd);
    },
  };
}
