/**
 * What `airlock proxy` writes to its audit log, and how: every record stamped with the
 * time and the pin-file section, a listing check expanded into one record per tool, and
 * a sink that fails reported on the diagnostics line instead of stopping the proxy.
 */
import type { ListingCheck } from "../pins/types.js";
import type { AuditRecord, AuditSink } from "./audit-log.js";

/** Which listing a check came from: the proxy's own, a page for the client, or an answer that was dropped. */
export type ListingSource = "proxy" | "client" | "dropped";

/** Longest string id an audit record repeats. */
const AUDIT_ID_CHARS = 200;

/**
 * The proxy's audit records.
 *
 * @example
 * ```ts
 * import { ProxyAuditor } from "./auditor.js";
 * const auditor = new ProxyAuditor((r) => console.log(r.event, r.server), "fx", console.error);
 * auditor.record({ event: "proxy_start" }); // proxy_start fx
 * ```
 */
export class ProxyAuditor {
  private readonly sink: AuditSink | undefined;
  private readonly server: string | null;
  private readonly log: (line: string) => void;

  constructor(sink: AuditSink | undefined, server: string | null, log: (line: string) => void) {
    this.sink = sink;
    this.server = server;
    this.log = log;
  }

  record(record: Omit<AuditRecord, "time" | "server">): void {
    if (!this.sink) return;
    try {
      this.sink({ time: new Date().toISOString(), server: this.server, ...record } as AuditRecord);
    } catch (error) {
      this.log(`audit log write failed: ${(error as Error).message}`);
    }
  }

  /**
   * One `tool_definition_check` per tool the check judged or refused. For a listing in
   * a dropped answer only the refusals are recorded: a server that floods such answers
   * gets one line per refused tool, not one per tool.
   */
  listingCheck(check: ListingCheck, source: ListingSource): void {
    if (!this.sink) return;
    for (const decision of check.decisions) {
      if (source === "dropped" && decision.allowed) continue;
      this.record({ ...decision.auditEvent, source, detail: decision.detail });
    }
    for (const refused of check.refused) {
      if (refused.decision) continue;
      this.record({
        event: "tool_definition_check",
        source,
        toolName: refused.name,
        verdict: refused.reason,
        allowed: false,
        detail: refused.detail,
      });
    }
  }
}

/**
 * An id as an audit record or a log line repeats it: a long string id is cut.
 *
 * @example
 * ```ts
 * import { auditId } from "./auditor.js";
 * console.log(auditId(7), String(auditId("x".repeat(500))).length); // 7 201
 * ```
 */
export function auditId(id: unknown): unknown {
  return typeof id === "string" && id.length > AUDIT_ID_CHARS
    ? `${id.slice(0, AUDIT_ID_CHARS)}…`
    : id;
}
