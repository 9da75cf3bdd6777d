/**
 * The SARIF 2.1.0 output of `scan-tools` for GitHub code scanning: one rule per code, one
 * result per finding; a toxic flow's result sits on the first tool of its last leg and
 * relates every tool listed on its legs.
 */
import { isAbsolute, relative, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";
import type { FlowLegTool } from "./flows/types.js";
import { RULE_CODES, RULES } from "./rules/catalog.js";
import { SourceLines } from "./source-lines.js";
import type { Finding, InputProblem, ScanReport, TargetResult } from "./types.js";

const SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json";
const INFORMATION_URI = "https://www.npmjs.com/package/agent-airlock";
/** The base that relative artifact URIs resolve against (CodeQL's name for it). */
const SOURCE_ROOT = "%SRCROOT%";

/** Optional context for {@link toSarif}. */
export interface SarifOptions {
  /** Tool version shown as `driver.version`. */
  version?: string;
  /** Text of each source file, to place results on the line of the tool's name. */
  sourceText?: (source: string) => string | undefined;
  /**
   * Directory that input paths are relative to, and that relative artifact URIs resolve
   * against (`%SRCROOT%`). Default: the current working directory. Files outside it are
   * given as absolute `file:` URIs.
   */
  sourceRoot?: string;
}

const level = (g: Finding["grade"]) => (g === "fail" ? "error" : "warning");

/**
 * The report as a SARIF 2.1.0 log for GitHub code scanning: one rule per code with its
 * metadata, one result per finding, the tool as the logical location (`server/tool`),
 * the input file as the physical location, suppressed findings carried with their
 * justification. Input problems are tool execution notifications.
 *
 * @example
 * ```ts
 * import { scanTools, toSarif } from "agent-airlock/scan";
 * const log = toSarif(scanTools([{ name: "echo" }]));
 * console.log(log.version, log.runs[0].results.length); // "2.1.0" 1
 * ```
 */
// biome-ignore lint/suspicious/noExplicitAny: SARIF is a large open JSON format.
export function toSarif(report: ScanReport, options: SarifOptions = {}): any {
  const rules = RULE_CODES.map((code) => {
    const r = RULES[code];
    return {
      id: code,
      name: r.name,
      shortDescription: { text: r.title },
      fullDescription: { text: r.help },
      help: { text: `${r.help} See docs/scan-tools.md#${code.toLowerCase()}.` },
      defaultConfiguration: { level: level(r.grade) },
      properties: { tags: ["security", "mcp"] },
    };
  });
  const root = resolve(options.sourceRoot ?? process.cwd());
  const place = physicalLocator(report, root, options);
  const results = report.results.flatMap((t) => {
    if (t.findings.length === 0) return [];
    const where = t.kind === "flow" ? undefined : place(t.source, needleOf(t));
    return t.findings.map((f) =>
      f.flow !== undefined ? flowResult(t, f, place) : result(t, f, where),
    );
  });
  const notifications = report.problems.map((p) => notification(p, root));
  const underRoot = (l: { physicalLocation?: { artifactLocation: { uriBaseId?: string } } }) =>
    l.physicalLocation?.artifactLocation.uriBaseId === SOURCE_ROOT;
  const usesRoot =
    notifications.some((n) => n.locations?.some(underRoot)) ||
    results.some(
      (r) =>
        (r.locations as SarifLocation[]).some(underRoot) ||
        ((r as { relatedLocations?: SarifLocation[] }).relatedLocations ?? []).some(underRoot),
    );
  return {
    $schema: SARIF_SCHEMA,
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: "agent-airlock scan-tools",
            informationUri: INFORMATION_URI,
            ...(options.version
              ? { version: options.version, semanticVersion: options.version }
              : {}),
            rules,
          },
        },
        ...(usesRoot ? { originalUriBaseIds: { [SOURCE_ROOT]: { uri: directoryUri(root) } } } : {}),
        invocations: [
          {
            executionSuccessful: !report.problems.some((p) => p.severity === "error"),
            exitCode: report.exitCode,
            toolExecutionNotifications: notifications,
          },
        ],
        properties: { policy: report.policy, exitCode: report.exitCode },
        results,
      },
    ],
  };
}

/**
 * {@link toSarif} as text, two-space indented, final newline.
 *
 * @example
 * ```ts
 * import { formatSarif, scanTools } from "agent-airlock/scan";
 * console.log(JSON.parse(formatSarif(scanTools([{ name: "echo" }]))).version); // "2.1.0"
 * ```
 */
export function formatSarif(report: ScanReport, options: SarifOptions = {}): string {
  return `${JSON.stringify(toSarif(report, options), null, 2)}\n`;
}

/** Where a target lives in its file: worked out once per target, not once per finding. */
interface PhysicalPlace {
  artifactLocation: { uri: string; uriBaseId?: string };
  startLine: number;
}

/** The file and line of a name (`needle`, a JSON string literal) in a source. */
type Locate = (source: string, needle: string) => PhysicalPlace | undefined;

/**
 * A target's file and the line of its name. Each source text is searched once for all of
 * its targets' names and the names of the tools on toxic flows' legs (see
 * {@link SourceLines}), so many tools in one file stay linear.
 */
function physicalLocator(report: ScanReport, root: string, options: SarifOptions): Locate {
  const needles = new Map<string, Set<string>>();
  const want = (source: string, needle: string) => {
    const set = needles.get(source) ?? new Set<string>();
    set.add(needle);
    needles.set(source, set);
  };
  for (const t of report.results) {
    if (t.findings.length === 0) continue;
    if (t.kind !== "flow") want(t.source, needleOf(t));
    for (const f of t.findings) {
      for (const leg of f.flow?.legs ?? [])
        for (const tool of leg.tools) want(tool.source, JSON.stringify(tool.tool));
    }
  }
  const lines = new Map<string, SourceLines | undefined>();
  const artifacts = new Map<string, { uri: string; uriBaseId?: string }>();
  return (source, needle) => {
    if (source === "memory" || source === "-") return undefined;
    if (!lines.has(source)) {
      const text = options.sourceText?.(source);
      lines.set(
        source,
        text === undefined ? undefined : new SourceLines(text, needles.get(source) ?? []),
      );
    }
    if (!artifacts.has(source)) artifacts.set(source, artifactLocation(source, root));
    return {
      artifactLocation: artifacts.get(source)!,
      startLine: lines.get(source)?.lineOf(needle) ?? 1,
    };
  };
}

function needleOf(t: TargetResult): string {
  return t.kind === "instructions" ? '"instructions"' : JSON.stringify(t.name);
}

function physicalOf(where: PhysicalPlace | undefined): SarifLocation["physicalLocation"] {
  return where === undefined
    ? undefined
    : { artifactLocation: { ...where.artifactLocation }, region: { startLine: where.startLine } };
}

function result(t: TargetResult, f: Finding, where: PhysicalPlace | undefined) {
  const qualified = t.server === null ? t.name : `${t.server}/${t.name}`;
  const kind = t.kind === "instructions" ? "module" : "function";
  const physical = physicalOf(where);
  return {
    ruleId: f.code,
    ruleIndex: RULE_CODES.indexOf(f.code),
    level: level(f.grade),
    message: { text: `${qualified}: ${f.message}${f.excerpt ? ` «${f.excerpt}»` : ""}` },
    locations: [
      {
        ...(physical ? { physicalLocation: physical } : {}),
        logicalLocations: [{ name: t.name, fullyQualifiedName: qualified, kind }],
      },
    ],
    partialFingerprints: {
      toolFinding: `${qualified}|${f.code}|${f.pointer ?? ""}|${f.capability ?? f.signal ?? ""}`,
    },
    properties: {
      grade: f.grade,
      ...(f.pointer ? { pointer: f.pointer } : {}),
      ...(f.capability ? { capability: f.capability } : {}),
      ...(f.signal ? { signal: f.signal } : {}),
      ...(f.collisions ? { collisions: f.collisions } : {}),
    },
    ...(f.suppressed
      ? {
          suppressions: [
            { kind: "external", status: "accepted", justification: f.suppressed.reason },
          ],
        }
      : {}),
  };
}

/** Where a tool is, as a SARIF location: its file and line (when known) and its name. */
interface SarifLocation {
  physicalLocation?: {
    artifactLocation: { uri: string; uriBaseId?: string };
    region: { startLine: number };
  };
  logicalLocations: { name: string; fullyQualifiedName: string; kind: string }[];
  message?: { text: string };
}

function toolLocation(tool: FlowLegTool, place: Locate, message?: string): SarifLocation {
  const qualified = tool.server === null ? tool.tool : `${tool.server}/${tool.tool}`;
  const physical = physicalOf(place(tool.source, JSON.stringify(tool.tool)));
  return {
    ...(physical ? { physicalLocation: physical } : {}),
    logicalLocations: [{ name: tool.tool, fullyQualifiedName: qualified, kind: "function" }],
    ...(message === undefined ? {} : { message: { text: message } }),
  };
}

/**
 * A toxic flow: placed on the first tool of its last leg (the sink or the destructive
 * tool), with every listed tool of every leg as a related location.
 */
function flowResult(t: TargetResult, f: Finding, place: Locate) {
  const legs = f.flow!.legs;
  const anchor = legs[legs.length - 1]!.tools[0];
  let id = 0;
  const related = legs.flatMap((leg) =>
    leg.tools.map((tool) => ({
      id: id++,
      ...toolLocation(tool, place, `${leg.label}: ${tool.evidence}`),
    })),
  );
  return {
    ruleId: f.code,
    ruleIndex: RULE_CODES.indexOf(f.code),
    level: level(f.grade),
    message: { text: f.message },
    locations: [
      anchor === undefined
        ? { logicalLocations: [{ name: t.name, fullyQualifiedName: t.name, kind: "module" }] }
        : toolLocation(anchor, place),
    ],
    relatedLocations: related,
    partialFingerprints: { toolFinding: `flow|${f.code}|${t.name}` },
    properties: {
      grade: f.grade,
      flow: f.flow!.id,
      legs: legs.map((l) => ({ label: l.label, count: l.count, accepted: l.accepted })),
    },
    ...(f.suppressed
      ? {
          suppressions: [
            { kind: "external", status: "accepted", justification: f.suppressed.reason },
          ],
        }
      : {}),
  };
}

function notification(p: InputProblem, root: string) {
  // A problem at a byte of a file (INPUT_NOT_UTF8) points there: region.byteOffset.
  const located = p.offset !== undefined && p.source !== "-" && p.source !== "memory";
  return {
    level: p.severity === "error" ? "error" : p.severity === "warning" ? "warning" : "note",
    message: { text: p.message },
    descriptor: { id: p.code },
    ...(located
      ? {
          locations: [
            {
              physicalLocation: {
                artifactLocation: artifactLocation(p.source, root),
                region: { byteOffset: p.offset, byteLength: 1 },
              },
            },
          ],
        }
      : {}),
  };
}

/**
 * A file under the source root as a relative reference against `%SRCROOT%` (what GitHub
 * code scanning maps onto the repository); any other as an absolute `file:` URI. A
 * relative reference never starts with a slash (SARIF1004).
 */
function artifactLocation(source: string, root: string): { uri: string; uriBaseId?: string } {
  const absolute = resolve(root, source);
  const inRoot = relative(root, absolute);
  if (inRoot !== "" && !inRoot.startsWith(`..${sep}`) && inRoot !== ".." && !isAbsolute(inRoot)) {
    return {
      uri: inRoot
        .split(sep)
        .map((segment) => encodeURIComponent(segment))
        .join("/"),
      uriBaseId: SOURCE_ROOT,
    };
  }
  return { uri: pathToFileURL(absolute).href };
}

/** A directory's `file:` URI with the trailing slash SARIF asks of a base. */
function directoryUri(path: string): string {
  const href = pathToFileURL(path).href;
  return href.endsWith("/") ? href : `${href}/`;
}
