/**
 * Which way an annotation change moves a tool's risk. MCP's behaviour hints
 * (`readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`) each have a
 * safe and a risky value and a default for when they are absent; a change toward the
 * risky value (`readOnlyHint: true -> false`, an added `destructiveHint: true`, a removed
 * `openWorldHint: false`) is what a rug pull looks like, so a reviewer must see it as a
 * risk, in words and in colour, never as a green "addition". A change toward the safe
 * value is a claim the server makes about itself, not a proof.
 */

/**
 * One MCP behaviour hint: its risky value (which is also its value when absent, for all
 * four: MCP spec, `ToolAnnotations`) and what each value says.
 */
interface HintSpec {
  risky: boolean;
  /** What the risky value means. */
  means: string;
  /** A move to the risky value, after "more risk: ". */
  riskier: string;
  /** A move to the safe value, after "less risk claimed: ". */
  safer: string;
}

const HINTS: Readonly<Record<string, HintSpec>> = Object.freeze({
  readOnlyHint: {
    risky: false,
    means: "it may modify its environment",
    riskier: "it no longer claims to be read-only, so it may modify its environment",
    safer: "it now claims to be read-only",
  },
  destructiveHint: {
    risky: true,
    means: "it may perform destructive updates",
    riskier: "it may now perform destructive updates",
    safer: "it now claims to make additive updates only",
  },
  idempotentHint: {
    risky: false,
    means: "repeated calls may have additional effects",
    riskier: "repeated calls may now have additional effects",
    safer: "it now claims repeated calls have no additional effect",
  },
  openWorldHint: {
    risky: true,
    means: "it may reach the open world, systems outside its own",
    riskier: "it may now reach the open world, systems outside its own",
    safer: "it now claims to stay in a closed world",
  },
});

/** A hint whose value moved, or was newly stated as the risky one, and which way. */
export interface AnnotationRisk {
  /** The hint (`readOnlyHint`, ...). */
  hint: string;
  /**
   * `more`: toward the risky value, or the risky value newly written out (it was already
   * the default, but a reviewer should read it); `less`: toward the safe value (a claim
   * the server makes, not a proof).
   */
  direction: "more" | "less";
  /** The change in words: `more risk: it may now perform destructive updates`. */
  says: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** The value a hint has for a client: the boolean given, else the spec's default (the risky one). */
function effective(spec: HintSpec, value: unknown): boolean {
  return typeof value === "boolean" ? value : spec.risky;
}

function riskOf(hint: string, before: unknown, after: unknown): AnnotationRisk | null {
  const spec = Object.hasOwn(HINTS, hint) ? HINTS[hint]! : undefined;
  if (spec === undefined) return null;
  const was = effective(spec, before);
  const now = effective(spec, after);
  if (was !== now) {
    return now === spec.risky
      ? { hint, direction: "more", says: `more risk: ${spec.riskier}` }
      : { hint, direction: "less", says: `less risk claimed: ${spec.safer}` };
  }
  if (typeof before !== "boolean" && after === spec.risky) {
    return { hint, direction: "more", says: `risky, as when absent: ${spec.means}` };
  }
  return null;
}

/**
 * The risk moves of one change inside `annotations`, as a diff reports it: `pointer` is
 * the JSON pointer inside the field (`/readOnlyHint`, or `""` for the whole field) and
 * `before`/`after` the values there (`undefined` when absent). Absent reads as the spec's
 * default, which is the risky value of every hint; a hint whose value did not move gives
 * nothing, unless its risky value is newly written out.
 *
 * @example
 * ```ts
 * import { judgeAnnotationChange } from "./annotation-risk.js";
 * console.log(judgeAnnotationChange("/readOnlyHint", true, false)[0]?.direction); // "more"
 * console.log(judgeAnnotationChange("/destructiveHint", true, undefined)); // []
 * console.log(judgeAnnotationChange("", { openWorldHint: false }, undefined)[0]?.hint); // "openWorldHint"
 * ```
 */
export function judgeAnnotationChange(
  pointer: string,
  before: unknown,
  after: unknown,
): AnnotationRisk[] {
  if (pointer === "") {
    const a = isRecord(before) ? before : {};
    const b = isRecord(after) ? after : {};
    const risks: AnnotationRisk[] = [];
    for (const hint of Object.keys(HINTS)) {
      const risk = riskOf(hint, a[hint], b[hint]);
      if (risk !== null) risks.push(risk);
    }
    return risks;
  }
  // Only a hint itself (`/readOnlyHint`) carries risk; deeper pointers are not hints.
  const hint = pointer.slice(1);
  if (pointer[0] !== "/" || hint.includes("/")) return [];
  const risk = riskOf(hint, before, after);
  return risk === null ? [] : [risk];
}
