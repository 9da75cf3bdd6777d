import { Ajv, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { isObject } from "./json-rpc.js";
import { quoteName } from "./refusal.js";

/** What to do with arguments the tool's inputSchema does not declare. */
export type UnknownArgumentsPolicy = "refuse" | "strip";

/** The verdict on one call's arguments. */
export type ArgumentCheck =
  | { ok: true; arguments: Record<string, unknown>; stripped: string[] }
  | { ok: false; reason: string };

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const CACHE_LIMIT = 256;
const MAX_ERRORS_SHOWN = 5;
const validators = new Map<string, ValidateFunction>();
let draft7: Ajv | undefined;
let draft2020: Ajv | undefined;

function engine(schemaDialect: unknown): Ajv {
  // No coercion, no defaults, no removal: the arguments are judged exactly as sent.
  const options = {
    strict: false,
    allErrors: true,
    coerceTypes: false,
    useDefaults: false,
  } as const;
  if (typeof schemaDialect === "string" && /draft\/20(19-09|20-12)/.test(schemaDialect)) {
    draft2020 ??= addFormats(new Ajv2020(options) as unknown as Ajv);
    return draft2020;
  }
  draft7 ??= addFormats(new Ajv(options));
  return draft7;
}

function validatorFor(schema: Record<string, unknown>): ValidateFunction {
  const key = JSON.stringify(schema);
  const cached = validators.get(key);
  if (cached) return cached;
  const { $schema: dialect, ...body } = schema;
  const validate = engine(dialect).compile(body);
  if (validators.size >= CACHE_LIMIT) {
    const oldest = validators.keys().next().value;
    if (oldest !== undefined) validators.delete(oldest);
  }
  validators.set(key, validate);
  return validate;
}

/**
 * Judge one call's arguments against the tool's `inputSchema`, strictly: an argument
 * the schema does not declare under `properties` is refused (or, with
 * `unknownArguments: "strip"`, removed), then the arguments must validate against the
 * schema as sent (no type coercion, no defaults filled in). A refusal carries a reason
 * a model can act on. The caller's arguments object is never modified.
 *
 * @example
 * ```ts
 * import { checkToolArguments } from "agent-airlock/mcp";
 * const tool = {
 *   name: "get_weather",
 *   inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
 * };
 * console.log(checkToolArguments(tool, { city: "Oslo", debug: true }).ok); // false
 * console.log(checkToolArguments(tool, { city: "Oslo", debug: true }, { unknownArguments: "strip" }));
 * // { ok: true, arguments: { city: "Oslo" }, stripped: ["debug"] }
 * ```
 */
export function checkToolArguments(
  definition: { name: string; inputSchema?: unknown },
  args: unknown,
  options: { unknownArguments?: UnknownArgumentsPolicy } = {},
): ArgumentCheck {
  const tool = quoteName(definition.name);
  const schema = definition.inputSchema;
  if (!isObject(schema)) {
    return {
      ok: false,
      reason: `tool ${tool} has no inputSchema to validate its arguments against; it cannot be called.`,
    };
  }
  const given = args === undefined ? {} : args;
  if (!isObject(given)) {
    return {
      ok: false,
      reason: `the arguments of tool ${tool} must be a JSON object. Call it again with an object of named arguments.`,
    };
  }
  const properties = isObject(schema.properties) ? schema.properties : {};
  const declared = Object.keys(properties);
  const unknown = Object.keys(given).filter((key) => !Object.hasOwn(properties, key));
  const declaredText =
    declared.length > 0 ? declared.map((d) => JSON.stringify(d)).join(", ") : "none";
  if (unknown.length > 0 && options.unknownArguments !== "strip") {
    return {
      ok: false,
      reason: `tool ${tool} does not accept the argument(s) ${unknown.map((u) => quoteName(u)).join(", ")}. Declared arguments: ${declaredText}. Call ${tool} again with only its declared arguments.`,
    };
  }
  const kept: Record<string, unknown> = {};
  for (const key of Object.keys(given)) {
    // Not `unknown.includes(key)`: a call with many unknown keys would cost their square.
    if (Object.hasOwn(properties, key))
      Object.defineProperty(kept, key, {
        value: given[key],
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  let validate: ValidateFunction;
  try {
    validate = validatorFor(schema);
  } catch (err) {
    return {
      ok: false,
      reason: `the inputSchema of tool ${tool} cannot be compiled (${(err as Error).message}); it cannot be called.`,
    };
  }
  if (!validate(kept)) {
    const errors = (validate.errors ?? [])
      .slice(0, MAX_ERRORS_SHOWN)
      .map((e) => `${e.instancePath || "arguments"} ${e.message ?? "is invalid"}`);
    return {
      ok: false,
      reason: `the arguments of tool ${tool} do not match its inputSchema: ${errors.join("; ")}. Declared arguments: ${declaredText}. Fix the arguments and call ${tool} again.`,
    };
  }
  return { ok: true, arguments: kept, stripped: unknown };
}
