import {
  type CleanTexts,
  detectInjection,
  detectInjectionInScan,
  detectInjectionInTool,
  type InjectionFinding,
} from "../poisoning/index.js";
import type { Finding } from "../types.js";

function toFinding(f: InjectionFinding): Finding {
  return {
    code: "SCAN002",
    grade: "fail",
    pointer: f.pointer,
    signal: f.signal,
    span: { start: f.span.start, end: f.span.end },
    excerpt: f.excerpt,
    message: f.why,
  };
}

function detectorFailed(err: unknown, pointer: string): Finding {
  // Fail closed: a text the detector cannot read is not a clean text.
  return {
    code: "SCAN002",
    grade: "fail",
    pointer,
    signal: "detector-error",
    message: `the poisoning detector could not analyse this text (${(err as Error)?.message ?? String(err)}): refused`,
  };
}

/**
 * SCAN002 for a tool: one finding per detector finding. With `clean` (one per scan), a
 * text found clean in an earlier tool of the scan is not read again.
 */
export function toolPoisoningFindings(tool: unknown, clean?: CleanTexts): Finding[] {
  try {
    const found =
      clean === undefined ? detectInjectionInTool(tool) : detectInjectionInScan(tool, clean);
    return found.map(toFinding);
  } catch (err) {
    return [detectorFailed(err, "")];
  }
}

/** SCAN002 for a server's `initialize` instructions. */
export function instructionFindings(text: string): Finding[] {
  try {
    return detectInjection(text, { kind: "instructions", pointer: "/instructions" }).map(toFinding);
  } catch (err) {
    return [detectorFailed(err, "/instructions")];
  }
}
