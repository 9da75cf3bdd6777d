/**
 * Description-poisoning detection (SCAN002): offline, deterministic, no model, linear
 * time. `detectInjection` reads one text; `detectInjectionInTool` walks every text of a
 * tool definition. Each finding names its signal, the span in the original text, a
 * printable excerpt, and why. See docs/scan-poisoning.md for the signals and their limits.
 */

export { CleanTexts } from "./clean-texts.js";
export { detectInjection, MAX_FINDINGS_PER_TEXT, MAX_TEXT_LENGTH } from "./detect.js";
export {
  detectInjectionInScan,
  detectInjectionInTool,
  MAX_TEXT_WALK_DEPTH,
  MAX_TEXT_WALK_NODES,
  MAX_TOOL_TEXT_LENGTH,
} from "./tool.js";
export type { InjectionFinding, InjectionSignal, TextSite } from "./types.js";
