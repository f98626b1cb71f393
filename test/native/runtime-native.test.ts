/**
 * The addon's own argument checks: every native entry point rejects bad input with a
 * TypeError/RangeError naming the method and argument, never a crash.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { loadNative } from "../../src/runtime/binding.js";
import type {
  NativeBinding,
  NativeContext,
  NativeModel,
  NativeSampler,
  NativeSequenceEvent,
  NativeSubmitOptions,
} from "../../src/runtime/binding-types.js";
import { sequenceEventOf } from "../../src/runtime/sequence-generation.js";
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

/**
 * Submits a generation and collects its events up to the end event, and how many events each call from the
 * context's thread brought (the listener runs for each event of a call before any microtask).
 */
function generateEventCalls(
  ctx: NativeContext,
  s: NativeSampler,
  tokens: number[],
  options: NativeSubmitOptions,
): Promise<{ events: NativeSequenceEvent[]; calls: number[] }> {
  return new Promise((resolve) => {
    const events: NativeSequenceEvent[] = [];
    const calls: number[] = [];
    let counting = false;
    // No read-ahead limit: nothing here reports tokens taken (consumed), which a paused request waits for.
    ctx.submit(s, Int32Array.from(tokens), { readAhead: 0, ...options }, (...args) => {
      const event = sequenceEventOf(...args);
      events.push(event);
      if (!counting) {
        counting = true;
        const before = events.length - 1;
        queueMicrotask(() => {
          calls.push(events.length - before);
          counting = false;
          if (events.at(-1)!.type === "end") resolve({ events, calls });
        });
      }
    });
  });
}

/** Submits a generation and collects its events up to the end event. */
async function generateEvents(
  ctx: NativeContext,
  s: NativeSampler,
  tokens: number[],
  maxTokens: number,
): Promise<NativeSequenceEvent[]> {
  return (await generateEventCalls(ctx, s, tokens, { maxTokens })).events;
}

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
    name: "submit with a non-sampler",
    call: () => (context as any).submit({}, [1], {}, () => undefined),
    error: TypeError,
    message: /sampler must be a native Sampler/,
  },
  {
    name: "submit with a bad token",
    call: () => (context as any).submit(sampler, [-1], {}, () => undefined),
    error: RangeError,
    message: /tokens\[0\]/,
  },
  {
    name: "submit without a callback",
    call: () => (context as any).submit(sampler, [1], {}),
    error: TypeError,
    message: /onEvent must be a function/,
  },
  {
    name: "submit with a token group over the read-ahead",
    call: () => context.submit(sampler, [1], { readAhead: 4, groupTokens: 5 }, () => undefined),
    error: RangeError,
    message: /options\.groupTokens \(5\) must not exceed options\.readAhead \(4\)/,
  },
  {
    name: "submit with a token group of 0",
    call: () => context.submit(sampler, [1], { groupTokens: 0 }, () => undefined),
    error: RangeError,
    message: /groupTokens/,
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

test("a busy context refuses a second decode and a generation; a generation reports start, tokens, end", async () => {
  context.clear();
  const first = context.decode([1, 2, 3]);
  expect(() => context.decode([4])).toThrow(/busy/);
  expect(() => context.submit(sampler, [1], {}, () => undefined)).toThrow(/busy/);
  expect(await first).toBe(3);
  expect(Array.from(context.tokens())).toEqual([1, 2, 3]);
  const events = await generateEvents(context, sampler, [1, 2, 3, 4], 2);
  expect(events[0]).toEqual({ type: "start", sequence: 0, reused: 3, evaluated: 1, shifted: 0 });
  const tokens = events.filter((e) => e.type === "token");
  expect(tokens.length).toBeGreaterThanOrEqual(1);
  expect(typeof tokens[0]!.piece === "string" || Buffer.isBuffer(tokens[0]!.piece)).toBe(true);
  expect(events.at(-1)).toMatchObject({ type: "end" });
  expect(context.truncate(1)).toBe(true);
  expect(context.size).toBe(1);
});

test("a token's piece is text only where no unfinished character comes before it: the same text", async () => {
  context.clear();
  // Random weights over a real vocabulary: pieces of every kind, multi-byte characters split across tokens too.
  const events = await generateEvents(context, sampler, [1, 2, 3], 96);
  const pieces = events.flatMap((e) => (e.type === "token" ? [e.piece] : []));
  expect(pieces.some((p) => typeof p === "string")).toBe(true);
  expect(pieces.some((p) => typeof p !== "string" && p.some((b) => b >= 0x80))).toBe(true);
  const bytesOf = (p: string | Uint8Array) => (typeof p === "string" ? Buffer.from(p, "latin1") : p);
  pieces.forEach((p, i) => {
    if (typeof p !== "string") return;
    expect(/^[\x00-\x7f]*$/.test(p), `piece ${i}`).toBe(true);
    const before = i > 0 ? bytesOf(pieces[i - 1]!) : new Uint8Array(0);
    expect(before.length === 0 || before[before.length - 1]! < 0x80, `piece ${i}`).toBe(true);
  });
  // The reader's way (text as it is, bytes through a streaming decoder) gives the text of all the bytes at once.
  const decoder = new TextDecoder();
  const streamed = pieces.map((p) => (typeof p === "string" ? p : decoder.decode(p, { stream: true }))).join("");
  const whole = new TextDecoder().decode(Buffer.concat(pieces.map(bytesOf)));
  expect(streamed + decoder.decode()).toBe(whole);
});

test("after the first token, tokens come in groups of groupTokens, the rest with the end", async () => {
  context.clear();
  const single = await generateEventCalls(context, sampler, [1, 2, 3], { maxTokens: 11 });
  context.clear();
  const grouped = await generateEventCalls(context, sampler, [1, 2, 3], { maxTokens: 11, groupTokens: 4 });
  // Where the calls end, counted in events: the start (1), the first token (2), two groups of 4 (6, 10), the last
  // two tokens with the end (13). A main thread that wakes late takes several calls at once: never fewer ends.
  const ends = grouped.calls.map((_, i) => grouped.calls.slice(0, i + 1).reduce((a, b) => a + b, 0));
  expect(
    ends.every((end) => [1, 2, 6, 10, 13].includes(end)),
    `${grouped.calls}`,
  ).toBe(true);
  expect(ends.at(-1)).toBe(13);
  const strip = (events: NativeSequenceEvent[]) =>
    events.map((e) => (e.type === "token" ? { ...e, piece: Buffer.from(e.piece as string | Uint8Array) } : e));
  expect(strip(grouped.events)).toEqual(strip(single.events));
});

test("a sampler for another model is refused", async () => {
  const other = await native.Model.load(await ensureTestModel({ vocab: "llama-spm", seed: 2 }), {}).promise;
  const foreign = new native.Sampler(other, {});
  try {
    expect(() => context.submit(foreign, [1], {}, () => undefined)).toThrow(/different model/);
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
  const events = await generateEvents(c, s, [1, 2, 3], 1);
  expect(events.map((e) => e.type)).toEqual(["start", "token", "end"]);
  s.dispose();
  c.dispose();
  expect(() => c.decode([1])).toThrow(/disposed/);
  expect(() => s.reset()).toThrow(/disposed/);
  expect(() => m.tokenize("x")).toThrow(/disposed/);
  expect(() => native.Context.create(m, {})).toThrow(/disposed/);
});
