import { readFileSync } from "node:fs";
import { detectInjectionInTool } from "../src/scan/poisoning/index.js";

const [file, id] = [process.argv[2]!, process.argv[3]!];
for (const l of readFileSync(file, "utf8").split("\n")) {
  if (!l.trim()) continue;
  const r = JSON.parse(l);
  const tools = r.tools ?? (r.tool ? [r.tool] : []);
  for (const t of tools) {
    if (r.id !== id && t.name !== id) continue;
    console.log(JSON.stringify(t).slice(0, 1500));
    for (const f of detectInjectionInTool(t))
      console.log(" -", f.signal, f.pointer, f.why.slice(0, 200));
  }
}
