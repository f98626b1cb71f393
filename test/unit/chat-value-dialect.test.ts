// The normalizer's Gemma 4 dialect: bare keys and <|"|>-delimited raw strings become JSON,
// whatever way the text is split into pieces (delimiters split across pieces included).
import { describe, expect, it } from "vitest";
import { GEMMA4_DIALECT } from "../../src/chat/dedicated/gemma4.js";
import { JsonNormalizer } from "../../src/chat/json-normalizer.js";

const CASES: { text: string; json: unknown }[] = [
  { text: '{city:<|"|>Paris<|"|>,days:3}', json: { city: "Paris", days: 3 } },
  { text: "{}", json: {} },
  { text: '{text:<|"|>He said "hi" \\ back\n<|"|>}', json: { text: 'He said "hi" \\ back\n' } },
  {
    text: '{items:[<|"|>x<|"|>,{y:1}],meta:{k:[1,2],z:None},flag:true}',
    json: { items: ["x", { y: 1 }], meta: { k: [1, 2], z: null }, flag: true },
  },
  { text: '{<|"|>quoted key<|"|>:<|"|><|"|>}', json: { "quoted key": "" } },
  // Whitespace around a bare key is not part of it; inside it, it is (the template writes `Basic LLM Chain:`).
  { text: '{ x : 1 , y :<|"|>z<|"|> }', json: { x: 1, y: "z" } },
  { text: "{Basic LLM Chain :{a b:1}}", json: { "Basic LLM Chain": { "a b": 1 } } },
  // A string whose opening delimiter was left out runs from its first letter to the delimiter.
  { text: '{q:weather in Tokyo<|"|>,n:5,b:[x<|"|>,true]}', json: { q: "weather in Tokyo", n: 5, b: ["x", true] } },
];

function normalize(pieces: string[]): string {
  const n = new JsonNormalizer(GEMMA4_DIALECT);
  return pieces.map((s) => n.push(s)).join("") + n.close();
}

describe("Gemma 4 value dialect", () => {
  it.each(CASES)("$text", ({ text, json }) => {
    expect(JSON.parse(normalize([text]))).toEqual(json);
    // Every split point, and one character at a time.
    for (let i = 1; i < text.length; i++)
      expect(JSON.parse(normalize([text.slice(0, i), text.slice(i)]))).toEqual(json);
    expect(JSON.parse(normalize([...text]))).toEqual(json);
  });

  it("closes truncated text into valid JSON", () => {
    expect(JSON.parse(normalize(['{city:<|"|>Par']))).toEqual({ city: "Par" });
    expect(JSON.parse(normalize(['{city:<|"|>Paris<|"']))).toEqual({ city: 'Paris<|"' });
    expect(JSON.parse(normalize(["{cit"]))).toEqual({ cit: null });
  });

  it("leaves plain JSON reading unchanged without the dialect", () => {
    const n = new JsonNormalizer();
    n.push("{city:1}");
    expect(n.failed).toBe(true);
  });
});

describe("a dialect of bare keys alone", () => {
  it("reads no bare word as a string: without a delimiter a word that is no literal fails", () => {
    const n = new JsonNormalizer({ stringDelimiter: "", bareKeys: true });
    expect(n.push("{a:1,b:")).toBe('{"a":1,"b":');
    expect(n.push("word,c:2}")).toBe("");
    expect(n.failed).toBe(true);
  });
});
