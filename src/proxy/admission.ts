/**
 * Which tools `airlock proxy` lets the client see and call.
 *
 * The admitted set comes from the listings the proxy checks: its own full listing (after
 * `notifications/initialized`, on every `list_changed`, and before each call with
 * `relistBeforeEachCall`) and every page the client asks for. A name that any of them
 * refuses (unpinned, drifted, listed twice, shown twice across a client's pages) is
 * closed for the rest of the session: no later listing reopens it. Otherwise a server
 * could show the proxy's own listing the approved definition and the client a drifted
 * one, or flip a tool back and forth, and have calls forwarded to a name the pins refused.
 * The pins do not change while the proxy runs, so a closed name would stay refused anyway
 * unless the server changes its story; restarting the proxy reopens it.
 */
import type { ListingCheck } from "../pins/types.js";

/** Paged listings remembered at once (for duplicates across pages). */
const MAX_OPEN_WALKS = 64;

/** What one page the client receives keeps, and what it closed. */
export interface AdmittedPage {
  /** The tools that reach the client, in page order. */
  kept: unknown[];
  /** Names shown on an earlier page of the same walk and listed again here. */
  duplicates: string[];
  /** Names admitted by this page's check but closed earlier in the session. */
  closed: string[];
}

/**
 * The admitted and closed tool names of one proxy session.
 *
 * @example
 * ```ts
 * import { ToolAdmission } from "./admission.js";
 * const admission = new ToolAdmission();
 * admission.adoptListing({ allowed: false, admitted: ["echo"], refused: [{ name: "send", index: 1, reason: "drift", detail: "" }], missing: [], decisions: [] });
 * console.log(admission.allows("echo"), admission.allows("send")); // true false
 * ```
 */
export class ToolAdmission {
  /** Names a call may use; null until the proxy's first own listing has been judged. */
  private admitted: Set<string> | null = null;
  private readonly closedNames = new Set<string>();
  /** Names already shown to the client in the listing walk a cursor continues. */
  private readonly walks = new Map<string, Set<string>>();

  /** Whether the proxy has judged a listing of its own yet. */
  get known(): boolean {
    return this.admitted !== null;
  }

  allows(name: string): boolean {
    return this.admitted?.has(name) === true;
  }

  /** Whether a listing refused `name` earlier in the session. */
  isClosed(name: string): boolean {
    return this.closedNames.has(name);
  }

  /** Replace the admitted set with what the proxy's own full listing admits. */
  adoptListing(check: ListingCheck): void {
    this.closeRefused(check);
    this.admitted = new Set(check.admitted.filter((name) => !this.closedNames.has(name)));
  }

  /** The proxy's own listing could not be completed: nothing can be called. */
  admitNothing(): void {
    this.admitted = new Set();
  }

  /**
   * Judge one page the client asked for (`cursor` is the one it sent, `nextCursor` the
   * one the page carries): only admitted tools that are neither closed nor already shown
   * in the same walk are kept.
   */
  admitPage(
    tools: readonly unknown[],
    check: ListingCheck,
    cursor: string | undefined,
    nextCursor: unknown,
  ): AdmittedPage {
    const seen = (cursor !== undefined ? this.walks.get(cursor) : undefined) ?? new Set<string>();
    if (cursor !== undefined) this.walks.delete(cursor);
    this.closeRefused(check);
    const refusedAt = new Set(check.refused.map((r) => r.index));
    const page: AdmittedPage = { kept: [], duplicates: [], closed: [] };
    tools.forEach((tool, index) => {
      const name = (tool as { name?: unknown } | null)?.name;
      if (refusedAt.has(index) || typeof name !== "string") return;
      if (seen.has(name)) {
        // Listed on an earlier page too: the earlier copy is already shown, so the name
        // is closed to calls instead.
        this.close(name);
        page.duplicates.push(name);
        return;
      }
      seen.add(name);
      if (this.closedNames.has(name)) {
        page.closed.push(name);
        return;
      }
      this.admitted?.add(name);
      page.kept.push(tool);
    });
    if (typeof nextCursor === "string" && nextCursor !== "") {
      this.walks.set(nextCursor, seen);
      // Listings a client never finished paging are forgotten, oldest first.
      if (this.walks.size > MAX_OPEN_WALKS) this.walks.delete(this.walks.keys().next().value!);
    }
    return page;
  }

  /** Close every name `check` refused, without admitting anything it admits. */
  closeRefused(check: ListingCheck): void {
    for (const refused of check.refused) {
      if (refused.name !== null) this.close(refused.name);
    }
  }

  private close(name: string): void {
    this.closedNames.add(name);
    this.admitted?.delete(name);
  }
}
