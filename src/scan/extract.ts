import type { ToolDefinition } from "../pins/types.js";
import { ScanInputError } from "./errors.js";
import type { InputProblem, LoadedTool, ServerInstructions } from "./types.js";

/** Tools, instructions and notes found in one parsed input. */
export interface Extracted {
  tools: LoadedTool[];
  instructions: ServerInstructions[];
  problems: InputProblem[];
  /** Which supported form the input was read as. */
  form: InputForm;
}

/** The supported input forms (docs/scan-tools.md, "Inputs"). */
export type InputForm =
  | "tool"
  | "tools-object"
  | "tool-list"
  | "mcp-servers-config"
  | "vscode-servers-config"
  | "jsonrpc-tools-list"
  | "jsonrpc-initialize"
  | "jsonrpc-transcript"
  | "initialize-result"
  | "pin-file";

/** More tools than this in one input is refused: bounded work on hostile input. */
export const MAX_TOOLS_PER_INPUT = 100_000;

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const own = (o: Json, key: string): unknown => (Object.hasOwn(o, key) ? o[key] : undefined);

/**
 * Read tool definitions out of an already-parsed JSON value in any supported form. Never
 * starts a server, never mutates `value`. Throws {@link ScanInputError}
 * (`SCAN_INPUT_INVALID`) when the value is in none of the forms.
 *
 * @example
 * ```ts
 * import { extractToolDefs } from "agent-airlock/scan";
 * const found = extractToolDefs({ tools: [{ name: "echo", inputSchema: { type: "object" } }] }, "memory");
 * console.log(found.form, found.tools.length); // "tools-object" 1
 * ```
 */
export function extractToolDefs(value: unknown, source: string): Extracted {
  const out: Extracted = { tools: [], instructions: [], problems: [], form: "tool" };
  out.form = extractInto(value, source, out);
  return out;
}

function extractInto(value: unknown, source: string, out: Extracted): InputForm {
  if (Array.isArray(value)) {
    if (value.length > 0 && value.every((v) => isObject(v) && Object.hasOwn(v, "jsonrpc"))) {
      value.forEach((frame, i) => {
        readFrame(frame as Json, source, `/${i}`, out);
      });
      return "jsonrpc-transcript";
    }
    readToolArray(value, source, null, "", out);
    return "tool-list";
  }
  if (!isObject(value)) {
    throw invalid(source, "expected a JSON object or array");
  }
  if (Object.hasOwn(value, "jsonrpc")) {
    const form = readFrame(value, source, "", out);
    if (form === null)
      throw invalid(source, "a JSON-RPC frame with neither tools nor an initialize result");
    return form;
  }
  if (isPinFile(value)) {
    readPinFile(value, source, out);
    return "pin-file";
  }
  const mcpServers = own(value, "mcpServers");
  if (isObject(mcpServers)) {
    readServersConfig(mcpServers, source, "/mcpServers", out);
    return "mcp-servers-config";
  }
  const servers = own(value, "servers");
  if (isObject(servers)) {
    readServersConfig(servers, source, "/servers", out);
    return "vscode-servers-config";
  }
  const listed = readListingLike(value, source, "", null, out);
  if (listed !== null) return listed;
  if (isSingleTool(value)) {
    readToolArray([value], source, null, "", out, true);
    return "tool";
  }
  throw invalid(
    source,
    "none of the supported forms (a tool, {tools}, a list of tools, an mcpServers or servers config, a JSON-RPC tools/list or initialize answer, a pin file)",
  );
}

/** `{tools: [...]}` (with an optional `initialize` and `server`), or an initialize result. */
function readListingLike(
  value: Json,
  source: string,
  pointer: string,
  serverHint: string | null,
  out: Extracted,
): InputForm | null {
  const tools = own(value, "tools");
  const initialize = own(value, "initialize");
  const serverField = own(value, "server");
  let server = typeof serverField === "string" && serverField !== "" ? serverField : serverHint;
  if (isObject(initialize)) server = server ?? serverName(initialize);
  if (Array.isArray(tools)) {
    if (isObject(initialize)) readInitialize(initialize, source, server, out);
    const cursor = own(value, "nextCursor");
    if (typeof cursor === "string" && cursor !== "") {
      out.problems.push({
        severity: "warning",
        code: "PARTIAL_LISTING",
        source,
        message: `${source}${pointer}: the listing has a nextCursor: only this page was scanned; save the full listing (airlock pin lists every page)`,
      });
    }
    readToolArray(tools, source, server, `${pointer}/tools`, out);
    return "tools-object";
  }
  if (isInitializeResult(value)) {
    readInitialize(value, source, server ?? serverName(value), out);
    return "initialize-result";
  }
  return null;
}

/** Fields of a tool definition (MCP 2025-06-18 and later, plus our `capabilities`). */
const TOOL_FIELDS = new Set([
  "name",
  "title",
  "description",
  "inputSchema",
  "outputSchema",
  "annotations",
  "_meta",
  "icons",
  "execution",
  "capabilities",
]);

/**
 * A lone tool: a string `name` and an `inputSchema`, or a name and a description with
 * nothing but tool fields (so a `package.json` is not read as a tool).
 */
function isSingleTool(value: Json): boolean {
  if (typeof own(value, "name") !== "string") return false;
  if (Object.hasOwn(value, "inputSchema")) return true;
  return (
    typeof own(value, "description") === "string" &&
    Object.keys(value).every((k) => TOOL_FIELDS.has(k))
  );
}

function isInitializeResult(value: Json): boolean {
  return (
    typeof own(value, "protocolVersion") === "string" &&
    (Object.hasOwn(value, "serverInfo") ||
      Object.hasOwn(value, "capabilities") ||
      Object.hasOwn(value, "instructions"))
  );
}

function serverName(initialize: Json): string | null {
  const info = own(initialize, "serverInfo");
  const name = isObject(info) ? own(info, "name") : undefined;
  return typeof name === "string" && name !== "" ? name : null;
}

function readInitialize(initialize: Json, source: string, server: string | null, out: Extracted) {
  const text = own(initialize, "instructions");
  if (typeof text === "string" && text !== "") out.instructions.push({ source, server, text });
}

function readFrame(frame: Json, source: string, pointer: string, out: Extracted): InputForm | null {
  const result = own(frame, "result");
  if (isObject(result)) {
    const form = readListingLike(result, source, `${pointer}/result`, null, out);
    if (form === "tools-object") return "jsonrpc-tools-list";
    if (form === "initialize-result") return "jsonrpc-initialize";
  }
  const error = own(frame, "error");
  if (isObject(error)) {
    out.problems.push({
      severity: "warning",
      code: "INPUT_INVALID",
      source,
      message: `${source}${pointer}: a JSON-RPC error answer, no tools in it (${String(own(error, "message") ?? "no message").slice(0, 200)})`,
    });
  }
  return null;
}

function isPinFile(value: Json): boolean {
  const servers = own(value, "servers");
  if (typeof own(value, "version") !== "number" || !isObject(servers)) return false;
  const entries = Object.values(servers);
  // A pin file's server entries hold only a tools map; a client config's name a command or URL.
  return (
    entries.length > 0 &&
    entries.every(
      (s) =>
        isObject(s) &&
        isObject(own(s, "tools")) &&
        !Object.hasOwn(s, "command") &&
        !Object.hasOwn(s, "url") &&
        !Object.hasOwn(s, "type"),
    )
  );
}

function readPinFile(value: Json, source: string, out: Extracted) {
  const servers = own(value, "servers") as Json;
  for (const [server, entry] of Object.entries(servers)) {
    const tools = isObject(entry) ? own(entry, "tools") : undefined;
    if (!isObject(tools)) {
      out.problems.push(
        entryProblem(
          source,
          `/servers/${esc(server)}`,
          "a pin file server entry without a tools map",
        ),
      );
      continue;
    }
    for (const [name, pin] of Object.entries(tools)) {
      const pointer = `/servers/${esc(server)}/tools/${esc(name)}`;
      const definition = isObject(pin) ? own(pin, "definition") : undefined;
      if (!isObject(definition)) {
        out.problems.push(
          entryProblem(source, pointer, "a pin without its approved definition cannot be scanned"),
        );
        continue;
      }
      if (own(definition, "name") !== name) {
        out.problems.push(
          entryProblem(
            source,
            pointer,
            `the pinned definition's name is not ${JSON.stringify(name)}`,
          ),
        );
        continue;
      }
      pushTool(definition, source, server, out);
    }
  }
}

function readServersConfig(servers: Json, source: string, pointer: string, out: Extracted) {
  let commandOnly = 0;
  for (const [server, entry] of Object.entries(servers)) {
    if (!isObject(entry)) {
      out.problems.push(
        entryProblem(source, `${pointer}/${esc(server)}`, "a server entry that is not an object"),
      );
      continue;
    }
    const inline = own(entry, "tools");
    const list = isObject(inline) ? own(inline, "tools") : inline;
    if (Array.isArray(list)) {
      const suffix = isObject(inline) ? "/tools/tools" : "/tools";
      readToolArray(list, source, server, `${pointer}/${esc(server)}${suffix}`, out);
    } else {
      commandOnly++;
    }
  }
  if (commandOnly > 0) {
    out.problems.push({
      severity: "info",
      code: "NO_INLINE_TOOLS",
      source,
      message: `${source}: ${commandOnly} server(s) registered by command or URL only, with no inlined tools; scan-tools never starts a server: scan a saved tools/list or a pin file instead`,
    });
  }
}

function readToolArray(
  list: unknown[],
  source: string,
  server: string | null,
  pointer: string,
  out: Extracted,
  single = false,
) {
  if (out.tools.length + list.length > MAX_TOOLS_PER_INPUT) {
    throw new ScanInputError(
      "SCAN_INPUT_INVALID",
      source,
      `${source}: more than ${MAX_TOOLS_PER_INPUT} tools in one input; refusing to scan`,
    );
  }
  list.forEach((entry, i) => {
    const where = single ? "" : `${pointer}/${i}`;
    if (!isObject(entry)) {
      out.problems.push(entryProblem(source, where, "an entry that is not an object"));
      return;
    }
    const name = own(entry, "name");
    if (typeof name !== "string" || name === "") {
      out.problems.push(entryProblem(source, where, "a tool without a non-empty string name"));
      return;
    }
    pushTool(entry, source, server, out);
  });
}

function pushTool(definition: Json, source: string, server: string | null, out: Extracted) {
  out.tools.push({ definition: definition as ToolDefinition, source, server });
}

function entryProblem(source: string, pointer: string, what: string): InputProblem {
  return {
    severity: "error",
    code: "ENTRY_INVALID",
    source,
    message: `${source}${pointer === "" ? "" : `#${pointer}`}: ${what}`,
  };
}

function invalid(source: string, what: string): ScanInputError {
  return new ScanInputError("SCAN_INPUT_INVALID", source, `${source}: not a tool input: ${what}`);
}

/** JSON-pointer escape of one reference token. */
export function esc(token: string): string {
  if (!token.includes("~") && !token.includes("/")) return token;
  return token.replaceAll("~", "~0").replaceAll("/", "~1");
}
