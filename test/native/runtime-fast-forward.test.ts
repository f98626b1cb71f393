/**
 * Fast-forward of forced tokens (native/fast_forward.h): where the grammar admits one continuation
 * only, its tokens are appended without sampling and decoded in one batch. At temperature 0 the
 * output is the one sampling each token gives, with forced tokens counted and fewer forward passes;
 * `fastForward: false` turns it off; maxTokens and stop strings still cut inside a forced run.
 * Tiny random-weight models on two vocabularies (SentencePiece, which puts a space before raw text,
 * and byte-level BPE).
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type Context, type GenerationStats, loadModel, type Model } from "../../src/index.js";
import { ensureTestModel } from "../helpers/test-models.js";

const CONTEXT = { contextSize: 1024, threads: 1 } as const;

const CALL_GBNF = String.raw`
root ::= "<tool_call>\n{\"name\": \"get_forecast\", \"arguments\": " args "}\n</tool_call>"
args ::= "{\"unit\": " unit ", \"days\": " days "}"
unit ::= "\"celsius\"" | "\"fahrenheit\""
days ::= [1-3]
`;
const CALL_SHAPE = new RegExp(
  String.raw`^<tool_call>\n\{"name": "get_forecast", "arguments": ` +
    String.raw`\{"unit": "(celsius|fahrenheit)", "days": [1-3]\}\}\n</tool_call>$`,
);
const SCHEMA_GBNF = String.raw`
root ::= "{" ws "\"city\":" ws "\"" [a-z]{1,4} "\"," ws "\"temperature_in_celsius\":" ws [0-9]{1,2} ws "}"
ws ::= [ ]?
`;

const SCHEMA_SHAPE = /^\{ ?"city": ?"[a-z]{1,4}", ?"temperature_in_celsius": ?[0-9]{1,2} ?\}$/;

interface Run {
  text: string;
  tokens: number[];
  stats: GenerationStats;
  stopReason: string | undefined;
}

interface RunOptions {
  prompt?: string;
  fastForward?: boolean | "checked";
  maxTokens?: number;
  stop?: string[];
  sampling?: { temperature: number; seed?: number };
}

async function run(context: Context, gbnf: string, options: RunOptions) {
  const generation = context.generate({
    prompt: options.prompt ?? "Call the tool:",
    maxTokens: options.maxTokens ?? 200,
    stop: options.stop ?? [],
    grammar: { gbnf },
    sampling: {
      ...(options.sampling ?? { temperature: 0 }),
      ...(options.fastForward === undefined ? {} : { fastForward: options.fastForward }),
    },
  });
  const tokens: number[] = [];
  let text = "";
  for await (const chunk of generation) {
    tokens.push(chunk.token);
    text += chunk.text;
  }
  return { text, tokens, stats: { ...generation.stats }, stopReason: generation.stopReason } satisfies Run;
}

describe.each(["llama-spm", "qwen2"])("%s", (vocab) => {
  let model: Model;
  let context: Context;
  beforeAll(async () => {
    model = await loadModel(await ensureTestModel({ vocab }));
    context = await model.createContext(CONTEXT);
  });
  afterAll(() => model?.dispose());

  // Random weights rarely write text the way the tokenizer splits it (they pick `{` then `"na` where the
  // tokenizer has `{"` and `name`), so the free parts after a forced run may differ from decoding
  // each token: the outputs are compared where the grammar decides them, and both must be valid.
  test.each([
    ["a forced tool call", CALL_GBNF, CALL_SHAPE],
    ["a JSON schema response", SCHEMA_GBNF, SCHEMA_SHAPE],
  ])("%s: valid with and without fast-forward, forced tokens in fewer forward passes", async (_name, gbnf, shape) => {
    const off = await run(context, gbnf, { fastForward: false });
    const on = await run(context, gbnf, { fastForward: true });
    for (const r of [on, off]) {
      expect(r.stopReason).toBe("eog");
      expect(r.text).toMatch(shape);
    }
    expect(off.stats.forcedTokens).toBe(0);
    expect(off.stats.forwardPasses).toBeGreaterThanOrEqual(off.stats.tokensGenerated);
    expect(on.stats.forcedTokens).toBeGreaterThan(0);
    expect(on.stats.forcedTokens).toBeLessThan(on.stats.tokensGenerated);
    expect(on.stats.forwardPasses).toBeLessThan(on.stats.tokensGenerated);
    // Deterministic: the same forced runs again.
    expect((await run(context, gbnf, { fastForward: true })).tokens).toEqual(on.tokens);
  });

  test("a grammar with one output: the same text, nearly all of it forced", async () => {
    const gbnf = String.raw`root ::= "<tool_call>\n{\"name\": \"get_forecast\", \"arguments\": {}}\n</tool_call>"`;
    const off = await run(context, gbnf, { fastForward: false });
    const on = await run(context, gbnf, { fastForward: true });
    expect(on.text).toBe(off.text);
    expect(on.stats.forwardPasses).toBeLessThan(off.stats.forwardPasses);
    expect(on.stats.forcedTokens).toBeGreaterThan(on.stats.tokensGenerated / 2);
  });

  test("the default is checked: the tokens of sampling each one, some of them forced", async () => {
    const gbnf = String.raw`root ::= "<tool_call>\n{\"name\": \"get_forecast\", \"arguments\": {}}\n</tool_call>"`;
    const off = await run(context, gbnf, { fastForward: false });
    const byDefault = await run(context, gbnf, {});
    expect(byDefault.tokens).toEqual(off.tokens);
    expect(byDefault.stats.forcedTokens).toBeGreaterThan(0);
    expect(byDefault.stats.forwardPasses).toBeLessThan(off.stats.forwardPasses);
  });

  // Checked: each forced token is kept only where the model's own pick agrees, so the output is that of
  // sampling each token (the same random draws too), in fewer passes where the model agrees.
  test.each([
    ["a forced tool call at temperature 0", CALL_GBNF, { temperature: 0 }],
    ["a JSON schema response at temperature 0", SCHEMA_GBNF, { temperature: 0 }],
    ["a forced tool call, sampled", CALL_GBNF, { temperature: 1, seed: 3 }],
  ])("checked, %s: the tokens of sampling each one", async (_name, gbnf, sampling) => {
    const off = await run(context, gbnf, { fastForward: false, sampling });
    const checked = await run(context, gbnf, { fastForward: "checked", sampling });
    expect(checked.tokens).toEqual(off.tokens);
    expect(checked.text).toBe(off.text);
    expect(checked.stats.forwardPasses).toBeLessThanOrEqual(off.stats.forwardPasses);
    expect(checked.stats.forwardPasses).toBe(off.stats.forwardPasses - checked.stats.forcedTokens);
  });

  test("checked, a grammar with one output: most of it decoded in one pass", async () => {
    const gbnf = String.raw`root ::= "<tool_call>\n{\"name\": \"get_forecast\", \"arguments\": {}}\n</tool_call>"`;
    const off = await run(context, gbnf, { fastForward: false });
    const checked = await run(context, gbnf, { fastForward: "checked" });
    expect(checked.tokens).toEqual(off.tokens);
    expect(checked.stats.forcedTokens).toBeGreaterThan(0);
  });

  // Random weights rarely write forced text the tokenizer's way, so most checked runs lose tokens to the
  // model's own pick: decoded for nothing. Those are a debt that kept tokens pay back, and while in debt
  // checked runs pause, so the waste stays a small share of the tokens (without the pause, most of them).
  test("checked, a model that writes the forced text its own way: few forced tokens decoded for nothing", async () => {
    const text = "The forecast for the next three days: sunny, then clouds, then rain in the evening. ".repeat(2);
    const gbnf = `root ::= ${JSON.stringify(text)}`;
    const off = await run(context, gbnf, { fastForward: false });
    const checked = await run(context, gbnf, { fastForward: "checked" });
    expect(checked.tokens).toEqual(off.tokens);
    expect(checked.text).toBe(text);
    expect(checked.stats.droppedForcedTokens).toBeGreaterThan(0);
    expect(checked.stats.droppedForcedTokens).toBeLessThanOrEqual(checked.stats.tokensGenerated / 4);
    expect(off.stats.droppedForcedTokens).toBe(0);
  });

  test("checked: maxTokens cuts inside a forced run", async () => {
    const full = await run(context, CALL_GBNF, { fastForward: false });
    for (const maxTokens of [1, 2, 3, 5, 8]) {
      const cut = await run(context, CALL_GBNF, { maxTokens, fastForward: "checked" });
      expect(cut.stopReason).toBe("maxTokens");
      expect(cut.tokens).toEqual(full.tokens.slice(0, maxTokens));
    }
  });

  test("maxTokens counts forced tokens and cuts inside a forced run", async () => {
    const full = await run(context, CALL_GBNF, { fastForward: true });
    for (const maxTokens of [1, 2, 3, 5, 8]) {
      const cut = await run(context, CALL_GBNF, { maxTokens, fastForward: true });
      expect(cut.stopReason).toBe("maxTokens");
      expect(cut.stats.tokensGenerated).toBe(maxTokens);
      expect(cut.tokens).toEqual(full.tokens.slice(0, maxTokens));
    }
  });

  test("a lazy grammar forces nothing before its trigger", async () => {
    const generation = context.generate({
      prompt: "Call the tool:",
      maxTokens: 24,
      grammar: { gbnf: CALL_GBNF, lazy: { patterns: ["[\\s\\S]*?(TRIGGER_NEVER_WRITTEN)"] } },
      sampling: { temperature: 0 },
    });
    for await (const _ of generation);
    expect(generation.stats.tokensGenerated).toBeGreaterThan(0);
    expect(generation.stats.forcedTokens).toBe(0);
  });

  test("a stop string inside the forced text ends the output there", async () => {
    const cut = await run(context, CALL_GBNF, { stop: ['"arguments"'], fastForward: true });
    expect(cut.stopReason).toBe("stop");
    expect(cut.text).toBe('<tool_call>\n{"name": "get_forecast", ');
    // The context goes on after a cut request: the next run is whole again.
    const again = await run(context, CALL_GBNF, { fastForward: true });
    expect(again.stopReason).toBe("eog");
  });
});

// Past 512 cached cells llama.cpp's CPU flash attention takes another kernel for a lone token than for a run of
// several, and llamafile's tiled matmul takes runs of two or more columns (here the attention without flash
// attention) where a lone token gets ggml's dot product: each flips near ties of random weights. Runs of generated
// tokens decode with ggml's reference attention and without the tiled matmul (native/reference_kernels.h,
// native/reference_sgemm.cc), so checked runs stay exact with flash attention on or off.
describe.each(["llama-spm", "qwen2"])("%s, a long prompt", (vocab) => {
  let model: Model;
  beforeAll(async () => {
    model = await loadModel(await ensureTestModel({ vocab }));
  });
  afterAll(() => model?.dispose());

  test.each([
    ["a forced tool call", true],
    ["a forced tool call", false],
    ["a JSON schema response", true],
    ["a JSON schema response", false],
  ] as const)(
    "checked, a prompt past 512 tokens, %s, flash attention %s: the tokens of sampling each one",
    async (name, flashAttention) => {
      const gbnf = name === "a forced tool call" ? CALL_GBNF : SCHEMA_GBNF;
      const words = Array.from({ length: 150 }, (_, i) => `w${(i * 7919) % 1000}`).join(" ");
      const prompt = `${words} Call the tool:`;
      await using long = await model.createContext({ contextSize: 1024, threads: 2, poll: 0, flashAttention });
      // Both runs compared start from the prompt this one caches. A cached prompt's last token is decoded again
      // alone, which is not bit for bit its prompt batch (llama-server's cache_prompt documents the same).
      await run(long, gbnf, { prompt, fastForward: false, maxTokens: 1 });
      const off = await run(long, gbnf, { prompt, fastForward: false });
      const checked = await run(long, gbnf, { prompt, fastForward: "checked" });
      expect(off.stats.promptTokens).toBeGreaterThan(512);
      expect(checked.tokens).toEqual(off.tokens);
      expect(checked.stats.forcedTokens).toBeGreaterThan(0);
    },
  );
});
