import type { ToolDefinition } from "../../pins/types.js";
import { esc } from "../extract.js";
import type { Finding } from "../types.js";

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

interface Declared {
  value: unknown;
  pointer: string;
}

/** Record `holder.issuer` when `holder` is an object that declares one. */
function look(found: Declared[], holder: unknown, pointer: string): void {
  if (isObject(holder) && Object.hasOwn(holder, "issuer")) {
    found.push({ value: holder.issuer, pointer: `${pointer}/issuer` });
  }
}

/** Top-level members that may hold an issuer, with their pointers. */
const HOLDERS = [
  ["oauth", "/oauth"],
  ["auth", "/auth"],
  ["authorization", "/authorization"],
] as const;

/** Places an OAuth issuer is declared on a tool definition. */
function issuers(tool: ToolDefinition): Declared[] {
  const found: Declared[] = [];
  look(found, tool, "");
  for (const [key, pointer] of HOLDERS) look(found, tool[key], pointer);
  const meta = tool._meta;
  if (isObject(meta)) {
    for (const key of Object.keys(meta)) {
      const v = meta[key];
      look(found, v, `/_meta/${esc(key)}`);
      if (isObject(v))
        for (const k of ["oauth", "auth"]) look(found, v[k], `/_meta/${esc(key)}/${k}`);
    }
  }
  const schemes = tool.securitySchemes;
  if (Array.isArray(schemes)) {
    for (let i = 0; i < schemes.length; i++) look(found, schemes[i], `/securitySchemes/${i}`);
  }
  return found;
}

/**
 * Why an OAuth issuer identifier is malformed (RFC 8414 section 2: an https URL with a
 * host and no query, fragment or credentials), or null when it is well formed.
 *
 * @example
 * ```ts
 * import { issuerProblem } from "agent-airlock/scan";
 * console.log(issuerProblem("https://auth.example.com")); // null
 * console.log(issuerProblem("http://auth.example.com")); // "not https"
 * ```
 */
export function issuerProblem(value: unknown): string | null {
  if (typeof value !== "string" || value === "") return "not a non-empty string";
  if (value.trim() !== value) return "surrounding whitespace";
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "not a URL";
  }
  if (url.protocol !== "https:") return "not https";
  if (url.hostname === "") return "no host";
  if (url.username !== "" || url.password !== "") return "credentials in the URL";
  if (url.search !== "" || value.includes("?")) return "has a query";
  if (url.hash !== "" || value.includes("#")) return "has a fragment";
  return null;
}

/** SCAN008: every declared issuer that is malformed, appended to `findings`. */
export function issuerFindings(tool: ToolDefinition, findings: Finding[] = []): Finding[] {
  for (const { value, pointer } of issuers(tool)) {
    const problem = issuerProblem(value);
    if (problem !== null) {
      findings.push({
        code: "SCAN008",
        grade: "warn",
        pointer,
        message: `malformed OAuth issuer ${JSON.stringify(String(value).slice(0, 200))}: ${problem}`,
      });
    }
  }
  return findings;
}
