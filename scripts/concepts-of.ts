/**
 * `node --import tsx scripts/concepts-of.ts "text" [param ...]`: prints the concepts the
 * engine tags in a description (with polarity and sentence), for writing lexicons and rules.
 */

import { foldCase } from "../src/scan/poisoning/case-fold.js";
import { CONCEPT_LIST } from "../src/scan/poisoning/concepts.js";
import { tagText } from "../src/scan/poisoning/engine/tag.js";

const text = process.argv[2]!;
const params = new Set(process.argv.slice(3).map((p) => p.toLowerCase()));
const tagged = tagText(foldCase(text), text, {
  toolName: "probe_tool",
  params,
  describesTool: true,
});
for (const m of tagged.mentions) {
  const flags = `${m.negated ? "-" : ""}${m.imperative ? "!" : ""}${m.quoted ? "q" : ""}${m.example ? "e" : ""}`;
  process.stdout.write(
    `s${m.sentence}c${m.clause} ${CONCEPT_LIST[m.concept]}${flags} «${text.slice(m.start, m.end)}»\n`,
  );
}
