/**
 * SIGNALS: the one registry of concept signals. The detector, the docs and the tests read
 * it; a new signal is a file in this folder and one line here.
 */
import { compileRule } from "../engine/judge.js";
import { AUTHORITY } from "./authority.js";
import { CONCEALMENT } from "./concealment.js";
import { CONSENT_BYPASS } from "./consent-bypass.js";
import { CREDENTIAL_REQUEST } from "./credential-request.js";
import { DESTRUCTIVE } from "./destructive.js";
import { EXFILTRATION } from "./exfiltration.js";
import { HIDDEN_INSTRUCTION } from "./hidden-instruction.js";
import { OUTPUT_INSTRUCTIONS } from "./output-instructions.js";
import { OVERRIDE } from "./override.js";
import { PREFERENCE } from "./preference.js";
import { REDIRECTION } from "./redirection.js";
import { SHADOWING } from "./shadowing.js";
import { SIDE_CHANNEL } from "./side-channel.js";
import { SIDE_EFFECT } from "./side-effect.js";
import type { SignalDeclaration } from "./types.js";

/**
 * Every concept signal, in the order findings are reported.
 *
 * @example
 * ```ts
 * import { SIGNALS } from "./index.js";
 * console.log(SIGNALS.some((s) => s.id === "exfiltration")); // true
 * ```
 */
export const SIGNALS: readonly SignalDeclaration[] = Object.freeze([
  OVERRIDE,
  AUTHORITY,
  HIDDEN_INSTRUCTION,
  CONCEALMENT,
  CONSENT_BYPASS,
  EXFILTRATION,
  SIDE_CHANNEL,
  CREDENTIAL_REQUEST,
  SHADOWING,
  REDIRECTION,
  PREFERENCE,
  OUTPUT_INSTRUCTIONS,
  SIDE_EFFECT,
  DESTRUCTIVE,
]);

/** The signals with their rules compiled (checked once, when first used). */
export const COMPILED_SIGNALS = SIGNALS.map((s) => ({
  id: s.id,
  why: s.why,
  rules: s.rules.map(compileRule),
}));
