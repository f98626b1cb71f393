/**
 * The addon's own argument checks: every native entry point rejects bad input with a
 * TypeError/RangeError naming the method and argument, never a crash.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import {
  loadNative,
  type NativeBinding,
  type NativeContext,
  type NativeModel,
  type NativeSampler,
} from "../../src/runtime/binding.js";
import { ensureTestModel } from "../helpers/test-models.js";

let native: NativeBinding;
let model: NativeModel;
let context: NativeContext;
let sampler: NativeSampler;

beforeAll(async () => {
  native = loadNative();
  model = await native.Model.load(await ensureTestModel({ vocab: "llama-spm" }), {}).promise;
  context = await native.Context.create(model, { contextSize: 256, threads: 1 });
  sampler = new native.Sampler(model, { greedy: true });
});

afterAll(() => {
  sampler?.dispose();
  context?.dispose();
  model?.dispose();
});

const anyNative = () => native as unknown as Record<string, any>;

test.each([
  {
    name: "Model.load without a path",
    call: () => anyNative().Model.load(),
    error: TypeError,
    message: /Model\.load: path must be a string, got undefined/,
  },
  {
    name: "Model.load with bad options",
    call: () => anyNative().Model.load("x.gguf", 5),
    error: TypeError,
    message: /options must be an object/,
  },
  {
    name: "Model.load with a non-function callback",
    call: () => anyNative().Model.load("x.gguf", {}, 5),
    error: TypeError,
    message: /onProgress must be a function/,
  },
  {
    name: "Model.load with fractional gpuLayers",
    call: () => anyNative().Model.load("x.gguf", { gpuLayers: 1.5 }),
    error: RangeError,
    message: /gpuLayers/,
  },
  {
    name: "new Model from JS",
    call: () => new (anyNative().Model)({}),
    error: TypeError,
    message: /not constructible/,
  },
  {
    name: "new Context from JS",
    call: () => new (anyNative().Context)({}),
    error: TypeError,
    message: /not constructible/,
  },
  {
    name: "Context.create with a non-model",
    call: () => anyNative().Context.create({}),
    error: TypeError,
    message: /model must be a native Model/,
  },
  {
    name: "Context.create with contextSize too big",
    call: () => anyNative().Context.create(model, { contextSize: 2 ** 30 }),
    error: RangeError,
    message: /contextSize/,
  },
  {
    name: "new Sampler with a non-model",
    call: () => new (anyNative().Sampler)(null),
    error: TypeError,
    message: /model must be a native Model/,
  },
  {
    name: "new Sampler with topP 2",
    call: () => new (anyNative().Sampler)(model, { topP: 2 }),
    error: RangeError,
    message: /topP/,
  },
  {
    name: "new Sampler with a string seed",
    call: () => new (anyNative().Sampler)(model, { seed: "1" }),
    error: TypeError,
    message: /seed/,
  },
  {
    name: "setGrammar without gbnf",
    call: () => (sampler as any).setGrammar({}),
    error: TypeError,
    message: /gbnf must be a string/,
  },
  {
    name: "setGrammar lazy without triggers",
    call: () => (sampler as any).setGrammar({ gbnf: 'root ::= "x"', lazy: true }),
    error: RangeError,
    message: /trigger/,
  },
  {
    name: "setGrammar with unknown engine",
    call: () => (sampler as any).setGrammar({ gbnf: 'root ::= "x"', engine: "nope" }),
    error: Error,
    message: /unknown grammar engine "nope"/,
  },
  {
    name: "step with a non-sampler",
    call: () => (context as any).step({}),
    error: TypeError,
    message: /sampler must be a native Sampler/,
  },
  {
    name: "step with a bad pending token",
    call: () => (context as any).step(sampler, [-1]),
    error: RangeError,
    message: /pending\[0\]/,
  },
  {
    name: "decode with strings",
    call: () => (context as any).decode(["a"]),
    error: TypeError,
    message: /tokens\[0\] must be a token id/,
  },
  {
    name: "decode with a Float32Array",
    call: () => (context as any).decode(new Float32Array(2)),
    error: TypeError,
    message: /Int32Array/,
  },
  {
    name: "truncate with a negative count",
    call: () => (context as any).truncate(-1),
    error: RangeError,
    message: /keep/,
  },
  { name: "tokenPiece out of range", call: () => (model as any).tokenPiece(1e9), error: RangeError, message: /token/ },
  {
    name: "tokenize with a non-string",
    call: () => (model as any).tokenize({}),
    error: TypeError,
    message: /text must be a string/,
  },
  {
    name: "detokenize with a bad option",
    call: () => (model as any).detokenize([1], { removeSpecial: 1 }),
    error: TypeError,
    message: /removeSpecial/,
  },
])("$name", ({ call, error, message }) => {
  expect(call).toThrow(error);
  expect(call).toThrow(message);
});

test("a step needs logits, and a busy context refuses a second worker", async () => {
  context.clear();
  await expect(context.step(sampler)).rejects.toMatchObject({
    code: "TOOLWRIGHT_SAMPLE_FAILED",
    message: expect.stringContaining("decode a prompt first"),
  });
  const first = context.decode([1, 2, 3]);
  expect(() => context.decode([4])).toThrow(/busy/);
  expect(await first).toBe(3);
  const step = await context.step(sampler);
  expect(step.token).toBeGreaterThanOrEqual(0);
  expect(Buffer.isBuffer(step.bytes)).toBe(true);
  expect(Array.from(context.tokens())).toEqual([1, 2, 3]);
  expect(context.truncate(1)).toBe(true);
  expect(context.size).toBe(1);
});

test("a sampler for another model is refused", async () => {
  const other = await native.Model.load(await ensureTestModel({ vocab: "llama-spm", seed: 2 }), {}).promise;
  const foreign = new native.Sampler(other, {});
  try {
    expect(() => context.step(foreign, [1])).toThrow(/different model/);
  } finally {
    foreign.dispose();
    other.dispose();
  }
});

test("disposed objects refuse calls instead of crashing", async () => {
  const m = await native.Model.load(await ensureTestModel({ vocab: "llama-spm" }), {}).promise;
  const c = await native.Context.create(m, { contextSize: 256, threads: 1 });
  const s = new native.Sampler(m, {});
  m.dispose(); // the context keeps the weights alive
  await c.decode([1, 2]);
  expect((await c.step(s)).token).toBeGreaterThanOrEqual(0);
  s.dispose();
  c.dispose();
  expect(() => c.decode([1])).toThrow(/disposed/);
  expect(() => s.reset()).toThrow(/disposed/);
  expect(() => m.tokenize("x")).toThrow(/disposed/);
  expect(() => native.Context.create(m, {})).toThrow(/disposed/);
});
