// Streaming: the same output fed in random chunk sizes (seeded) gives the same final message as
// parsing it whole, and the deltas concatenate to exactly that message. Parsing work grows
// linearly with the output (work counter, not timing: timings belong to bench:parse).
import { describe, expect, it } from "vitest";
import { ChatStreamParser, accumulateDeltas, generateChatParams, parseChatOutput, type ChatDelta, type ChatParams } from "../src/chat/index.js";
import { ChatTemplate } from "../src/template/index.js";
import { analyzeTemplate } from "../src/analysis/index.js";
import { SCENARIOS, TOOLS, USER, extraContext, generatedPart, toolTemplates } from "./helpers/chat-roundtrip.js";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { TEMPLATES_DIR } from "./helpers/analysis-oracle.js";

/** Deterministic pseudo-random numbers in [0, 1). */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 0x100000000;
  };
}

const ids = { generateCallId: (i: number) => `call${i}` };

function stream(params: ChatParams, output: string, seed: number, maxChunk: number): { deltas: ChatDelta[]; parser: ChatStreamParser } {
  const next = rng(seed);
  const parser = new ChatStreamParser(params, ids);
  const deltas: ChatDelta[] = [];
  for (let i = 0; i < output.length; ) {
    const k = 1 + Math.floor(next() * maxChunk);
    deltas.push(...parser.feed(output.slice(i, i + k)));
    i += k;
  }
  deltas.push(...parser.finish());
  return { deltas, parser };
}

const cases = toolTemplates().flatMap((t) =>
  SCENARIOS.filter((s) => !s.parallel || t.template.caps.supportsParallelToolCalls).map((s) => ({ label: `${t.name} | ${s.name}`, t, s })),
);

describe("chunked streaming gives the whole-output message (every template, conforming or not)", () => {
  it.each(cases)("$label", ({ t, s }) => {
    const params = generateChatParams(t.analysis, t.template, { messages: [USER], tools: TOOLS, enableThinking: s.enableThinking, extraContext: extraContext(t, s) });
    const g = generatedPart(t, s, params);
    if ("error" in g) throw new Error(g.error);
    const whole = parseChatOutput(params, g.output, ids);
    for (const [seed, maxChunk] of [
      [1, 1],
      [2, 3],
      [3, 8],
      [4, 24],
    ] as const) {
      const { deltas, parser } = stream(params, g.output, seed * 7919 + g.output.length, maxChunk);
      expect(parser.message(), `seed ${seed}`).toEqual(whole);
      expect(accumulateDeltas(deltas), `seed ${seed}`).toEqual(whole);
    }
  });
});

describe("streamed deltas", () => {
  const source = readFileSync(join(TEMPLATES_DIR, "Qwen-Qwen3-0.6B.jinja"), "utf8");
  const template = new ChatTemplate(source);
  const analysis = analyzeTemplate(source, { template });
  const params = generateChatParams(analysis, template, { messages: [USER], tools: TOOLS });

  it("a call's name comes first, then its argument fragments; reasoning and content as they arrive", () => {
    const p = new ChatStreamParser(params, ids);
    const seen: ChatDelta[][] = [];
    for (const piece of ["<think>\nHm", "m.\n</think>\n\nSure", ".\n<tool_call>\n{\"name\": \"get_w", "eather\", \"arguments\": {\"city\": \"Pa", "ris\"}}\n</tool_call>"]) {
      seen.push(p.feed(piece));
    }
    seen.push(p.finish());
    expect(seen[0]).toEqual([{ reasoning_content: "Hm" }]);
    expect(seen[1]).toEqual([{ reasoning_content: "m." }, { content: "Sure" }]);
    // The name is not complete yet: nothing for the call.
    expect(seen[2]).toEqual([{ content: "." }]);
    expect(seen[3]).toEqual([{ tool_calls: [{ index: 0, id: "call0", type: "function", function: { name: "get_weather", arguments: '{"city":"Pa' } }] }]);
    expect(seen[4]).toEqual([{ tool_calls: [{ index: 0, function: { arguments: 'ris"}' } }] }]);
    expect(seen[5]).toEqual([]);
  });

  it("feeding after finish is an error; empty chunks are fine", () => {
    const p = new ChatStreamParser(params, ids);
    expect(p.feed("")).toEqual([]);
    p.finish();
    expect(p.finish()).toEqual([]);
    expect(() => p.feed("x")).toThrow(RangeError);
    expect(() => p.feed(3 as unknown as string)).toThrow(TypeError);
  });
});

describe("parsing work grows linearly with the output", () => {
  const cases2 = [
    { name: "Qwen-Qwen3-0.6B.jinja", output: (body: string) => `<think>\nok\n</think>\n\n<tool_call>\n{"name": "record", "arguments": {"text": ${JSON.stringify(body)}}}\n</tool_call>` },
    { name: "Qwen3-Coder.jinja", output: (body: string) => `<tool_call>\n<function=record>\n<parameter=text>\n${body}\n</parameter>\n</function>\n</tool_call>` },
  ];
  it.each(cases2)("$name: 4-character chunks of a long string argument", ({ name, output }) => {
    const source = readFileSync(join(TEMPLATES_DIR, name), "utf8");
    const template = new ChatTemplate(source);
    const params = generateChatParams(analyzeTemplate(source, { template }), template, { messages: [USER], tools: TOOLS });
    const work = (n: number): number => {
      let body = "";
      for (let i = 0; body.length < n; i++) body += `line ${i}: "quoted" \\ ✓\n`;
      const text = output(body.slice(0, n));
      const p = new ChatStreamParser(params, ids);
      for (let i = 0; i < text.length; i += 4) p.feed(text.slice(i, i + 4));
      p.finish();
      expect(JSON.parse(p.message().tool_calls![0]!.function.arguments).text).toBe(body.slice(0, n).replace(/^\n|\n$/g, ""));
      return p.work;
    };
    const small = work(4000);
    const large = work(16000);
    // Quadratic re-parsing would make this about 16.
    expect(large / small).toBeLessThan(5);
  });
});
