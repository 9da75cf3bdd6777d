/**
 * What `airlock proxy` writes to its audit log, and how: every record stamped with the
 * time, the pin-file section (and `observe: true` in observe mode), one line per
 * decision, and a sink that fails reported on the diagnostics line instead of stopping
 * the proxy.
 *
 * One line per decision: the same definition judged the same way again (the proxy's own
 * listing and the client's page show the same tools, a client lists again and again) is
 * the same decision, so a `tool_definition_check` is written when a name is first judged
 * and again only when its verdict or its digest changes. Every call is its own decision.
 * The auditor also keeps why each name was refused ({@link ToolVerdicts}), with or
 * without a log, for the answers that refuse calls.
 */
import type { ListingCheck } from "../pins/types.js";
import type { AuditRecord, AuditSink } from "./audit-log.js";
import { ToolVerdicts } from "./tool-verdicts.js";

/** Which listing a check came from: the proxy's own, a page for the client, or an answer that was dropped. */
export type ListingSource = "proxy" | "client" | "dropped";

/** Longest string id an audit record repeats. */
const AUDIT_ID_CHARS = 200;

/** Longest string an audit record keeps in any field (a hostile server names its tools). */
const AUDIT_TEXT_CHARS = 2_000;

/** Definition decisions remembered to keep repeats out of the log; past it, every one is written. */
const MAX_REMEMBERED_DECISIONS = 65_536;

/** Options of {@link ProxyAuditor}. */
export interface ProxyAuditorOptions {
  /** Stamp every record `observe: true` (nothing is blocked). Default false. */
  observe?: boolean;
}

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
  /** Why each refused name was refused (kept with or without a log). */
  readonly verdicts = new ToolVerdicts();
  private readonly sink: AuditSink | undefined;
  private readonly server: string | null;
  private readonly log: (line: string) => void;
  private readonly observe: boolean;
  /** The last verdict and digest written per tool name. */
  private readonly written = new Map<string, string>();

  constructor(
    sink: AuditSink | undefined,
    server: string | null,
    log: (line: string) => void,
    options: ProxyAuditorOptions = {},
  ) {
    this.sink = sink;
    this.server = server;
    this.log = log;
    this.observe = options.observe === true;
  }

  record(record: Omit<AuditRecord, "time" | "server">): void {
    if (record.event === "tool_definition_check" && record.allowed === false) {
      this.verdicts.noteRefusal(
        (record.toolName as string | null | undefined) ?? null,
        String(record.verdict),
        String(record.reason ?? ""),
      );
    }
    if (!this.sink) return;
    if (record.event === "tool_definition_check" && this.repeats(record)) return;
    const stamped: Record<string, unknown> = this.observe
      ? { time: new Date().toISOString(), server: this.server, observe: true, ...record }
      : { time: new Date().toISOString(), server: this.server, ...record };
    for (const field in stamped) {
      const value = stamped[field];
      if (typeof value === "string" && value.length > AUDIT_TEXT_CHARS) {
        stamped[field] = `${value.slice(0, AUDIT_TEXT_CHARS)}…`;
      }
    }
    try {
      this.sink(stamped as AuditRecord);
    } catch (error) {
      this.log(`audit log write failed: ${(error as Error).message}`);
    }
  }

  /**
   * One `tool_definition_check` per tool the check judged or refused, unless the same
   * decision was written before. For a listing in a dropped answer only the refusals are
   * recorded: a server that floods such answers gets one line per refused tool, not one
   * per tool.
   */
  listingCheck(check: ListingCheck, source: ListingSource): void {
    if (source === "proxy") this.verdicts.noteListing(null);
    if (!this.sink) {
      for (const refused of check.refused) {
        const verdict = refused.decision?.verdict ?? refused.reason;
        this.verdicts.noteRefusal(
          refused.name,
          verdict,
          refused.decision?.detail ?? refused.detail,
        );
      }
      return;
    }
    for (const decision of check.decisions) {
      if (source === "dropped" && decision.allowed) continue;
      this.record({
        ...decision.auditEvent,
        ...(this.observe && { enforced: false }),
        source,
        reason: decision.detail,
      });
    }
    for (const refused of check.refused) {
      if (refused.decision) continue;
      this.record({
        event: "tool_definition_check",
        source,
        toolName: refused.name,
        verdict: refused.reason,
        allowed: false,
        enforced: !this.observe,
        reason: refused.detail,
      });
    }
  }

  /** The proxy's own listing failed: remembered for the calls it leaves refused, and written. */
  listingFailed(fault: unknown, reason: string): void {
    this.verdicts.noteListing(reason);
    this.record({ event: "listing_refused", source: "proxy", verdict: fault, reason });
  }

  /** Whether this definition decision was written already (same name, verdict and digest). */
  private repeats(record: Omit<AuditRecord, "time" | "server">): boolean {
    const name = record.toolName;
    const key = typeof name === "string" ? name : `\u0000${String(record.reason)}`;
    const value = `${String(record.verdict)}\u0000${String(record.observedDigest ?? "")}`;
    if (this.written.get(key) === value) return true;
    if (this.written.has(key) || this.written.size < MAX_REMEMBERED_DECISIONS) {
      this.written.set(key, value);
    }
    return false;
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
