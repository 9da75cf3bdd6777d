// A key twice at the top of a JSON text (hasTopLevelDuplicate in src/lib/json-duplicate-key.ts):
// a reader that keeps the first of two same-named members sees another message than
// JSON.parse does, so airlock proxy must find every answer whose top level names `id`
// twice, and only those.
import { describe, expect, it } from "vitest";
import { hasTopLevelDuplicate } from "../../src/lib/json-duplicate-key.js";

describe("hasTopLevelDuplicate", () => {
  it.each([
    ['{"jsonrpc":"2.0","id":4,"result":{},"id":5}', "id"],
    ['{"id":4,"result":{},"i\\u0064":5}', "id"],
    ['{"\\u0069\\u0064":4,"result":{},"id":5}', "id"],
    ['{ "id" : 4 , "result" : { "a" : [1, {"id": 2}] } , "result" : 1 }', "result"],
    ['{"result":{"x":"\\"id\\""},"id":1,"id":1}', "id"],
    ['{"a\\"b":1,"a\\"b":2}', 'a"b'],
    ['{"a/b":1,"a\\/b":2}', "a/b"],
    ['{"\\\\":1,"\\\\":2}', "\\"],
  ])("finds the member named twice in %s (%s)", (text, name) => {
    expect(hasTopLevelDuplicate(text, name)).toBe(true);
  });

  it.each([
    ['{"jsonrpc":"2.0","id":4,"result":{"id":1,"x":{"id":2},"y":[{"id":3},{"id":3}]}}', "id"],
    ['{"id":4,"result":"\\"id\\":5,\\"id\\":6"}', "id"],
    ['{"id":"id","result":["id","id"]}', "id"],
    ['{"id":1,"result":{"text":"caf\\u00e9"}}', "id"],
    ['{"result":{},"result":{}}', "id"],
    ['{"a\\\\":1,"a":2}', "a"],
    ['["id","id"]', "id"],
    ["{}", "id"],
  ])("finds no second %s in %s", (text, name) => {
    expect(hasTopLevelDuplicate(text, name)).toBe(false);
  });

  it("reads a text of many escaped quotes and backslashes (a million) without trouble", () => {
    const body = '\\\\\\"\\u0022'.repeat(500_000);
    expect(hasTopLevelDuplicate(`{"id":1,"result":"${body}","id":2}`, "id")).toBe(true);
  });
});
