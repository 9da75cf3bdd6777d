// Duplicate top-level member names in a JSON text (src/proxy/duplicate-members.ts): a
// reader that keeps the first of two same-named members sees another message than
// JSON.parse does, so the proxy must find every such text and only those.
import { describe, expect, it } from "vitest";
import { detectDuplicateMember } from "../../src/proxy/duplicate-members.js";

describe("detectDuplicateMember", () => {
  it.each([
    ['{"jsonrpc":"2.0","id":4,"result":{},"id":5}', "id"],
    ['{"id":4,"result":{},"i\\u0064":5}', "id"],
    ['{ "id" : 4 , "result" : { "a" : [1, {"id": 2}] } , "result" : 1 }', "result"],
    ['{"a\\"b":1,"a\\"b":2}', 'a"b'],
    ['{"\\\\":1,"\\\\":2}', "\\"],
  ])("finds the member named twice in %s", (text, name) => {
    expect(detectDuplicateMember(text)).toBe(name);
  });

  it.each([
    ['{"jsonrpc":"2.0","id":4,"result":{"id":1,"x":{"id":2},"y":[{"id":3},{"id":3}]}}'],
    ['{"id":4,"result":"\\"id\\":5,\\"id\\":6"}'],
    ['{"id":"id","result":["id","id"]}'],
    ['{"a\\\\":1,"a":2}'],
    ['["id","id"]'],
    ["{}"],
  ])("finds nothing in %s", (text) => {
    expect(detectDuplicateMember(text)).toBeUndefined();
  });

  it("reads a text of many escaped quotes and backslashes in linear time", () => {
    const body = '\\\\\\"'.repeat(500_000);
    expect(detectDuplicateMember(`{"id":1,"result":"${body}","id":2}`)).toBe("id");
  });
});
