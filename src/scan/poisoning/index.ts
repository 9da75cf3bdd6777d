/**
 * Description-poisoning detection (SCAN002): offline, deterministic, linear-time.
 * PLACEHOLDER INTERFACE: the detector is being built; this stub finds nothing.
 */

/** Where a text sits inside a tool or server answer. */
export interface TextSite {
  kind:
    | "description"
    | "schema-description"
    | "schema-title"
    | "schema-default"
    | "schema-enum"
    | "schema-other"
    | "instructions";
  /** JSON pointer inside the tool (or the server answer), e.g. `/inputSchema/properties/path/description`. */
  pointer: string;
}

/** One suspicious span of text. */
export interface InjectionFinding {
  /** Stable signal id, e.g. `instruction-override`, `concealment`, `invisible-characters`. */
  signal: string;
  /** Where the text sits. */
  pointer: string;
  /** UTF-16 offsets of the span in that text. */
  span: { start: number; end: number };
  /** The span (or its start), printable: control and invisible characters escaped. */
  excerpt: string;
  /** Why this is poisoning, in one sentence. */
  why: string;
}

/** Findings in one text. */
export function detectInjection(_text: string, _site: TextSite): InjectionFinding[] {
  return [];
}

/** Findings in every text of a tool: description, and texts inside inputSchema and outputSchema. */
export function detectInjectionInTool(_tool: unknown): InjectionFinding[] {
  return [];
}
