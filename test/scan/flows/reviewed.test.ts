/**
 * The reviewed table (reviewed-labels.jsonl): 199 real tools labelled by hand, reason per
 * row, before the inference existed. The rows are exactly the hash-chosen sample (2 per
 * server; 50 held out, also by hash), so nobody picked them; the inference agrees with at
 * least 90 % of the labels, on the tuned rows and on the held-out ones, and every
 * disagreement is listed in docs/toxic-flows.md.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { FLOW_LABELS, type FlowLabel, inferFlowLabels } from "../../../src/scan/index.js";
import { corpusPath, describeCorpus } from "../../helpers/corpus.js";

interface Row {
  corpus: string;
  server: string;
  tool: string;
  set: "dev" | "holdout";
  labels: FlowLabel[];
  reason: string;
}

const rows: Row[] = readFileSync("test/scan/flows/reviewed-labels.jsonl", "utf8")
  .trim()
  .split("\n")
  .map((line) => JSON.parse(line));
const sha = (text: string) => createHash("sha256").update(text).digest("hex");

interface Listing {
  server: string;
  tools: { name: string }[];
}
const listings = new Map<string, Listing>();
function listing(corpus: string, file: string): Listing {
  const key = `${corpus}/${file}`;
  let l = listings.get(key);
  if (l === undefined) {
    l = JSON.parse(readFileSync(corpusPath(corpus, file), "utf8")) as Listing;
    listings.set(key, l);
  }
  return l;
}

/** The inference's labels for a row, and where it and the review differ. */
function judged(row: Row) {
  const def = listing(row.corpus, `${row.server}.json`).tools.find((t) => t.name === row.tool);
  if (def === undefined) throw new Error(`${row.server}/${row.tool} is not in the corpus`);
  const inferred = inferFlowLabels(def, { server: row.server }).map((l) => l.label);
  const differ = FLOW_LABELS.filter((l) => row.labels.includes(l) !== inferred.includes(l));
  return { inferred, differ };
}

function agreement(set: Row["set"]) {
  let agreed = 0;
  let total = 0;
  for (const row of rows.filter((r) => r.set === set)) {
    total += FLOW_LABELS.length;
    agreed += FLOW_LABELS.length - judged(row).differ.length;
  }
  return { agreed, total };
}

const cell = (labels: readonly string[]) => (labels.length === 0 ? "none" : labels.join(", "));

describeCorpus("the reviewed flow labels", () => {
  it("are exactly the hash-chosen sample, with a reason per row", () => {
    const sample: string[] = [];
    for (const corpus of ["real-servers", "real-servers-wide"]) {
      for (const file of readdirSync(corpusPath(corpus))
        .filter((f) => f.endsWith(".json"))
        .sort()) {
        const l = listing(corpus, file);
        const picked = l.tools
          .map((t) => `${l.server}/${t.name}`)
          .sort((a, b) => (sha(a) < sha(b) ? -1 : 1))
          .slice(0, 2);
        sample.push(...picked);
      }
    }
    expect(rows.map((r) => `${r.server}/${r.tool}`).sort()).toEqual([...sample].sort());
    const holdout = [...sample].sort((a, b) =>
      sha(`holdout:${a}`) < sha(`holdout:${b}`) ? -1 : 1,
    );
    expect(
      rows
        .filter((r) => r.set === "holdout")
        .map((r) => `${r.server}/${r.tool}`)
        .sort(),
    ).toEqual(holdout.slice(0, 50).sort());
    expect(rows.length).toBeGreaterThanOrEqual(150);
    for (const r of rows) expect(r.reason.length, `${r.server}/${r.tool}`).toBeGreaterThan(10);
  });

  it("agree with the inference on at least 90 % of labels, tuned rows and held-out rows alike", () => {
    const dev = agreement("dev");
    const holdout = agreement("holdout");
    expect(dev.agreed / dev.total).toBeGreaterThanOrEqual(0.9);
    expect(holdout.agreed / holdout.total).toBeGreaterThanOrEqual(0.9);
    const docs = readFileSync("docs/toxic-flows.md", "utf8");
    expect(docs).toContain(`${dev.agreed} of ${dev.total}`);
    expect(docs).toContain(`${holdout.agreed} of ${holdout.total}`);
  });

  it("every disagreement is listed in docs/toxic-flows.md", () => {
    const expected = rows.flatMap((row) => {
      const { inferred, differ } = judged(row);
      return differ.length === 0
        ? []
        : [
            `| \`${row.server}/${row.tool}\` | ${row.set} | ${cell(row.labels)} | ${cell(inferred)} |`,
          ];
    });
    const docs = readFileSync("docs/toxic-flows.md", "utf8");
    const listed = docs
      .split("\n")
      .filter((line) => /^\| `[^`]+\/[^`]+` \| (dev|holdout) \|/.test(line));
    expect(listed).toEqual(expected);
  });
});
