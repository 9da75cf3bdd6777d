/**
 * Why `airlock proxy` refuses a tool name: the verdict of the first listing that refused
 * it (the pin verdict, such as `deny_schema_drift`, or `duplicate`, `unreadable`), kept
 * for the session as the name itself stays closed (`admission.ts`). A refused call's
 * answer and audit line name that verdict instead of "unpinned, drifted or not listed".
 * Memory is bounded: past {@link MAX_REMEMBERED_VERDICTS} names, a further refused name
 * is answered as `closed` without its first verdict.
 */

/** Names whose refusal verdict is remembered. */
export const MAX_REMEMBERED_VERDICTS = 65_536;

/** Why a name is refused, as an answer and an audit line say it. */
export interface ToolRefusal {
  /** A pin verdict (`deny_unpinned`, `deny_schema_drift`...) or `duplicate`, `unreadable`, `closed`. */
  verdict: string;
  /** One sentence a person can read. */
  reason: string;
}

/**
 * The refusal verdicts of one proxy session.
 *
 * @example
 * ```ts
 * import { ToolVerdicts } from "./tool-verdicts.js";
 * const verdicts = new ToolVerdicts();
 * verdicts.noteRefusal("send", "deny_description_drift", 'tool "send" changed since it was approved: its description moved');
 * verdicts.noteRefusal("send", "duplicate", "listed twice");
 * console.log(verdicts.refusalOf("send")?.verdict); // "deny_description_drift"
 * ```
 */
export class ToolVerdicts {
  private readonly refusals = new Map<string, ToolRefusal>();
  private listingFailure: string | null = null;

  /** Remember why `name` was refused, unless it was refused before (the first verdict stays). */
  noteRefusal(name: string | null, verdict: string, reason: string): void {
    if (name === null || this.refusals.has(name)) return;
    if (this.refusals.size >= MAX_REMEMBERED_VERDICTS) return;
    this.refusals.set(name, { verdict, reason });
  }

  /** Why `name` was refused, when a listing refused it. */
  refusalOf(name: string): ToolRefusal | undefined {
    return this.refusals.get(name);
  }

  /** The proxy's own listing failed (`reason`), or succeeded (`null`). */
  noteListing(failure: string | null): void {
    this.listingFailure = failure;
  }

  /** Why the proxy's latest own listing failed; null when it did not. */
  get lastListingFailure(): string | null {
    return this.listingFailure;
  }
}
