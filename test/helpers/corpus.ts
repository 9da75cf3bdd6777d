import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it } from "vitest";

/** `../shared/corpus` beside the project root. */
export const corpusDir = resolve(dirname(fileURLToPath(import.meta.url)), "../../../shared/corpus");

/** Path of a file or folder in the corpus. */
export function corpusPath(...parts: string[]): string {
  return join(corpusDir, ...parts);
}

/** True when the shared corpus is present. */
export const hasCorpus = existsSync(corpusDir);

/**
 * `describe` for tests that read the shared corpus: when it is absent the suite is
 * skipped and says so loudly on stderr, so a missing corpus never passes silently.
 */
export function describeCorpus(name: string, fn: () => void): void {
  if (!hasCorpus) {
    process.stderr.write(
      `\n*** SKIPPED "${name}": ../shared/corpus is missing at ${corpusDir}. These tests did not run. ***\n`,
    );
    // Vitest still runs a skipped suite's body to collect its tests, and these bodies read
    // the corpus: register a skipped placeholder instead of calling `fn` at all.
    describe.skip(`${name} [SKIPPED: ../shared/corpus missing]`, () => {
      it(`needs ${corpusDir}`, () => {});
    });
    return;
  }
  describe(name, fn);
}
