// Streaming: the same output fed in random chunk sizes (seeded) gives the same final message as
// parsing it whole, and the deltas concatenate to exactly that message. Parsing work grows
// linearly with the output (work counter, not timing: timings belong to bench:parse).
import { describe, expect, it } from "vitest";
import {
  ChatStreamParser,
  accumulateDeltas,
  generateChatParams,
  parseChatOutput,
  type ChatDelta,
  type ChatParams,
  analyzeChatTemplate,
} from "../../src/chat/index.js";
import { MessageMapper } from "../../src/chat/mapper.js";
import { PegStreamParser, type PegTextSource } from "../../src/peg/index.js";
import { ChatTemplate } from "../../src/template/index.js";
import { SCENARIOS, TOOLS, USER, generatedPart, scenarioParams, toolTemplates } from "../helpers/chat-roundtrip.js";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { TEMPLATES_DIR } from "../helpers/analysis-oracle.js";
import { CALL_IDS, streamInChunks } from "../helpers/chunked-stream.js";

const ids = CALL_IDS;

const cases = toolTemplates().flatMap((t) =>
  SCENARIOS.filter((s) => !s.parallel || t.template.caps.supportsParallelToolCalls).map((s) => ({
    label: `${t.name} | ${s.name}`,
    t,
    s,
  })),
);

/** A scenario's request parameters, the output its template renders for it, and that output parsed whole. */
function scenarioOutput(t: (typeof cases)[number]["t"], s: (typeof cases)[number]["s"]) {
  const params = scenarioParams(t, s);
  const g = generatedPart(t, s, params);
  if ("error" in g) throw new Error(g.error);
  return { params, g, whole: parseChatOutput(params, g.output, ids) };
}

describe("chunked streaming gives the whole-output message (every template, conforming or not)", () => {
  it.each(cases)("$label", ({ t, s }) => {
    const { params, g, whole } = scenarioOutput(t, s);
    for (const [seed, maxChunk] of [
      [1, 1],
      [2, 3],
      [3, 8],
      [4, 24],
    ] as const) {
      const { deltas, parser } = streamInChunks(params, g.output, seed * 7919 + g.output.length, maxChunk);
      expect(parser.message(), `seed ${seed}`).toEqual(whole);
      expect(accumulateDeltas(deltas), `seed ${seed}`).toEqual(whole);
    }
  });
});

/** The request's parser with calls streamed from their name on (streamChat's `streamCalls`). */
function streamingCalls(params: ChatParams): ChatParams {
  return { ...params, parser: { ...params.parser, mapping: { ...params.parser.mapping, streamCalls: true } } };
}

describe("streamCalls: a finished call streams from its name on and ends as the whole call (every template)", () => {
  const withCalls = cases.filter(({ s }) => (s.message.tool_calls?.length ?? 0) > 0);
  it.each(withCalls)("$label", ({ t, s }) => {
    const { params, g, whole } = scenarioOutput(t, s);
    const { deltas, parser } = streamInChunks(streamingCalls(params), g.output, g.output.length, 1);
    expect(parser.message()).toEqual(whole);
    expect(accumulateDeltas(deltas)).toEqual(whole);
    if (params.parser.mapping.idAfterName) return; // the model's id comes after the name: the call waits for it
    // Each call's first delta names it before its arguments are whole; the rest follow in later deltas.
    const parts = deltas.flatMap((d) => d.tool_calls ?? []);
    for (const [index, call] of (whole.tool_calls ?? []).entries()) {
      const [first, ...rest] = parts.filter((c) => c.index === index);
      expect(first).toMatchObject({ index, id: call.id, type: "function", function: { name: call.function.name } });
      expect(call.function.arguments.startsWith(first!.function.arguments!)).toBe(true);
      expect(first!.function.arguments!.length).toBeLessThan(call.function.arguments.length);
      expect(rest.length).toBeGreaterThan(0);
    }
  });
});

describe("streamed deltas", () => {
  const source = readFileSync(join(TEMPLATES_DIR, "Qwen-Qwen3-0.6B.jinja"), "utf8");
  const template = new ChatTemplate(source);
  const analysis = analyzeChatTemplate(source, { template });
  const params = generateChatParams(analysis, template, { messages: [USER], tools: TOOLS });

  it("a call comes as one delta once the model finished it; reasoning and content as they arrive", () => {
    const p = new ChatStreamParser(params, ids);
    const seen: ChatDelta[][] = [];
    const shown: (string | undefined)[] = [];
    for (const piece of [
      "<think>\nHm",
      "m.\n</think>\n\nSure",
      '.\n<tool_call>\n{"name": "get_w',
      'eather", "arguments": {"city": "Pa',
      'ris"}}\n</tool_call>',
    ]) {
      seen.push(p.feed(piece));
      shown.push(p.message().tool_calls?.[0]?.function.arguments);
    }
    seen.push(p.finish());
    expect(seen[0]).toEqual([{ reasoning_content: "Hm" }]);
    expect(seen[1]).toEqual([{ reasoning_content: "m." }, { content: "Sure" }]);
    expect(seen[2]).toEqual([{ content: "." }]);
    // Not finished: no delta, but the message shows the call being written.
    expect(seen[3]).toEqual([]);
    expect(shown[3]).toBe('{"city":"Pa');
    expect(seen[4]).toEqual([
      {
        tool_calls: [
          { index: 0, id: "call0", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
        ],
      },
    ]);
    expect(seen[5]).toEqual([]);
  });

  it("streamCalls: the call goes out from its name on; one the output cuts stays a call, as written", () => {
    const p = new ChatStreamParser(streamingCalls(params), ids);
    const seen = [
      "<think>\nHm.\n</think>\n\n",
      '<tool_call>\n{"name": "get_w',
      'eather", "arguments": {"city": "Pa',
      'ris"}}\n</tool_call>',
    ].map((piece) => p.feed(piece));
    seen.push(p.finish());
    expect(seen[1]).toEqual([]);
    // The first delta of the call: its name, and the arguments written in the same chunk.
    expect(seen[2]).toEqual([
      {
        tool_calls: [
          { index: 0, id: "call0", type: "function", function: { name: "get_weather", arguments: '{"city":"Pa' } },
        ],
      },
    ]);
    expect(seen[3]).toEqual([{ tool_calls: [{ index: 0, function: { arguments: 'ris"}' } }] }]);
    expect(accumulateDeltas(seen.flat())).toEqual(p.message());
    expect(p.message().tool_calls?.[0]?.function.arguments).toBe('{"city":"Paris"}');

    const cut = new ChatStreamParser(streamingCalls(params), ids);
    const out = [...cut.feed('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Pa'), ...cut.finish()];
    expect(cut.message()).toEqual({
      role: "assistant",
      content: null,
      tool_calls: [{ id: "call0", type: "function", function: { name: "get_weather", arguments: '{"city":"Pa' } }],
    });
    expect(accumulateDeltas(out)).toEqual(cut.message());
    expect(cut.cutCall).toBe(true);
  });

  it("streamCallsFrom: calls from a lazy grammar's start on stream as written; those before it come whole", () => {
    const p = new ChatStreamParser(params, ids);
    const first = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\n';
    const deltas: ChatDelta[][] = [];
    for (const piece of [first.slice(0, 30), first.slice(30)]) deltas.push(p.feed(piece));
    // The grammar takes over where the second call starts.
    p.streamCallsFrom(p.fed);
    for (const piece of ['<tool_call>\n{"name": "record", "arg', 'uments": {"text": "a', 'b"}}\n</tool_call>'])
      deltas.push(p.feed(piece));
    deltas.push(p.finish());
    expect(deltas[0]).toEqual([]);
    expect(deltas[1]).toEqual([
      {
        tool_calls: [
          { index: 0, id: "call0", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
        ],
      },
    ]);
    expect(deltas[2]).toEqual([
      { tool_calls: [{ index: 1, id: "call1", type: "function", function: { name: "record", arguments: "" } }] },
    ]);
    expect(deltas[3]).toEqual([{ tool_calls: [{ index: 1, function: { arguments: '{"text":"a' } }] }]);
    expect(deltas[4]).toEqual([{ tool_calls: [{ index: 1, function: { arguments: 'b"}' } }] }]);
    expect(accumulateDeltas(deltas.flat())).toEqual(p.message());
    expect(p.cutCall).toBe(false);
    expect(() => p.streamCallsFrom(-1)).toThrow(RangeError);
  });

  it("parallel calls: each comes as one delta with index, id, type, name and arguments, in order", () => {
    const p = new ChatStreamParser(params, ids);
    const text =
      '<tool_call>\n{"name": "get_weather", "arguments": {"city": ' +
      '"Paris"}}\n</tool_call>\n<tool_call>\n{"name": "record", "arguments": {"text": ' +
      '"a\\nb", "count": 2}}\n</tool_call>';
    const deltas: ChatDelta[] = [];
    for (let i = 0; i < text.length; i += 2) deltas.push(...p.feed(text.slice(i, i + 2)));
    deltas.push(...p.finish());
    const parts = deltas.flatMap((d) => {
      expect(Object.keys(d)).toEqual(["tool_calls"]);
      return d.tool_calls!;
    });
    expect(parts.map((c) => [c.index, c.id, c.type, c.function.name])).toEqual([
      [0, "call0", "function", "get_weather"],
      [1, "call1", "function", "record"],
    ]);
    expect(parts.map((c) => JSON.parse(c.function.arguments!))).toEqual([
      { city: "Paris" },
      { text: "a\nb", count: 2 },
    ]);
    expect(accumulateDeltas(deltas)).toEqual(p.message());
  });

  it("a prefix of the call marker is held back, then released as content when it is not one", () => {
    const p = new ChatStreamParser(params, ids);
    expect(p.feed("Use <tool")).toEqual([{ content: "Use" }]);
    expect(p.feed("_ca")).toEqual([]);
    expect(p.feed("ller> here.")).toEqual([{ content: " <tool_caller> here." }]);
    expect(p.finish()).toEqual([]);
    expect(p.message()).toEqual({ role: "assistant", content: "Use <tool_caller> here." });
  });

  it("tagged arguments (Qwen3-Coder): string values escaped into JSON as they arrive", () => {
    const source2 = readFileSync(join(TEMPLATES_DIR, "Qwen3-Coder.jinja"), "utf8");
    const template2 = new ChatTemplate(source2);
    const params2 = generateChatParams(analyzeChatTemplate(source2, { template: template2 }), template2, {
      messages: [USER],
      tools: TOOLS,
    });
    const p = new ChatStreamParser(params2, ids);
    const seen = [
      "<tool_call>\n<function=rec",
      'ord>\n<parameter=text>\nsay "hi',
      '"\n</parameter>\n<parameter=count>\n4',
      "2\n</parameter>\n</function>\n</tool_call>",
    ].map((c) => {
      const out = p.feed(c);
      return { out, args: p.message().tool_calls?.[0]?.function.arguments };
    });
    const last = p.finish();
    expect(seen.slice(0, 3).map((x) => x.out)).toEqual([[], [], []]);
    // While it streams the message shows the arguments so far, strings escaped into JSON.
    expect(seen[1]!.args).toBe('{"text":"say \\"hi');
    expect(seen[2]!.args).toBe('{"text":"say \\"hi\\"","count":');
    expect(accumulateDeltas([...seen.flatMap((x) => x.out), ...last])).toEqual(p.message());
    expect(JSON.parse(p.message().tool_calls![0]!.function.arguments)).toEqual({ text: 'say "hi"', count: 42 });
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
    {
      name: "Qwen-Qwen3-0.6B.jinja",
      output: (body: string) =>
        `<think>\nok\n</think>\n\n<tool_call>\n{"name": "record", "arguments": {"text": ` +
        `${JSON.stringify(body)}}}\n</tool_call>`,
    },
    {
      name: "Qwen3-Coder.jinja",
      output: (body: string) =>
        `<tool_call>\n<function=record>\n<parameter=text>\n${body}\n</parameter>\n</function>\n</tool_call>`,
    },
  ];
  it.each(cases2)("$name: 4-character chunks of a long string argument", ({ name, output }) => {
    const source = readFileSync(join(TEMPLATES_DIR, name), "utf8");
    const template = new ChatTemplate(source);
    const params = generateChatParams(analyzeChatTemplate(source, { template }), template, {
      messages: [USER],
      tools: TOOLS,
    });
    const work = (n: number): number => {
      let body = "";
      for (let i = 0; body.length < n; i++) body += `line ${i}: "quoted" \\ ✓\n`;
      const text = output(body.slice(0, n));
      const p = new ChatStreamParser(params, ids);
      for (let i = 0; i < text.length; i += 4) p.feed(text.slice(i, i + 4));
      p.finish();
      expect(JSON.parse(p.message().tool_calls![0]!.function.arguments).text).toBe(
        body.slice(0, n).replace(/^\n|\n$/g, ""),
      );
      return p.work;
    };
    const small = work(4000);
    const large = work(16000);
    // Quadratic re-parsing would make this about 16.
    expect(large / small).toBeLessThan(5);
  });
});

describe("streaming work stays linear with many calls and many nested items", () => {
  const NS = "]<]minimax[>[";
  const cases3 = [
    {
      label: "Qwen3: n parallel calls",
      name: "Qwen-Qwen3-0.6B.jinja",
      output: (n: number) =>
        Array.from(
          { length: n },
          (_, i) => `<tool_call>\n{"name": "get_weather", "arguments": {"city": "P${i}"}}\n</tool_call>\n`,
        ).join(""),
      check: (calls: number, n: number) => expect(calls).toBe(n),
    },
    {
      label: "GLM 4.7: text with n braces that open no call, then a JSON call without the format's markers",
      name: "GLM-4.7-Flash.jinja",
      output: (n: number) =>
        `</think>${Array.from({ length: n }, (_, i) => `set {x${i}} = {"y": ${i}}; `).join("")}\n` +
        '{"name": "get_weather", "arguments": {"city": "Paris"}}',
      check: (calls: number) => expect(calls).toBe(1),
    },
    {
      label: "MiniMax M3: an array argument of n nested items",
      name: "MiniMax-M3.jinja",
      output: (n: number) =>
        `</mm:think>${NS}<tool_call>\n${NS}<invoke name="record">${NS}<text>a${NS}</text>${NS}<items>` +
        Array.from({ length: n }, (_, i) => `${NS}<item>${i}${NS}</item>`).join("") +
        `${NS}</items>${NS}</invoke>\n${NS}</tool_call>`,
      check: (calls: number) => expect(calls).toBe(1),
    },
  ];
  it.each(cases3)("$label", ({ name, output, check }) => {
    const source = readFileSync(join(TEMPLATES_DIR, name), "utf8");
    const template = new ChatTemplate(source);
    const params = generateChatParams(analyzeChatTemplate(source, { template }), template, {
      messages: [USER],
      tools: TOOLS,
    });
    const perChar = (n: number): number => {
      const text = output(n);
      const p = new ChatStreamParser(params, ids);
      for (let i = 0; i < text.length; i += 4) p.feed(text.slice(i, i + 4));
      p.finish();
      check(p.message().tool_calls?.length ?? 0, n);
      return p.work / text.length;
    };
    const small = perChar(100);
    const large = perChar(2000);
    // Copying the finished siblings into every snapshot would make this about 20 times larger.
    expect(large).toBeLessThan(small * 1.5);
  });
});

describe("the mapper reads each piece of text a bounded number of times", () => {
  /** A text source that counts the characters sliced out of it. */
  class CountingSource implements PegTextSource {
    read = 0;
    constructor(private readonly inner: PegTextSource) {}
    get length(): number {
      return this.inner.length;
    }
    slice(start: number, end?: number): string {
      const s = this.inner.slice(start, end);
      this.read += s.length;
      return s;
    }
  }
  const outputs = [
    {
      name: "Qwen-Qwen3-0.6B.jinja",
      output: (b: string) =>
        `<think>\n${b}\n</think>\n\n${b}\n<tool_call>\n{"name": "record", "arguments": {"text": ` +
        `${JSON.stringify(b)}}}\n</tool_call>`,
    },
    {
      name: "Qwen3-Coder.jinja",
      output: (b: string) =>
        `${b}\n<tool_call>\n<function=record>\n<parameter=text>\n${b}\n</parameter>\n</function>\n</tool_call>`,
    },
  ];
  it.each(outputs)("$name", ({ name, output }) => {
    const source = readFileSync(join(TEMPLATES_DIR, name), "utf8");
    const template = new ChatTemplate(source);
    const params = generateChatParams(analyzeChatTemplate(source, { template }), template, {
      messages: [USER],
      tools: TOOLS,
    });
    const { arena, root, mapping, prefix } = params.parser;
    let body = "";
    for (let i = 0; body.length < 20_000; i++) body += `line ${i}: "q" \\ ✓\n`;
    body = body.trimEnd();
    const text = prefix + output(body);
    const engine = new PegStreamParser(arena, root);
    const mapper = new MessageMapper(mapping, (i) => `call${i}`, prefix.length);
    let read = 0;
    const step = (r: ReturnType<PegStreamParser["feed"]>): void => {
      const counted = new CountingSource(r.source);
      expect(mapper.apply(r.nodeList, counted)).toBe(true);
      read += counted.read;
    };
    for (let i = 0; i < text.length; i += 4) step(engine.feed(text.slice(i, i + 4)));
    step(engine.finish());
    mapper.finish();
    expect(JSON.parse(mapper.message().tool_calls![0]!.function.arguments).text).toBe(body);
    // Each captured character is read once as it streams (names and ids once, when they close);
    // re-reading the open capture or whole calls on every chunk would be far above this.
    expect(read).toBeLessThanOrEqual(text.length);
  });
});
