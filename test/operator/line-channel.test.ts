import { PassThrough } from "node:stream";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ProxyError } from "../../src/proxy/errors.js";
import { LineChannel, type ReceivedMessage } from "../../src/proxy/line-channel.js";

function collect(
  chunks: Buffer[],
  options: { maxMessageBytes?: number; keepReadingAfterMalformed?: boolean } = {},
) {
  const input = new PassThrough();
  const channel = new LineChannel(input, new PassThrough(), { name: "peer", ...options });
  const messages: ReceivedMessage[] = [];
  const faults: ProxyError[] = [];
  // Reading ends with the input, or at a fault that stops it (then no end is reported).
  const ended = new Promise<void>((resolve) =>
    channel.start({
      message: (m) => messages.push(m),
      fault: (f) => {
        faults.push(f);
        if (!options.keepReadingAfterMalformed || f.code === "PROXY_MESSAGE_TOO_LARGE") {
          setImmediate(resolve);
        }
      },
      end: resolve,
    }),
  );
  for (const chunk of chunks) input.write(chunk);
  input.end();
  return ended.then(() => ({ messages, faults }));
}

describe("LineChannel (newline-delimited JSON framing)", () => {
  it("property: messages survive any chunking, and unchanged text is kept byte for byte", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.jsonValue({ maxDepth: 3 }), { minLength: 1, maxLength: 8 }),
        fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 10 }),
        async (values, cuts) => {
          const text = values.map((v) => `${JSON.stringify(v)}\n`).join("");
          const bytes = Buffer.from(text, "utf8");
          const chunks: Buffer[] = [];
          let at = 0;
          for (let i = 0; at < bytes.length; i++) {
            const size = cuts[i % cuts.length]!;
            chunks.push(bytes.subarray(at, at + size));
            at += size;
          }
          const { messages, faults } = await collect(chunks);
          expect(faults).toEqual([]);
          expect(messages.map((m) => m.message)).toEqual(
            values.map((v) => JSON.parse(JSON.stringify(v))),
          );
          expect(messages.map((m) => m.raw)).toEqual(values.map((v) => JSON.stringify(v)));
        },
      ),
      { numRuns: 60 },
    );
  });

  it("accepts CRLF line ends, skips blank lines, and reads a last line without newline", async () => {
    const { messages } = await collect([Buffer.from('{"a":1}\r\n\n  \n{"b":2}')]);
    expect(messages.map((m) => m.message)).toEqual([{ a: 1 }, { b: 2 }]);
  });

  it("stops with PROXY_MESSAGE_TOO_LARGE past the size limit, without buffering the rest", async () => {
    const { messages, faults } = await collect(
      [Buffer.from('{"ok":1}\n'), Buffer.alloc(5_000, 0x61), Buffer.from("\n{}\n")],
      {
        maxMessageBytes: 1_000,
      },
    );
    expect(messages.map((m) => m.message)).toEqual([{ ok: 1 }]);
    expect(faults.map((f) => f.code)).toEqual(["PROXY_MESSAGE_TOO_LARGE"]);
  });

  it("reports malformed JSON as PROXY_UPSTREAM_MALFORMED and stops, or keeps reading when asked", async () => {
    const chunks = [Buffer.from('not json\n{"after":true}\n')];
    const strict = await collect(chunks);
    expect(strict.faults.map((f) => f.code)).toEqual(["PROXY_UPSTREAM_MALFORMED"]);
    expect(strict.messages).toEqual([]);
    const tolerant = await collect(chunks, { keepReadingAfterMalformed: true });
    expect(tolerant.faults).toHaveLength(1);
    expect(tolerant.messages.map((m) => m.message)).toEqual([{ after: true }]);
  });

  it("parses 100,000-deep nesting without a stack overflow and forwards it as received", async () => {
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    const { messages, faults } = await collect([Buffer.from(`${deep}\n`)]);
    expect(faults).toEqual([]);
    expect(messages[0]?.raw).toBe(deep);
  });
});
