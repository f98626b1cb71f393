// A member written again in an object that nested elements spell (MiniMax M3's `<tag>a</tag><tag>b</tag>`): its
// values become a list in the order written, so none is lost; strings holding JSON punctuation stay whole.
import { describe, expect, it } from "vitest";
import { repeatedAsLists } from "../../src/chat/repeated-members.js";

const CASES: { text: string; want: unknown }[] = [
  { text: '{"tag":"a","n":1,"tag":"b"}', want: { tag: ["a", "b"], n: 1 } },
  { text: '{"t":"x,\\"y\\"}","t":{"k":[1,2]},"t":null}', want: { t: ['x,"y"}', { k: [1, 2] }, null] } },
  { text: '{"a":[{"b":1},{"b":2}],"a":"]"}', want: { a: [[{ b: 1 }, { b: 2 }], "]"] } },
  { text: '{"__proto__":1,"__proto__":2}', want: JSON.parse('{"__proto__":[1,2]}') },
  { text: '{"only":1}', want: { only: 1 } },
];

describe("repeatedAsLists", () => {
  it.each(CASES)("$text", ({ text, want }) => {
    const out = JSON.parse(repeatedAsLists(text)) as unknown;
    expect(out).toEqual(want);
  });

  it("keeps a key named __proto__ as a member", () => {
    const out = JSON.parse(repeatedAsLists('{"__proto__":1,"__proto__":2}')) as Record<string, unknown>;
    expect(Object.hasOwn(out, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });
});
