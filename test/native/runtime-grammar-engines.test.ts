/**
 * The grammar slot's two engines inside real generation: llama.cpp's GBNF sampler ("llama", the
 * reference) and ours ("toolwright"). Identical masks mean identical samples, so with the same
 * seed both engines must produce exactly the same tokens; any mask difference shows up as a
 * diverging sequence (or a grammar error on accept).
 *
 * One difference is on purpose: ours refuses tokens that would make the text ill-formed UTF-8,
 * which llama.cpp lets through under a negated class (a lone 0xF5 byte, say). Where a grammar
 * allows that, the two runs may part, and the test checks instead that ours stays well-formed
 * and inside the grammar (the differential tool checks the masks agree on every other token).
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type Context, loadModel, type Model } from "../../src/index.js";
import { loadNative } from "../../src/runtime/binding.js";
import { ensureTestModel } from "../helpers/test-models.js";

const GRAMMARS: Array<{ name: string; gbnf: string; check?: (text: string) => void; partsOnIllFormedUtf8?: RegExp }> = [
  {
    name: "bounded JSON object",
    gbnf:
      String.raw`
root   ::= "{" ws "\"name\"" ws ":" ws string ws "," ws "\"n\"" ws ":" ws number ws "," ` +
      String.raw`ws "\"tags\"" ws ":" ws tags ws "}"
string ::= "\"" [a-zA-Z0-9 é日🎉]{1,12} "\""
number ::= "-"? ("0" | [1-9] [0-9]{0,3}) ("." [0-9]{1,3})?
tags   ::= "[" ws (string (ws "," ws string){0,2})? ws "]"
ws     ::= " "?
`,
    check: (text) => expect(() => JSON.parse(text)).not.toThrow(),
  },
  { name: "alternatives and repetition", gbnf: `root ::= ("yes" | "no" | "maybe") (", " ("yes" | "no")){0,4} "."` },
  {
    name: "negated class with Unicode",
    gbnf: `root ::= "<" [^<>\\n]{1,20} ">"`,
    partsOnIllFormedUtf8: /^<[^<>\n]{1,20}>$/u,
  },
];

let model: Model;
let context: Context;

beforeAll(async () => {
  const engines = (loadNative().systemInfo() as { grammarEngines: string[] }).grammarEngines;
  expect(engines).toContain("toolwright");
  model = await loadModel(await ensureTestModel({ vocab: "llama-bpe" }));
  context = await model.createContext({ contextSize: 512, threads: 1 });
});

afterAll(() => model?.dispose());

async function run(engine: string, gbnf: string, seed: number): Promise<{ tokens: number[]; text: string }> {
  const generation = context.generate({
    prompt: "Answer:",
    maxTokens: 96,
    grammar: { gbnf, engine },
    // Each token sampled under each engine's mask (llama.cpp's engine has no fast-forward).
    sampling: { seed, temperature: 1.5, topK: 0, topP: 1, minP: 0, fastForward: false },
  });
  const tokens: number[] = [];
  let text = "";
  for await (const chunk of generation) {
    tokens.push(chunk.token);
    text += chunk.text;
  }
  return { tokens, text };
}

describe("grammar engines agree token for token", () => {
  for (const g of GRAMMARS) {
    test.each([1, 2, 3, 4])(`${g.name} (seed %i)`, async (seed) => {
      const reference = await run("llama", g.gbnf, seed);
      const ours = await run("toolwright", g.gbnf, seed);
      if (g.partsOnIllFormedUtf8) {
        expect(ours.text).not.toContain("\uFFFD");
        expect(ours.text).toMatch(g.partsOnIllFormedUtf8);
        expect(reference.tokens.length).toBeGreaterThan(0);
      } else {
        expect(ours.tokens).toEqual(reference.tokens);
      }
      g.check?.(ours.text);
    });
  }

  test("a bad grammar gives an error naming the problem", async () => {
    await expect(run("toolwright", `root ::= missing`, 1)).rejects.toThrow(/missing/);
  });
});

describe("default engine", () => {
  test("is ours when built in, and gives the same tokens as naming it", async () => {
    const gbnf = GRAMMARS[0]!.gbnf;
    const named = await run("toolwright", gbnf, 9);
    const generation = context.generate({
      prompt: "Answer:",
      maxTokens: 96,
      grammar: { gbnf },
      sampling: { seed: 9, temperature: 1.5, topK: 0, topP: 1, minP: 0, fastForward: false },
    });
    const tokens: number[] = [];
    for await (const chunk of generation) tokens.push(chunk.token);
    expect(tokens).toEqual(named.tokens);
  });

  test("an unknown engine is an error listing the available ones", async () => {
    await expect(run("nope", `root ::= "x"`, 1)).rejects.toThrow(/unknown grammar engine "nope".*llama.*toolwright/);
  });
});
