/**
 * Reading an `airlock proxy` audit log back, line by line, in bounded memory: the log
 * may be gigabytes, and anyone who could write to it (or a server that named a tool with
 * a megabyte of text) may have put anything in it. A line longer than the cap is skipped
 * without being held; a line that is not JSON, or not an audit record (an object with a
 * string `event` and a `time` that is a date), is counted and skipped. Nothing in the
 * file can make the reader throw: only the stream itself can fail.
 */
import type { Readable } from "node:stream";

/** Default longest line read: 1 MiB (a record is a few hundred bytes). */
export const DEFAULT_MAX_AUDIT_LINE_BYTES = 1024 * 1024;

/** An audit record as read back: the fields the readers rely on have been checked. */
export interface ReadAuditRecord {
  event: string;
  time: string;
  /** Milliseconds since the epoch, from `time`. */
  timeMs: number;
  server: string | null;
  [field: string]: unknown;
}

/** What a read saw, line by line. */
export interface AuditReadStats {
  /** Lines in the file (a last line without its newline counts). */
  lines: number;
  /** Lines that were records. */
  records: number;
  /** Empty lines (skipped silently). */
  empty: number;
  /** Lines longer than the cap, skipped unread. */
  oversized: number;
  /** Lines that are not JSON. */
  notJson: number;
  /** JSON lines that are not audit records. */
  notRecord: number;
}

/** Options of {@link readAuditLog}. */
export interface ReadAuditLogOptions {
  /** Longest line read, in bytes. Default {@link DEFAULT_MAX_AUDIT_LINE_BYTES}. */
  maxLineBytes?: number;
}

const NEWLINE = 0x0a;

/**
 * Read every line of an audit log from `input`, handing each record to `onRecord`.
 * Resolves with the counts once the input ends; rejects only when the stream fails.
 *
 * @example
 * ```ts
 * import { createReadStream } from "node:fs";
 * import { readAuditLog } from "./audit-reader.js";
 * const stats = await readAuditLog(createReadStream("audit.jsonl"), (record) => console.log(record.event));
 * console.log(stats.records, stats.notJson); // e.g. 97 0
 * ```
 */
export async function readAuditLog(
  input: Readable,
  onRecord: (record: ReadAuditRecord) => void,
  options: ReadAuditLogOptions = {},
): Promise<AuditReadStats> {
  const maxBytes = options.maxLineBytes ?? DEFAULT_MAX_AUDIT_LINE_BYTES;
  const stats: AuditReadStats = {
    lines: 0,
    records: 0,
    empty: 0,
    oversized: 0,
    notJson: 0,
    notRecord: 0,
  };
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let skipping = false;
  const endLine = () => {
    stats.lines++;
    if (skipping) stats.oversized++;
    else judgeLine(Buffer.concat(pending, pendingBytes), stats, onRecord);
    pending = [];
    pendingBytes = 0;
    skipping = false;
  };
  for await (const chunk of input) {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
    let start = 0;
    while (start < bytes.length) {
      const end = bytes.indexOf(NEWLINE, start);
      const piece = bytes.subarray(start, end === -1 ? bytes.length : end);
      if (!skipping) {
        if (pendingBytes + piece.length > maxBytes) {
          // Over the cap: drop what was held and skip to the next newline.
          skipping = true;
          pending = [];
          pendingBytes = 0;
        } else if (piece.length > 0) {
          pending.push(piece);
          pendingBytes += piece.length;
        }
      }
      if (end === -1) break;
      endLine();
      start = end + 1;
    }
  }
  if (pendingBytes > 0 || skipping) endLine();
  return stats;
}

function judgeLine(
  line: Buffer,
  stats: AuditReadStats,
  onRecord: (record: ReadAuditRecord) => void,
): void {
  const text = line.toString("utf8").trim();
  if (text === "") {
    stats.empty++;
    return;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    stats.notJson++;
    return;
  }
  const record = readRecord(value);
  if (record === null) {
    stats.notRecord++;
    return;
  }
  stats.records++;
  onRecord(record);
}

function readRecord(value: unknown): ReadAuditRecord | null {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return null;
  const record = value as Record<string, unknown>;
  const { event, time, server } = record;
  if (typeof event !== "string" || typeof time !== "string") return null;
  if (server !== undefined && server !== null && typeof server !== "string") return null;
  const timeMs = Date.parse(time);
  if (Number.isNaN(timeMs)) return null;
  return { ...record, event, time, timeMs, server: server ?? null };
}
