import type { Stats } from "node:fs";
import { basename, join } from "node:path";
import type { BoundedRead } from "../lib/bounded-read.js";
import { blankJsoncExtras } from "../lib/jsonc.js";
import { findUtf8Fault } from "../lib/utf8.js";
import { ScanInputError } from "./errors.js";
import { extractToolDefs } from "./extract.js";
import { ASYNC_FILES, BLOCKING_FILES, type Files } from "./files.js";
import type { InputProblem, ToolSet } from "./types.js";

/** Files larger than this are refused (bounded work). */
export const MAX_INPUT_BYTES = 64 * 1024 * 1024;
/** A directory with more JSON files than this is read up to the limit, with a warning. */
export const MAX_DIRECTORY_FILES = 10_000;

/**
 * Client configuration names read first in a directory, in this order; every other
 * `*.json` file follows in name order.
 *
 * @example
 * ```ts
 * import { KNOWN_CONFIG_NAMES } from "agent-airlock/scan";
 * console.log(KNOWN_CONFIG_NAMES[0]); // "mcp.json"
 * ```
 */
export const KNOWN_CONFIG_NAMES: readonly string[] = Object.freeze([
  "mcp.json",
  "claude_desktop_config.json",
  ".mcp.json",
  ".vscode/mcp.json",
  ".cursor/mcp.json",
]);

/** Options of {@link loadToolDefs}. */
export interface LoadOptions {
  /** Where `-` reads from (default `process.stdin`). */
  stdin?: AsyncIterable<Uint8Array | string>;
  /** Called before each file of a directory is read (for progress on large directories). */
  onFile?: (file: string, index: number, total: number) => void;
  /**
   * Read with blocking calls instead of Node's thread pool: faster for a one-shot process
   * that has nothing else to do meanwhile (the `airlock scan-tools` CLI sets it), but it
   * holds the event loop while files are read. Same result either way.
   */
  blocking?: boolean;
}

/**
 * Load tool definitions from a file, a directory, or `-` (standard input), in any
 * supported form (docs/scan-tools.md, "Inputs"). Never starts a server.
 *
 * A missing path throws `SCAN_INPUT_MISSING`; a file given by name that cannot be read
 * or parsed throws `SCAN_INPUT_UNREADABLE` / `SCAN_INPUT_INVALID`. Inside a directory
 * such a file is a warning naming it, and the other files are still read.
 *
 * @example
 * ```ts
 * import { loadToolDefs, resolvePolicy, scanTools } from "agent-airlock/scan";
 * const set = await loadToolDefs("examples/data/scan/tools.json");
 * const report = scanTools(set, resolvePolicy("read-only"), { policyName: "read-only" });
 * console.log(report.exitCode);
 * ```
 */
export async function loadToolDefs(path: string, options: LoadOptions = {}): Promise<ToolSet> {
  if (path === "-") {
    return fromText(decoded(await readStream(options.stdin ?? process.stdin), "-"), "-");
  }
  const files = options.blocking === true ? BLOCKING_FILES : ASYNC_FILES;
  let info: Stats;
  try {
    info = await files.stat(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") {
      throw new ScanInputError("SCAN_INPUT_MISSING", path, `${path}: no such file or directory`, {
        cause: err,
      });
    }
    throw new ScanInputError(
      "SCAN_INPUT_UNREADABLE",
      path,
      `${path}: cannot be read (${code ?? "error"})`,
      {
        cause: err,
      },
    );
  }
  if (info.isDirectory()) return loadDirectory(files, path, options.onFile);
  return fromText(await readText(files, path), path);
}

/**
 * Parse tool definitions from JSON text (what `-` reads). Throws `SCAN_INPUT_INVALID` on
 * text that is not JSON or not a supported form.
 *
 * @example
 * ```ts
 * import { parseToolDefs } from "agent-airlock/scan";
 * const set = parseToolDefs('[{"name":"echo"}]', "inline");
 * console.log(set.tools[0]?.definition.name); // "echo"
 * ```
 */
export function parseToolDefs(text: string, source: string): ToolSet {
  return fromText({ text, problem: null }, source);
}

/** A file's text, and the warning that some of its bytes were not UTF-8. */
interface DecodedText {
  text: string;
  problem: InputProblem | null;
}

/**
 * The bytes as text. Bytes that are not UTF-8 are read as U+FFFD, as every JSON reader
 * does, but not silently: a tool name or description there is not what a client decoding
 * the same bytes differently would show, so the scan warns with the byte offset.
 */
function decoded(bytes: Buffer, source: string): DecodedText {
  const fault = findUtf8Fault(bytes);
  const text = bytes.toString("utf8");
  if (fault === null) return { text, problem: null };
  const more = fault.count > 1 ? ` (${fault.count} invalid sequences in all)` : "";
  return {
    text,
    problem: {
      severity: "warning",
      code: "INPUT_NOT_UTF8",
      source,
      message: `${source}: not UTF-8 at byte ${fault.offset}${more}; those bytes were read as U+FFFD, so names and texts there may not be what a client shows`,
      offset: fault.offset,
    },
  };
}

function fromText({ text, problem }: DecodedText, source: string): ToolSet {
  let value: unknown;
  try {
    value = parseInputJson(stripBom(text));
  } catch (err) {
    throw new ScanInputError(
      "SCAN_INPUT_INVALID",
      source,
      `${source}: not valid JSON (${(err as Error).message})`,
      { cause: err },
    );
  }
  const found = extractToolDefs(value, source);
  const set: ToolSet = {
    tools: found.tools,
    instructions: found.instructions,
    problems: problem === null ? found.problems : [problem, ...found.problems],
    sources: [source],
  };
  return finish(set, source);
}

async function loadDirectory(
  files: Files,
  dir: string,
  onFile?: (file: string, index: number, total: number) => void,
): Promise<ToolSet> {
  const set: ToolSet = { tools: [], instructions: [], problems: [], sources: [] };
  let names: string[];
  try {
    names = (await files.readdir(dir)).filter((n) => n.endsWith(".json")).sort();
  } catch (err) {
    throw new ScanInputError("SCAN_INPUT_UNREADABLE", dir, `${dir}: directory cannot be listed`, {
      cause: err,
    });
  }
  const ordered: string[] = [];
  for (const known of KNOWN_CONFIG_NAMES) {
    if (known.includes("/")) {
      if (await isFile(files, join(dir, known))) ordered.push(known);
    } else if (names.includes(known)) {
      ordered.push(known);
    }
  }
  for (const n of names) if (!ordered.includes(n)) ordered.push(n);
  if (ordered.length > MAX_DIRECTORY_FILES) {
    set.problems.push({
      severity: "warning",
      code: "INPUT_LIMIT",
      source: dir,
      message: `${dir}: ${ordered.length} JSON files; only the first ${MAX_DIRECTORY_FILES} were read`,
    });
    ordered.length = MAX_DIRECTORY_FILES;
  }
  // Files are read a few at a time ahead of the one being parsed, so the reads overlap
  // (a directory of small files otherwise waits on one round trip after another), while
  // at most READ_AHEAD texts are held at once.
  const paths = ordered.map((name) => join(dir, name));
  const reads: Promise<FileRead>[] = [];
  const startRead = (k: number) => {
    if (k < paths.length) reads[k] = readDirectoryFile(files, paths[k]!);
  };
  for (let k = 0; k < READ_AHEAD; k++) startRead(k);
  for (let index = 0; index < paths.length; index++) {
    const file = paths[index]!;
    onFile?.(file, index, paths.length);
    const read = await reads[index]!;
    delete reads[index];
    startRead(index + READ_AHEAD);
    if (read.kind === "directory") continue; // a folder named *.json is not an input
    if (read.kind === "error") {
      set.problems.push(warning("INPUT_UNREADABLE", file, read.error.message));
      continue;
    }
    const { text, problem } = read.text;
    if (problem !== null) set.problems.push(problem);
    let value: unknown;
    try {
      value = parseInputJson(stripBom(text));
    } catch (err) {
      set.problems.push(
        warning(
          "INPUT_INVALID",
          file,
          `${file}: not valid JSON (${(err as Error).message}); skipped`,
        ),
      );
      continue;
    }
    try {
      const found = extractToolDefs(value, file);
      set.tools.push(...found.tools);
      set.instructions.push(...found.instructions);
      set.problems.push(...found.problems);
      set.sources.push(file);
    } catch (err) {
      if (!(err instanceof ScanInputError)) throw err;
      set.problems.push({
        severity: "info",
        code: "NOT_A_TOOL_INPUT",
        source: file,
        message: `${err.message}; skipped`,
      });
    }
  }
  return finish(set, dir);
}

/** How many files of a directory are read ahead of the one being parsed. */
const READ_AHEAD = 8;

type FileRead =
  | { kind: "text"; text: DecodedText }
  | { kind: "directory" }
  | { kind: "error"; error: Error };

/** One file of a directory, read; never rejects (a failure is a value, reported in order). */
async function readDirectoryFile(files: Files, file: string): Promise<FileRead> {
  try {
    const info = await files.stat(file);
    if (info.isDirectory()) return { kind: "directory" };
    return { kind: "text", text: await readText(files, file) };
  } catch (err) {
    return { kind: "error", error: err as Error };
  }
}

function finish(set: ToolSet, source: string): ToolSet {
  if (set.tools.length === 0 && set.instructions.length === 0) {
    set.problems.push({
      severity: "warning",
      code: "NO_TOOLS",
      source,
      message: `${source}: no tool definitions found: nothing was checked`,
    });
  }
  return set;
}

async function readText(files: Files, path: string): Promise<DecodedText> {
  const read: BoundedRead = await files.readBytes(path, MAX_INPUT_BYTES);
  if (read.ok) return decoded(read.bytes, path);
  throw new ScanInputError(
    read.fault === "missing" ? "SCAN_INPUT_MISSING" : "SCAN_INPUT_UNREADABLE",
    path,
    `${path}: ${read.reason}`,
    read.cause === undefined ? undefined : { cause: read.cause },
  );
}

async function readStream(stream: AsyncIterable<Uint8Array | string>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buf = typeof chunk === "string" ? Buffer.from(chunk) : Buffer.from(chunk);
    size += buf.length;
    if (size > MAX_INPUT_BYTES) {
      throw new ScanInputError(
        "SCAN_INPUT_UNREADABLE",
        "-",
        `-: standard input over the ${MAX_INPUT_BYTES}-byte limit`,
      );
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

async function isFile(files: Files, path: string): Promise<boolean> {
  try {
    return (await files.stat(path)).isFile();
  } catch {
    return false;
  }
}

function warning(code: string, file: string, message: string): InputProblem {
  return {
    severity: "warning",
    code,
    source: file,
    message: message.includes(basename(file)) ? message : `${file}: ${message}`,
  };
}

/**
 * The JSON of an input file. A client config may also be JSON with comments and trailing
 * commas, as VS Code and Cursor write it and `wrap-config` reads it (one reader,
 * lib/jsonc.ts); any other input must be strict JSON, the form a client reads a listing
 * in. Throws the strict parse's error when the text is neither.
 */
function parseInputJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    let value: unknown;
    try {
      value = JSON.parse(blankJsoncExtras(text));
    } catch {
      throw err;
    }
    if (isClientConfigDocument(value)) return value;
    throw err;
  }
}

/** An object with `mcpServers` or `servers` as an object (a VS Code config may have a `version`). */
function isClientConfigDocument(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  return (
    (Object.hasOwn(value, "mcpServers") && isPlainObject(value.mcpServers)) ||
    (Object.hasOwn(value, "servers") && isPlainObject(value.servers))
  );
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const stripBom = (text: string) => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
