import { type DefinitionDiff, diffToolDefinitions } from "../pins/diff.js";
import type { ToolDefinitionPinGuard } from "../pins/guard.js";
import { renderDefinitionDiff } from "../pins/render-diff.js";
import type { ListingCheck, PinDecision, ToolDefinition } from "../pins/types.js";
import { type Palette, printable } from "./output.js";

/** What a listing means for one tool, against a pin-file section. */
export interface ToolReview {
  /** Tool name; null for an entry without a readable name. */
  name: string | null;
  /** Position in the listing. */
  index: number;
  status: "pinned" | "unpinned" | "drift" | "duplicate" | "unreadable";
  /** The verdict, when the pin guard judged the tool. */
  verdict: PinDecision["verdict"] | null;
  detail: string;
  /** Field-by-field diff against the approved definition (drift with a stored definition). */
  diff: DefinitionDiff | null;
  /** The definition as listed. */
  definition: unknown;
}

/** A listing compared with one server's pins. */
export interface ListingReview {
  tools: ToolReview[];
  /** Pinned tools the listing leaves out. */
  missing: string[];
  /** True when every listed tool is admitted. */
  clean: boolean;
}

/**
 * Compare a listing with the pins in `guard`, keeping each tool's diff against its
 * approved definition when the pin file stored one.
 *
 * @example
 * ```ts
 * import { ToolDefinitionPinGuard } from "../pins/index.js";
 * import { reviewListing } from "./review.js";
 * const guard = new ToolDefinitionPinGuard();
 * guard.approve({ name: "add", description: "Add." });
 * const review = reviewListing(guard, [{ name: "add", description: "Add, and more." }]);
 * console.log(review.tools[0]?.status); // "drift"
 * ```
 */
export function reviewListing(
  guard: ToolDefinitionPinGuard,
  tools: readonly unknown[],
): ListingReview {
  const check: ListingCheck = guard.checkListing([...tools]);
  const refusedAt = new Map(check.refused.map((r) => [r.index, r]));
  const decisionByName = new Map(check.decisions.map((d) => [d.toolName, d]));
  let pins: ToolDefinitionPinGuard["pins"] | undefined;
  const reviews: ToolReview[] = tools.map((definition, index) => {
    const refused = refusedAt.get(index);
    const rawName = (definition as { name?: unknown } | null)?.name;
    const name = refused ? refused.name : typeof rawName === "string" ? rawName : null;
    if (!refused) {
      return {
        name,
        index,
        status: "pinned",
        verdict: "allow_pinned",
        detail: "matches its pin",
        diff: null,
        definition,
      };
    }
    const decision = refused.decision ?? (name !== null ? decisionByName.get(name) : undefined);
    const status =
      refused.reason === "drift"
        ? "drift"
        : refused.reason === "unpinned"
          ? "unpinned"
          : refused.reason;
    let diff: DefinitionDiff | null = null;
    if (status === "drift" && name !== null) {
      const approved = guard.approvedDefinition(name);
      // `guard.pins` builds a record of every pin: read it once, not once per drifted tool.
      pins ??= guard.pins;
      const version = pins[name]?.[1];
      // A version 1 pin covers only the description and the input schema.
      const fields = version === 1 ? (["description", "inputSchema"] as const) : undefined;
      if (approved) diff = diffToolDefinitions(approved, definition as ToolDefinition, { fields });
    }
    return {
      name,
      index,
      status,
      verdict: decision?.verdict ?? null,
      detail: refused.detail,
      diff,
      definition,
    };
  });
  return { tools: reviews, missing: check.missing, clean: check.allowed };
}

const LABEL: Record<ToolReview["status"], string> = {
  pinned: "ok",
  unpinned: "UNPINNED",
  drift: "DRIFT",
  duplicate: "DUPLICATE",
  unreadable: "UNREADABLE",
};

/**
 * Text lines for one tool review: status, name, detail, and the diff of a drift (its
 * values cut at `maxValueLength` characters, default 200; the review before approval
 * passes a bound no real definition reaches).
 *
 * @example
 * ```ts
 * import { renderToolReview } from "./review.js";
 * console.log(renderToolReview({ name: "t", index: 0, status: "unpinned", verdict: "deny_unpinned", detail: "never approved", diff: null, definition: { name: "t" } }, plainPalette).join("\n"));
 * ```
 */
export function renderToolReview(
  review: ToolReview,
  c: Palette,
  options: { maxValueLength?: number } = {},
): string[] {
  const label = LABEL[review.status];
  const colour = review.status === "pinned" ? c.green : c.red;
  const name =
    review.name === null ? `(entry ${review.index}, no readable name)` : printable(review.name);
  const lines = [`  ${colour(label.padEnd(10))} ${c.bold(name)}`];
  if (review.status !== "pinned") lines.push(`             ${c.dim(printable(review.detail))}`);
  if (review.status === "drift") {
    if (review.diff) {
      lines.push(
        renderDefinitionDiff(review.diff, {
          indent: "      ",
          colors: { red: c.red, green: c.green, dim: c.dim, yellow: c.yellow },
          ...(options.maxValueLength !== undefined
            ? { maxValueLength: options.maxValueLength }
            : {}),
        }),
      );
    } else {
      lines.push(
        c.dim("      (the pin file stores only the digest: the changed fields cannot be shown)"),
      );
    }
  }
  return lines;
}

/** A palette without colours. */
export const plainPalette: Palette = {
  red: (t) => t,
  green: (t) => t,
  yellow: (t) => t,
  dim: (t) => t,
  bold: (t) => t,
};

/** A tool review as JSON (the definition is left out; the diff is kept). */
export function toolReviewJson(review: ToolReview): Record<string, unknown> {
  return {
    name: review.name,
    index: review.index,
    status: review.status,
    verdict: review.verdict,
    detail: review.detail,
    diff: review.diff,
  };
}
