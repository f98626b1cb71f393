// The mapper's argument handling, on its own: quote normalisation (Python / single-quoted text
// to JSON), closing-quote tracking (which quote ends a string, escapes split across chunks),
// brace auto-closing (truncated arguments still parse), and arguments buffered until the call's
// name is known. Every case is also streamed one character at a time: same JSON.
import { describe, expect, it } from "vitest";
import { JsonNormalizer } from "../../src/chat/json-normalizer.js";
import { MessageMapper } from "../../src/chat/mapper.js";
import { NODE } from "../../src/chat/tree-names.js";
import { accumulateDeltas, type ChatDelta } from "../../src/chat/index.js";
import { PegArena, PegStreamParser } from "../../src/peg/index.js";

/** Normalised JSON of `text` read whole, then closed. */
function whole(text: string): string {
  const n = new JsonNormalizer();
  return n.push(text) + n.close();
}

/** The same read one character at a time. */
function charByChar(text: string): string {
  const n = new JsonNormalizer();
  let out = "";
  for (const c of text) out += n.push(c);
  return out + n.close();
}

const CASES: [label: string, input: string, json: string][] = [
  // quote normalisation
  ["single-quoted keys and strings", "{'city': 'Paris'}", '{"city":"Paris"}'],
  ["Python literals", "{'a': True, 'b': False, 'c': None}", '{"a":true,"b":false,"c":null}'],
  ["a double quote inside a single-quoted string is escaped", `{'s': 'say "hi"'}`, '{"s":"say \\"hi\\""}'],
  ["an escaped single quote becomes a plain one", "{'s': 'it\\'s'}", '{"s":"it\'s"}'],
  ["mixed quoting in one object", `{"a": 'x', 'b': "y"}`, '{"a":"x","b":"y"}'],
  ["Python number spellings", "{'n': 1_000, 'm': .5, 'k': +3}", '{"n":1000,"m":0.5,"k":3}'],
  [
    "JSON escapes are kept, \\x escapes translated",
    `{"s": "a\\nb\\u00e9", 't': '\\x41'}`,
    '{"s":"a\\nb\\u00e9","t":"\\u0041"}',
  ],
  // closing-quote tracking
  ["a single quote inside a double-quoted string is content", `{"s": "it's"}`, '{"s":"it\'s"}'],
  ["an escaped double quote does not end the string", `{"s": "a\\"b"}`, '{"s":"a\\"b"}'],
  ["an escaped backslash before the quote does", `{"s": "a\\\\", "t": 1}`, '{"s":"a\\\\","t":1}'],
  ["braces inside a string are not structure", `{"s": "{[}]"}`, '{"s":"{[}]"}'],
  // quotes the model left unescaped: text where no string's follower (`,:}])<`) comes after them
  [
    "an unescaped double quote inside a string is text",
    `{"s": "He said "hi" to me", "n": 1}`,
    '{"s":"He said \\"hi\\" to me","n":1}',
  ],
  ["an unescaped single quote inside a single-quoted string is text", "{'s': 'it's mine'}", '{"s":"it\'s mine"}'],
  ["a closing quote before whitespace, then a follower, closes", `{"s": "a" , "t": "b"\n}`, '{"s":"a","t":"b"}'],
  ["a quote that ends the input closes the string", `"a"`, '"a"'],
  // brace auto-closing
  ["truncated inside a string: the quote and braces close", `{"a": {"b": "Par`, '{"a":{"b":"Par"}}'],
  ["truncated inside an array of objects", `{"a": [1, {"b": 2`, '{"a":[1,{"b":2}]}'],
  ["truncated after a colon: the value is null", `{"a": `, '{"a":null}'],
  ["truncated after a key", `{"a"`, '{"a":null}'],
  ["truncated after a comma: no dangling comma", `{"a": 1, `, '{"a":1}'],
  ["truncated inside a number", `{"a": [1, 2.5`, '{"a":[1,2.5]}'],
  ["truncated inside an escape", `{"s": "a\\u00`, '{"s":"a"}'],
  ["a trailing comma before the brace is dropped", `{"a": 1,}`, '{"a":1}'],
];

describe("argument normalisation", () => {
  it.each(CASES)("%s", (_, input, json) => {
    expect(whole(input)).toBe(json);
    expect(charByChar(input)).toBe(json);
    expect(() => JSON.parse(json)).not.toThrow();
  });

  it("what is emitted before the end is always a prefix of the final JSON", () => {
    for (const [, input, json] of CASES) {
      const n = new JsonNormalizer();
      let out = "";
      for (const c of input) {
        out += n.push(c);
        expect(json.startsWith(out), `${input} → ${out}`).toBe(true);
      }
    }
  });

  it("broken text stops the reading; what was read is still closed into valid JSON", () => {
    const n = new JsonNormalizer();
    const out = n.push('{"a": [1, 2} x') + n.close();
    expect(n.failed).toBe(true);
    expect(JSON.parse(out)).toEqual({ a: [1, 2] });
  });
});

describe("arguments written before the name are buffered until the name is known", () => {
  // A layout some models use: {"arguments": {...}, "name": "f"}.
  const p = new PegArena();
  const args = p.capture(NODE.toolArgs, p.json());
  const name = p.atomic(p.seq(p.literal('"'), p.capture(NODE.toolName, p.chars("a-z_", 1)), p.literal('"')));
  const call = p.tag(
    NODE.tool,
    p.seq(p.literal('<call>{"arguments": '), args, p.literal(', "name": '), name, p.literal("}</call>")),
  );
  const root = p.seq(p.capture(NODE.content, p.until("<call>")), p.zeroOrMore(call), p.end());
  const text =
    'Ok.<call>{"arguments": {"city": "Paris", "days": 3}, "name": "get_weather"}</call><call>{"arguments": ' +
    '{}, "name": "now"}</call>';

  it.each([1, 3, 11])("in %i-character chunks", (size) => {
    const s = new PegStreamParser(p, root);
    const m = new MessageMapper({ idAfterName: false, ignoreModelIds: false }, (i) => `id${i}`);
    const deltas: ChatDelta[] = [];
    for (let i = 0; i < text.length; i += size) {
      const r = s.feed(text.slice(i, i + size));
      expect(m.apply(r.nodeList, r.source)).toBe(true);
      deltas.push(...m.drain());
    }
    const end = s.finish();
    expect(m.apply(end.nodeList, end.source)).toBe(true);
    m.finish();
    deltas.push(...m.drain());
    // Each call's first delta carries id, type and name; argument fragments only come after it.
    const calls = deltas.flatMap((d) => d.tool_calls ?? []);
    const firstOf = (index: number) => calls.findIndex((c) => c.index === index);
    expect(calls[firstOf(0)]).toEqual({
      index: 0,
      id: "id0",
      type: "function",
      function: { name: "get_weather", arguments: '{"city":"Paris","days":3}' },
    });
    expect(calls[firstOf(1)]).toMatchObject({ index: 1, id: "id1", function: { name: "now" } });
    expect(firstOf(1)).toBeGreaterThan(firstOf(0));
    expect(calls.filter((c) => c.id !== undefined)).toHaveLength(2);
    const msg = accumulateDeltas(deltas);
    expect(msg).toEqual(m.message());
    expect(msg.content).toBe("Ok.");
    expect(msg.tool_calls!.map((c) => [c.function.name, JSON.parse(c.function.arguments)])).toEqual([
      ["get_weather", { city: "Paris", days: 3 }],
      ["now", {}],
    ]);
  });
});
