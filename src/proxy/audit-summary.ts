/**
 * The summary `airlock audit` prints of an audit log: per server and tool, how many
 * calls and definitions were allowed, refused (by verdict) and, in observe mode, would
 * have been refused; per server, its sessions and the decisions that name no tool
 * (requests refused for their id, answers dropped, listings refused, starts refused).
 * Filters pick the records first. Memory is bounded whatever the log holds: names are
 * cut, groups and verdicts per group are capped (the excess is counted, not kept), and
 * only the last few refusals are kept for listing.
 */
import type { ReadAuditRecord } from "./audit-reader.js";

/** Which records a summary counts. Every given filter must match. */
export interface AuditFilter {
  /** Only this pin-file section. */
  server?: string;
  /** Only decisions about this tool. */
  tool?: string;
  /** Only refusals (enforced or, in observe mode, would-be). */
  refused?: boolean;
  /** Only records at or after this time (ms since the epoch). */
  sinceMs?: number;
}

/** Counts of one kind of decision. */
export interface DecisionCounts {
  allowed: number;
  /** Refusals, by verdict. */
  refused: Record<string, number>;
  /** Observe mode: what would have been refused, by verdict (it was not). */
  wouldRefuse: Record<string, number>;
}

/** One server and tool. */
export interface ToolSummary {
  server: string | null;
  tool: string;
  calls: DecisionCounts;
  definitions: DecisionCounts;
}

/** One server. */
export interface ServerSummary {
  server: string | null;
  /** `proxy_start` records: proxy sessions. */
  sessions: number;
  /** Decisions that name no tool, by `event/verdict`. */
  other: Record<string, number>;
}

/** A refusal, as listed. */
export interface ListedDecision {
  time: string;
  server: string | null;
  event: string;
  tool: string | null;
  verdict: string;
  reason: string;
  /** False for what observe mode would have refused (and did not). */
  enforced: boolean;
}

/** What {@link AuditSummary.result} gives. */
export interface AuditSummaryResult {
  /** Records that matched the filter. */
  matched: number;
  /** Matched refusals, enforced ones. */
  refusals: number;
  /** Matched would-be refusals (observe mode). */
  wouldRefuse: number;
  servers: ServerSummary[];
  tools: ToolSummary[];
  /** The last matched refusals, oldest first (at most the `keep` given). */
  recent: ListedDecision[];
  /** Server-and-tool pairs past the cap, counted here instead of listed. */
  uncountedGroups: number;
}

/** Most server-and-tool groups kept. */
export const MAX_AUDIT_GROUPS = 10_000;
/** Most distinct verdicts kept per count; the rest go under `(other)`. */
const MAX_VERDICTS = 64;
/** Longest name or verdict kept. */
const MAX_NAME_CHARS = 200;
/** Longest reason kept for a listed refusal. */
const MAX_REASON_CHARS = 500;

/** The decisions that carry `toolName`. */
const TOOL_EVENTS = new Set(["tool_call_check", "tool_definition_check"]);
/** Events that are refusals without an `allowed` field. */
const REFUSAL_EVENTS = new Set([
  "listing_refused",
  "request_refused",
  "response_dropped",
  "proxy_refused",
]);

/**
 * A summary being built, one record at a time.
 *
 * @example
 * ```ts
 * import { AuditSummary } from "./audit-summary.js";
 * const summary = new AuditSummary({ refused: true }, 10);
 * summary.add({ event: "tool_call_check", time: "2026-01-01T00:00:00Z", timeMs: 1767225600000, server: "fs", toolName: "write_file", allowed: false, verdict: "deny_unpinned", reason: "no pin" });
 * console.log(summary.result().tools[0]?.calls.refused); // { deny_unpinned: 1 }
 * ```
 */
export class AuditSummary {
  private readonly filter: AuditFilter;
  private readonly keep: number;
  private readonly servers = new Map<string, ServerSummary>();
  private readonly tools = new Map<string, ToolSummary>();
  /** A ring of the last `keep` refusals; `next` is where the next one goes. */
  private readonly recent: ListedDecision[] = [];
  private next = 0;
  private matched = 0;
  private refusals = 0;
  private wouldRefuse = 0;
  private uncountedGroups = 0;

  /** `keep`: how many of the last matched refusals to keep for listing. */
  constructor(filter: AuditFilter, keep: number) {
    this.filter = filter;
    this.keep = keep;
  }

  add(record: ReadAuditRecord): void {
    const outcome = outcomeOf(record);
    if (!this.matches(record, outcome)) return;
    this.matched++;
    const server = cut(record.server, MAX_NAME_CHARS);
    const perServer = this.serverOf(server);
    if (record.event === "proxy_start") perServer.sessions++;
    if (outcome === "none") return;
    if (outcome === "refused") this.refusals++;
    if (outcome === "would_refuse") this.wouldRefuse++;
    const verdict = cut(textOf(record.verdict) ?? "(none)", MAX_NAME_CHARS);
    if (outcome !== "allowed") this.remember(record, server, verdict, outcome === "refused");
    const tool = typeof record.toolName === "string" ? cut(record.toolName, MAX_NAME_CHARS) : null;
    if (!TOOL_EVENTS.has(record.event) || tool === null) {
      bump(perServer.other, `${record.event}/${verdict}`);
      return;
    }
    const group = this.toolOf(server, tool);
    if (group === undefined) return;
    const counts = record.event === "tool_call_check" ? group.calls : group.definitions;
    if (outcome === "allowed") counts.allowed++;
    else bump(outcome === "refused" ? counts.refused : counts.wouldRefuse, verdict);
  }

  result(): AuditSummaryResult {
    return {
      matched: this.matched,
      refusals: this.refusals,
      wouldRefuse: this.wouldRefuse,
      servers: [...this.servers.values()],
      tools: [...this.tools.values()],
      recent: [...this.recent.slice(this.next), ...this.recent.slice(0, this.next)],
      uncountedGroups: this.uncountedGroups,
    };
  }

  private matches(record: ReadAuditRecord, outcome: Outcome): boolean {
    const { filter } = this;
    if (filter.server !== undefined && record.server !== filter.server) return false;
    if (filter.tool !== undefined && record.toolName !== filter.tool) return false;
    if (filter.sinceMs !== undefined && record.timeMs < filter.sinceMs) return false;
    if (filter.refused && outcome !== "refused" && outcome !== "would_refuse") return false;
    return true;
  }

  private serverOf(server: string | null): ServerSummary {
    const key = server ?? "\u0000";
    let found = this.servers.get(key);
    if (found === undefined) {
      found = { server, sessions: 0, other: Object.create(null) };
      // Servers are capped with the groups: a log naming a million servers stays bounded.
      if (this.servers.size < MAX_AUDIT_GROUPS) this.servers.set(key, found);
      else this.uncountedGroups++;
    }
    return found;
  }

  private toolOf(server: string | null, tool: string): ToolSummary | undefined {
    const key = JSON.stringify([server, tool]);
    let found = this.tools.get(key);
    if (found === undefined) {
      if (this.tools.size >= MAX_AUDIT_GROUPS) {
        this.uncountedGroups++;
        return undefined;
      }
      found = { server, tool, calls: emptyCounts(), definitions: emptyCounts() };
      this.tools.set(key, found);
    }
    return found;
  }

  private remember(
    record: ReadAuditRecord,
    server: string | null,
    verdict: string,
    enforced: boolean,
  ): void {
    if (this.keep === 0) return;
    const tool = typeof record.toolName === "string" ? cut(record.toolName, MAX_NAME_CHARS) : null;
    const listed: ListedDecision = {
      time: record.time.slice(0, 40),
      server,
      event: cut(record.event, MAX_NAME_CHARS),
      tool,
      verdict,
      reason: cut(textOf(record.reason) ?? "", MAX_REASON_CHARS),
      enforced,
    };
    if (this.recent.length < this.keep) this.recent.push(listed);
    else this.recent[this.next] = listed;
    this.next = (this.next + 1) % this.keep;
  }
}

type Outcome = "allowed" | "refused" | "would_refuse" | "none";

/** What a record decided: admitted, refused, refused only in observe mode, or nothing (life cycle). */
function outcomeOf(record: ReadAuditRecord): Outcome {
  if (record.allowed === true) return "allowed";
  const refusal = record.allowed === false || REFUSAL_EVENTS.has(record.event);
  if (!refusal) return "none";
  return record.enforced === false ? "would_refuse" : "refused";
}

function emptyCounts(): DecisionCounts {
  // Null prototypes: a verdict named "__proto__" is a key like any other.
  return { allowed: 0, refused: Object.create(null), wouldRefuse: Object.create(null) };
}

function bump(counts: Record<string, number>, key: string): void {
  if (Object.hasOwn(counts, key)) counts[key]!++;
  else if (Object.keys(counts).length < MAX_VERDICTS) counts[key] = 1;
  else counts["(other)"] = (counts["(other)"] ?? 0) + 1;
}

function textOf(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return undefined;
}

function cut<T extends string | null>(text: T, max: number): T {
  return (text !== null && text.length > max ? `${text.slice(0, max)}…` : text) as T;
}
