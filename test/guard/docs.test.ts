import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const SUBPATHS: Record<string, string> = {
  "agent-airlock": "src/index.ts",
  "agent-airlock/guard": "src/guard/index.ts",
  "agent-airlock/didis": "src/guard/didis.ts",
  "agent-airlock/langchain": "src/integrations/langchain.ts",
  "agent-airlock/openai-agents": "src/integrations/openai-agents.ts",
  "agent-airlock/ai-sdk": "src/integrations/ai-sdk.ts",
};

/** The ```ts blocks of a Markdown file, with package imports pointed at the sources. */
function blocksOf(markdown: string): string[] {
  const blocks = [...markdown.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");
  return blocks.map((code) =>
    code.replace(/from "(agent-airlock(?:\/[a-z-]+)?)"/g, (whole, spec: string) => {
      const target = SUBPATHS[spec];
      return target ? `from ${JSON.stringify(pathToFileURL(join(root, target)).href)}` : whole;
    }),
  );
}

/** `console.log(...); // expected` lines: the expected output of each block. */
function expectations(code: string): string[] {
  return [...code.matchAll(/console\.log\(.*\);? \/\/ (.+)$/gm)].map((m) => (m[1] ?? "").trim());
}

const tmp = join(root, ".airlock-tmp", `docs-guard-${process.pid}`);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("docs/guard.md", () => {
  it("every TypeScript example runs and prints what its comments say", async () => {
    const blocks = blocksOf(readFileSync(join(root, "docs/guard.md"), "utf8"));
    expect(blocks.length).toBeGreaterThanOrEqual(8);
    mkdirSync(tmp, { recursive: true });
    const files = blocks.map((code, i) => {
      const file = join(tmp, `block-${i}.ts`);
      writeFileSync(file, `${code}\nexport {};\n`);
      return pathToFileURL(file).href;
    });
    const runner = join(tmp, "run.ts");
    writeFileSync(
      runner,
      files
        .map((f, i) => `console.log("@@block ${i}");\nawait import(${JSON.stringify(f)});`)
        .join("\n"),
    );
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", runner], {
      cwd: root,
      encoding: "utf8",
      timeout: 110_000,
    });
    const outputs = stdout.split(/^@@block \d+\n/m).slice(1);
    expect(outputs).toHaveLength(blocks.length);
    blocks.forEach((code, i) => {
      for (const expected of expectations(code)) expect(outputs[i]).toContain(expected);
    });
    // One process compiles and runs every example (MCP servers, LangChain, the AI SDK):
    // about 4 s alone, far more when the machine is also running the rest of the suite.
  }, 120_000);
});
