/**
 * Where a tool's name first appears in its source file, as a 1-based line: what a SARIF
 * result's region points at. One pass over each file for all of its tools, so a file of
 * N tools costs its length once, not N times (a search from the start per result would
 * read the whole file again for every tool).
 */

/** JSON string literals (as written, quotes included) to find in one source text. */
export class SourceLines {
  readonly #text: string;
  readonly #wanted: Set<string>;
  #found: Map<string, number> | null = null;
  #lineStarts: number[] | null = null;

  /** `wanted`: the quoted literals that will be asked for (`JSON.stringify(name)`). */
  constructor(text: string, wanted: Iterable<string>) {
    this.#text = text;
    this.#wanted = new Set(wanted);
  }

  /** 1-based line of the first string literal equal to `literal`; 1 when there is none. */
  lineOf(literal: string): number {
    this.#found ??= this.#findLiterals();
    const at = this.#found.get(literal);
    return at === undefined ? 1 : this.#lineAt(at);
  }

  // One pass over the string literals of the text, stopping once every wanted one is seen.
  #findLiterals(): Map<string, number> {
    const text = this.#text;
    const found = new Map<string, number>();
    const lengths = new Set<number>();
    for (const literal of this.#wanted) lengths.add(literal.length);
    let i = text.indexOf('"');
    while (i !== -1 && found.size < this.#wanted.size) {
      let end = i + 1;
      while (end < text.length) {
        const code = text.charCodeAt(end);
        if (code === 0x5c) end += 2;
        else if (code === 0x22) break;
        else end++;
      }
      if (end >= text.length) break;
      if (lengths.has(end + 1 - i)) {
        const literal = text.slice(i, end + 1);
        if (this.#wanted.has(literal) && !found.has(literal)) found.set(literal, i);
      }
      i = text.indexOf('"', end + 1);
    }
    return found;
  }

  #lineAt(offset: number): number {
    if (this.#lineStarts === null) {
      const starts = [0];
      const text = this.#text;
      for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
      this.#lineStarts = starts;
    }
    const starts = this.#lineStarts;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }
}
