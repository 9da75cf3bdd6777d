/**
 * `node --import tsx scripts/probe-schema.ts FILE`: lines `P|B<TAB>where<TAB>text`, the
 * text placed at `where` (param, nested, enum, default, title, examples, const, output,
 * annotation, schema) of an otherwise plain tool. For writing cases; reads no corpus.
 */
import { readFileSync } from "node:fs";
import { detectInjectionInTool } from "../src/scan/poisoning/index.js";

function place(where: string, text: string): Record<string, unknown> {
  const prop: Record<string, unknown> = { type: "string", description: "The value." };
  const tool: Record<string, unknown> = {
    name: "probe_tool",
    description: "Looks up a record by id.",
    inputSchema: { type: "object", properties: { id: { type: "string" }, mode: prop } },
  };
  const schema = tool.inputSchema as Record<string, unknown>;
  if (where === "param") prop.description = text;
  if (where === "enum") prop.enum = ["fast", text];
  if (where === "default") prop.default = text;
  if (where === "title") prop.title = text;
  if (where === "examples") prop.examples = [text];
  if (where === "const") prop.const = text;
  if (where === "schema") schema.description = text;
  if (where === "nested")
    (schema.properties as Record<string, unknown>).opts = {
      type: "object",
      properties: { inner: { type: "string", description: text } },
    };
  if (where === "output")
    tool.outputSchema = {
      type: "object",
      properties: { r: { type: "string", description: text } },
    };
  if (where === "annotation") tool.annotations = { title: text };
  return tool;
}

let right = 0;
let n = 0;
for (const raw of readFileSync(process.argv[2]!, "utf8").split("\n")) {
  if (raw.trim() === "" || raw.startsWith("#")) continue;
  const [label, where, text] = raw.split("\t") as [string, string, string];
  const found = detectInjectionInTool(place(where, text));
  const ok = found.length > 0 === (label === "P");
  n++;
  if (ok) right++;
  process.stdout.write(
    `${ok ? "ok  " : label === "P" ? "MISS" : "FP  "} ${where} ${text.slice(0, 120)}\n${found.map((f) => `       - ${f.signal}: ${f.why.slice(0, 140)}\n`).join("")}`,
  );
}
process.stdout.write(`${right}/${n} right\n`);
