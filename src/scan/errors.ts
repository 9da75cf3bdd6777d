import { AirlockError } from "../errors.js";

/** Codes of {@link ScanInputError}. */
export type ScanInputErrorCode =
  /** The path does not exist. */
  | "SCAN_INPUT_MISSING"
  /** The path exists but cannot be read (permissions, a special file, too large). */
  | "SCAN_INPUT_UNREADABLE"
  /** The text is not JSON, or is JSON in none of the supported input forms. */
  | "SCAN_INPUT_INVALID";

/**
 * The input of `scan-tools` cannot be used at all: a missing path, an unreadable file,
 * or text that is not one of the supported forms. The CLI maps it to exit code 2.
 *
 * @example
 * ```ts
 * import { ScanInputError, loadToolDefs } from "agent-airlock/scan";
 * try {
 *   await loadToolDefs("does-not-exist.json");
 * } catch (err) {
 *   if (err instanceof ScanInputError) console.log(err.code); // "SCAN_INPUT_MISSING"
 * }
 * ```
 */
export class ScanInputError extends AirlockError {
  declare readonly code: ScanInputErrorCode;
  /** The path (or `-` for standard input) the error is about. */
  readonly source: string;
  constructor(
    code: ScanInputErrorCode,
    source: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
    this.source = source;
  }
}

/** Codes of {@link ScanPolicyError}. */
export type ScanPolicyErrorCode =
  /** The name is none of the shipped presets. */
  | "SCAN_POLICY_UNKNOWN"
  /** A policy file or object is not a valid policy. */
  | "SCAN_POLICY_INVALID";

/**
 * A policy name is unknown, or a policy file does not validate. The message names the
 * offending field and says what was expected.
 *
 * @example
 * ```ts
 * import { ScanPolicyError, resolvePolicy } from "agent-airlock/scan";
 * try {
 *   resolvePolicy("lenient");
 * } catch (err) {
 *   if (err instanceof ScanPolicyError) console.log(err.code); // "SCAN_POLICY_UNKNOWN"
 * }
 * ```
 */
export class ScanPolicyError extends AirlockError {
  declare readonly code: ScanPolicyErrorCode;
  constructor(code: ScanPolicyErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

/**
 * A suppressions file is not valid: not JSON, an entry without a tool, a code or a
 * reason, a wildcard tool name (a whole-server skip is never allowed), a bad expiry date.
 * Code `SCAN_SUPPRESSIONS_INVALID`.
 *
 * @example
 * ```ts
 * import { ScanSuppressionsError, parseSuppressions } from "agent-airlock/scan";
 * try {
 *   parseSuppressions({ version: 1, suppressions: [{ tool: "*", code: "SCAN004", reason: "x" }] });
 * } catch (err) {
 *   if (err instanceof ScanSuppressionsError) console.log(err.code);
 * }
 * ```
 */
export class ScanSuppressionsError extends AirlockError {
  declare readonly code: "SCAN_SUPPRESSIONS_INVALID";
  constructor(message: string, options?: { cause?: unknown }) {
    super("SCAN_SUPPRESSIONS_INVALID", message, options);
  }
}

/**
 * An option of `scanTools` or `detectToxicFlows` is out of range (code
 * `SCAN_OPTIONS_INVALID`); the message names the option and the allowed range.
 *
 * @example
 * ```ts
 * import { ScanOptionsError, scanTools } from "agent-airlock/scan";
 * try {
 *   scanTools([], undefined, { flows: { maxLegTools: 0 } });
 * } catch (err) {
 *   if (err instanceof ScanOptionsError) console.log(err.code); // "SCAN_OPTIONS_INVALID"
 * }
 * ```
 */
export class ScanOptionsError extends AirlockError {
  declare readonly code: "SCAN_OPTIONS_INVALID";
  constructor(message: string, options?: { cause?: unknown }) {
    super("SCAN_OPTIONS_INVALID", message, options);
  }
}
