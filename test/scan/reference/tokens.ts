/**
 * Word tokenisation (before the speed work, commit 4b6c34c, without its memo), kept
 * verbatim as an oracle: test/scan/fast-paths.test.ts checks that the faster code gives
 * the same answers.
 */
const ASCII = /^[\u0000-\u007f]*$/;

/** 0 separator, 1 lower-case letter, 2 upper-case letter, 3 digit. */
type Kind = 0 | 1 | 2 | 3;

function kindOf(c: string): Kind {
  const code = c.charCodeAt(0);
  if (code >= 97 && code <= 122) return 1;
  if (code >= 65 && code <= 90) return 2;
  if (code >= 48 && code <= 57) return 3;
  if (code < 128) return 0;
  if (/\p{N}/u.test(c)) return 3;
  if (!/\p{L}/u.test(c)) return 0;
  return c === c.toLowerCase() ? 1 : 2;
}

export function referenceWordTokens(identifier: string): string[] {
  const text = ASCII.test(identifier) ? identifier : identifier.normalize("NFKC");
  const chars = text.length === identifier.length && ASCII.test(text) ? text : Array.from(text);
  const n = chars.length;
  const kinds: Kind[] = new Array(n);
  for (let i = 0; i < n; i++) kinds[i] = kindOf(chars[i]!);
  const out: string[] = [];
  let start = -1;
  const flush = (end: number) => {
    let word = "";
    for (let j = start; j < end; j++) word += chars[j];
    out.push(word.toLowerCase());
  };
  for (let i = 0; i < n; i++) {
    const k = kinds[i]!;
    if (start < 0) {
      if (k !== 0) start = i;
      continue;
    }
    const prev = kinds[i - 1]!;
    const next = i + 1 < n ? kinds[i + 1]! : 0;
    const boundary =
      k === 0 ||
      (prev === 1 && k === 2) ||
      (prev === 2 && k === 2 && next === 1) ||
      (prev === 3) !== (k === 3);
    if (boundary) {
      flush(i);
      start = k === 0 ? -1 : i;
    }
  }
  if (start >= 0) flush(n);
  return out;
}
