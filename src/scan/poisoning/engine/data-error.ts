import { AirlockError } from "../../../errors.js";

/**
 * A built-in lexicon or signal rule is malformed: an unknown concept, a stem too short to
 * stand alone, a rule with no concept. This is a bug in agent-airlock's own detector data,
 * never in the scanned input; the lexicon tests compile every language and every rule, so
 * a release cannot carry one. Code `SCAN_DETECTOR_DATA_INVALID`.
 *
 * @example
 * ```ts
 * import { AirlockError } from "agent-airlock";
 * const err: unknown = new AirlockError("SCAN_DETECTOR_DATA_INVALID", "unknown concept");
 * if (err instanceof AirlockError && err.code === "SCAN_DETECTOR_DATA_INVALID") console.log("report a bug");
 * ```
 */
export class DetectorDataError extends AirlockError {
  declare readonly code: "SCAN_DETECTOR_DATA_INVALID";
  constructor(message: string) {
    super("SCAN_DETECTOR_DATA_INVALID", message);
  }
}
