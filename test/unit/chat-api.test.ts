// generateChatParams: argument checks, tool_choice (auto / required / none / named), parallel
// calls, response_format, lazy triggers (compared with llama.cpp's), forced-open reasoning,
// call ids, and the dedicated handlers.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { TemplateAnalysis } from "../../src/analysis/index.js";
import {
  analyzeChatTemplate,
  ChatStreamParser,
  accumulateDeltas,
  generateChatParams,
  parseChatOutput,
  type ChatParams,
  type ChatRequest,
} from "../../src/chat/index.js";
import { prepareMessages } from "../../src/chat/messages.js";
import { randomCallId } from "../../src/chat/call-id.js";
import { matchGbnf } from "../../src/grammar/gbnf-match.js";
import { ChatTemplate } from "../../src/template/index.js";
import { TEMPLATES_DIR, loadOracleTable } from "../helpers/analysis-oracle.js";
import { TOOLS, USER, toolTemplates } from "../helpers/chat-roundtrip.js";

const loaded = new Map<string, { template: ChatTemplate; analysis: TemplateAnalysis }>();
function load(name: string): { template: ChatTemplate; analysis: TemplateAnalysis } {
  let l = loaded.get(name);
  if (!l) {
    const source = readFileSync(join(TEMPLATES_DIR, name), "utf8");
    const template = new ChatTemplate(source);
    l = { template, analysis: analyzeChatTemplate(source, { template }) };
    loaded.set(name, l);
  }
  return l;
}
function params(name: string, request: Partial<ChatRequest> = {}): ChatParams {
  const { template, analysis } = load(name);
  return generateChatParams(analysis, template, { messages: [USER], tools: TOOLS, ...request });
}
const ids = { generateCallId: (i: number) => `id${i}` };
const QWEN = "Qwen-Qwen3-0.6B.jinja";
const weather = (city: string) =>
  `<tool_call>\n{"name": "get_weather", "arguments": {"city": "${city}"}}\n</tool_call>`;

describe("argument checks", () => {
  const { template, analysis } = load(QWEN);
  it.each([
    [
      "analysis",
      () => generateChatParams(null as unknown as TemplateAnalysis, template, { messages: [] }),
      TypeError,
      /analysis/,
    ],
    ["template", () => generateChatParams(analysis, {} as ChatTemplate, { messages: [] }), TypeError, /template/],
    ["request", () => generateChatParams(analysis, template, null as unknown as ChatRequest), TypeError, /request/],
    [
      "messages",
      () => generateChatParams(analysis, template, { messages: "hi" } as unknown as ChatRequest),
      TypeError,
      /request\.messages/,
    ],
    [
      "tools",
      () => generateChatParams(analysis, template, { messages: [USER], tools: {} } as unknown as ChatRequest),
      TypeError,
      /request\.tools/,
    ],
    [
      "tool name",
      () =>
        generateChatParams(analysis, template, {
          messages: [USER],
          tools: [{ type: "function", function: { name: "" } }],
        }),
      TypeError,
      /name/,
    ],
    [
      "duplicate tool",
      () => generateChatParams(analysis, template, { messages: [USER], tools: [TOOLS[0]!, TOOLS[0]!] }),
      RangeError,
      /two functions/,
    ],
    [
      "toolChoice",
      () =>
        generateChatParams(analysis, template, {
          messages: [USER],
          tools: TOOLS,
          toolChoice: "sometimes",
        } as unknown as ChatRequest),
      TypeError,
      /toolChoice/,
    ],
    [
      "unknown named tool",
      () =>
        generateChatParams(analysis, template, {
          messages: [USER],
          tools: TOOLS,
          toolChoice: { type: "function", function: { name: "nope" } },
        }),
      RangeError,
      /nope/,
    ],
    [
      "required without tools",
      () => generateChatParams(analysis, template, { messages: [USER], toolChoice: "required" }),
      RangeError,
      /requires a call/,
    ],
    [
      "parallelToolCalls",
      () =>
        generateChatParams(analysis, template, {
          messages: [USER],
          parallelToolCalls: "yes",
        } as unknown as ChatRequest),
      TypeError,
      /parallelToolCalls/,
    ],
    [
      "responseFormat",
      () =>
        generateChatParams(analysis, template, {
          messages: [USER],
          responseFormat: { type: "xml" },
        } as unknown as ChatRequest),
      RangeError,
      /responseFormat\.type/,
    ],
    [
      "json_schema",
      () =>
        generateChatParams(analysis, template, {
          messages: [USER],
          responseFormat: { type: "json_schema" },
        } as unknown as ChatRequest),
      TypeError,
      /json_schema\.schema/,
    ],
  ] as const)("%s", (_, call, type, message) => {
    expect(call).toThrow(type);
    expect(call).toThrow(message);
  });

  it("parsers check their inputs", () => {
    const p = params(QWEN);
    expect(() => new ChatStreamParser({} as ChatParams)).toThrow(TypeError);
    expect(() => new ChatStreamParser(p, { generateCallId: 1 as unknown as () => string })).toThrow(/generateCallId/);
    expect(() => parseChatOutput(p, null as unknown as string)).toThrow(TypeError);
  });
});

describe("tool_choice and grammar modes", () => {
  it("no tools: no grammar, everything is content (reasoning apart)", () => {
    const p = params(QWEN, { tools: [] });
    expect(p.grammar).toBeNull();
    expect(parseChatOutput(p, "<think>\nhm\n</think>\n\n" + weather("X"))).toEqual({
      role: "assistant",
      content: weather("X"),
      reasoning_content: "hm",
    });
  });

  it("none: tools are rendered in the prompt but calls are not parsed or constrained", () => {
    const p = params(QWEN, { toolChoice: "none" });
    expect(p.prompt).toContain("get_weather");
    expect(p.grammar).toBeNull();
    expect(parseChatOutput(p, weather("X")).tool_calls).toBeUndefined();
  });

  it("auto: a lazy grammar started by the section marker; content before calls is free", () => {
    const p = params(QWEN);
    expect(p.grammarLazy).toBe(true);
    expect(p.grammarTriggers).toEqual([{ type: "word", value: "<tool_call>" }]);
    expect(matchGbnf(p.grammar!, weather("Paris")).ok).toBe(true);
    expect(parseChatOutput(p, "Let me check.\n" + weather("Paris"), ids)).toEqual({
      role: "assistant",
      content: "Let me check.",
      tool_calls: [{ id: "id0", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }],
    });
  });

  it("required: a strict grammar that needs a call", () => {
    const p = params(QWEN, { toolChoice: "required" });
    expect(p.grammarLazy).toBe(false);
    expect(matchGbnf(p.grammar!, weather("Paris")).ok).toBe(true);
    expect(matchGbnf(p.grammar!, "Sure, it is sunny.").ok).toBe(false);
  });

  it("named: only that function", () => {
    const p = params(QWEN, { toolChoice: { type: "function", function: { name: "record" } } });
    expect(matchGbnf(p.grammar!, weather("Paris")).ok).toBe(false);
    expect(matchGbnf(p.grammar!, '<tool_call>\n{"name": "record", "arguments": {"text": "x"}}\n</tool_call>').ok).toBe(
      true,
    );
    expect(parseChatOutput(p, weather("Paris")).tool_calls).toBeUndefined();
  });

  it("the grammar follows the arguments schema", () => {
    const p = params(QWEN, { toolChoice: "required" });
    expect(
      matchGbnf(p.grammar!, '<tool_call>\n{"name": "get_weather", "arguments": {"city": 3}}\n</tool_call>').ok,
    ).toBe(false);
    expect(
      matchGbnf(
        p.grammar!,
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo", "days": 2}}\n</tool_call>',
      ).ok,
    ).toBe(true);
  });

  it("parallel calls: several by default, one when parallelToolCalls is false", () => {
    const two = weather("A") + "\n" + weather("B");
    const parallel = params(QWEN, { toolChoice: "required" });
    expect(matchGbnf(parallel.grammar!, two).ok).toBe(true);
    expect(parseChatOutput(parallel, two).tool_calls).toHaveLength(2);
    const single = params(QWEN, { toolChoice: "required", parallelToolCalls: false });
    expect(matchGbnf(single.grammar!, two).ok).toBe(false);
    const msg = parseChatOutput(single, two);
    expect(msg.tool_calls).toHaveLength(1);
    expect(msg.content).toBe(weather("B"));
  });
});

describe("tools as templates get them", () => {
  const bare = { type: "function" as const, function: { name: "lookup", parameters: { type: "object" } } };
  it("a tool without a description renders where the template writes `description | tojson`", () => {
    const { template } = load("muse-glimmer.jinja");
    expect(() => template.render({ messages: [USER], tools: [bare], addGenerationPrompt: true })).toThrow(/Undefined/);
    const { prompt } = params("muse-glimmer.jinja", { tools: [bare] });
    expect(prompt).toContain('{"name": "lookup", "description": ""');
  });
  it("a description the request gives is rendered as given", () => {
    const described = { ...bare, function: { ...bare.function, description: "Looks it up." } };
    expect(params("muse-glimmer.jinja", { tools: [described] }).prompt).toContain('"description": "Looks it up."');
  });
});

describe("forced-open reasoning", () => {
  const NEMOTRON = "NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.jinja";
  it("the prompt ends inside reasoning: the output starts as reasoning, a strict grammar waits for its end", () => {
    const p = params(NEMOTRON, { toolChoice: "required", enableThinking: true });
    expect(p.generationPrompt.endsWith("<think>\n")).toBe(true);
    expect(p.thinkingForcedOpen).toBe(true);
    expect(p.reasoningEnd).toBe("</think>");
    expect(p.grammarLazy).toBe(true);
    expect(p.grammarTriggers).toEqual([{ type: "word", value: "</think>" }]);
    const call =
      "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>";
    const output = `Anything { goes "here.\n</think>\n${call}`;
    const msg = parseChatOutput(p, output, ids);
    expect(msg.reasoning_content).toBe('Anything { goes "here.');
    expect(msg.tool_calls?.[0]?.function).toEqual({ name: "get_weather", arguments: '{"city":"Paris"}' });
    expect(matchGbnf(p.grammar!, output.slice(output.indexOf("</think>"))).ok).toBe(true);
  });

  it("a prompt that closes reasoning (thinking off) leaves the output to content", () => {
    const p = params(QWEN, { enableThinking: false, tools: [] });
    expect(p.thinkingForcedOpen).toBe(false);
    expect(parseChatOutput(p, "Just the answer.")).toEqual({ role: "assistant", content: "Just the answer." });
  });
});

/**
 * Where the oracle's triggers (recorded from llama.cpp's generic generator) are not what its
 * dedicated handler for the template uses, which toolwright follows.
 */
const DEDICATED_TRIGGERS: Record<string, string[]> = {
  // The generic analysis only finds "<|sep|>"; the dedicated handler triggers on the tools block.
  "Kimi-K3.jinja": ["<|open|>tools<|sep|>"],
  // The generic analysis splits the namespace token; the dedicated handler triggers on the whole opener.
  "MiniMax-M3.jinja": ["]<]minimax[>[<tool_call>"],
  // A call starts at its recipient header (any recipient but self and user), before <atem:function_calls>.
  "muse-glimmer.jinja": [
    "(?:^|<\\|start\\|>assistant)( to=(?!self<\\|message\\|>)(?!user<\\|message\\|>)[^<]*<\\|message\\|>)",
  ],
};

describe("lazy triggers agree with llama.cpp's (trimmed), and exist where llama.cpp has none", () => {
  const table = loadOracleTable();
  const rows = toolTemplates()
    .map((t) => ({
      label: t.name,
      t,
      theirs:
        DEDICATED_TRIGGERS[t.name] ??
        (table.templates[t.name]?.generator?.grammar_triggers ?? []).map((x) => x.value.trim()),
    }))
    .filter((r) => r.theirs.length > 0);
  it("covers most tool templates", () => expect(rows.length).toBeGreaterThanOrEqual(45));
  it.each(rows)("$label", ({ t, theirs }) => {
    const p = generateChatParams(t.analysis, t.template, { messages: [USER], tools: TOOLS });
    expect(p.grammarTriggers.map((x) => x.value)).toEqual(theirs);
  });
  it.each([
    "meta-llama-Llama-3.1-8B-Instruct.jinja",
    "openai-gpt-oss-120b.jinja",
    "meetkai-functionary-medium-v3.2.jinja",
  ])("%s", (name) => {
    expect(table.templates[name]?.generator?.grammar_triggers ?? []).toEqual([]);
    expect(params(name).grammarTriggers.length).toBeGreaterThan(0);
  });
});

describe("call ids", () => {
  it("ids the model writes are kept; missing ones are generated, unique, 9 letters and digits", () => {
    const mistral = params("Mistral-Small-3.2-24B-Instruct-2506.jinja");
    const msg = parseChatOutput(
      mistral,
      '[TOOL_CALLS]get_weather[CALL_ID]aB3dE5fG7[ARGS]{"city": "X"}[TOOL_CALLS]get_weather[ARGS]{"city": "Y"}',
    );
    expect(msg.tool_calls?.map((c) => c.id)[0]).toBe("aB3dE5fG7");
    expect(msg.tool_calls?.[1]?.id).toMatch(/^[A-Za-z0-9]{9}$/);
    const generated = new Set(Array.from({ length: 200 }, () => randomCallId()));
    expect(generated.size).toBe(200);
  });

  it("an id written after the name and arguments (Mistral Nemo) is still the call's first delta", () => {
    const nemo = params("mistralai-Mistral-Nemo-Instruct-2407.jinja");
    const out = '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "X"}, "id": "k9Z8y7X6w"}]';
    const s = new ChatStreamParser(nemo, ids);
    const deltas = [...out].flatMap((c) => s.feed(c));
    deltas.push(...s.finish());
    const first = deltas.find((d) => d.tool_calls)!.tool_calls![0]!;
    expect(first).toMatchObject({ index: 0, id: "k9Z8y7X6w", function: { name: "get_weather" } });
    expect(accumulateDeltas(deltas).tool_calls?.[0]?.function.arguments).toBe('{"city":"X"}');
  });

  it("ids a template numbers itself (Command R7B tool_call_id) are the model's, kept as llama.cpp does", () => {
    const r7b = params("CohereForAI-c4ai-command-r7b-12-2024-tool_use.jinja");
    const msg = parseChatOutput(
      r7b,
      '<|START_ACTION|>[\n    {"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": ' +
        '"X"}}\n]<|END_ACTION|>',
      ids,
    );
    expect(msg.tool_calls?.[0]?.id).toBe("0");
  });
});

describe("dedicated handlers", () => {
  it("GPT-OSS: channels, reasoning, preamble, a call in the role header or after the channel", () => {
    const p = params("openai-gpt-oss-120b.jinja");
    expect(p.parser.format).toBe("gpt-oss");
    expect(p.parser.prefix).toBe("<|start|>assistant");
    const a = parseChatOutput(
      p,
      "<|channel|>analysis<|message|>Think.<|end|><|start|>assistant<|channel|>final<|message|>Done.",
      ids,
    );
    expect(a).toEqual({ role: "assistant", content: "Done.", reasoning_content: "Think." });
    const b = parseChatOutput(
      p,
      '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "X"}',
      ids,
    );
    expect(b.tool_calls?.[0]?.function).toEqual({ name: "get_weather", arguments: '{"city":"X"}' });
    const c = parseChatOutput(
      p,
      "<|channel|>commentary<|message|>Checking.<|end|><|start|>assistant " +
        'to=functions.get_weather<|channel|>commentary json<|message|>{"city": "Y"}',
      ids,
    );
    expect(c.content).toBe("Checking.");
    expect(c.tool_calls?.[0]?.function.arguments).toBe('{"city":"Y"}');
    expect(
      matchGbnf(p.grammar!, ' to=functions.get_weather<|channel|>commentary json<|message|>{"city": "Y"}').ok,
    ).toBe(true);
  });

  it("GPT-OSS: history reasoning goes to the template's thinking field", () => {
    const { analysis } = load("openai-gpt-oss-120b.jinja");
    const [m] = prepareMessages(analysis, [{ role: "assistant", content: "A", reasoning_content: "R" }]);
    expect(m).toMatchObject({ thinking: "R" });
  });

  it("Functionary v3.2: >>>all content, >>>name calls", () => {
    const p = params("meetkai-functionary-medium-v3.2.jinja");
    expect(p.parser.prefix).toBe(">>>");
    expect(parseChatOutput(p, "all\nHello there.")).toEqual({ role: "assistant", content: "Hello there." });
    const msg = parseChatOutput(p, 'all\nChecking.>>>get_weather\n{"city": "X"}>>>get_weather\n{"city": "Y"}', ids);
    expect(msg.content).toBe("Checking.");
    expect(msg.tool_calls?.map((c) => c.function.arguments)).toEqual(['{"city":"X"}', '{"city":"Y"}']);
    expect(parseChatOutput(p, 'get_weather\n{"city": "Z"}').tool_calls).toHaveLength(1);
  });

  it("Ministral 3: [THINK] reasoning, [TOOL_CALLS]name[ARGS]{...}", () => {
    const p = params("mistralai-Ministral-3-14B-Reasoning-2512.jinja");
    const msg = parseChatOutput(p, '[THINK]Let me look.[/THINK]Sure.[TOOL_CALLS]get_weather[ARGS]{"city": "X"}', ids);
    expect(msg).toEqual({
      role: "assistant",
      content: "Sure.",
      reasoning_content: "Let me look.",
      tool_calls: [{ id: "id0", type: "function", function: { name: "get_weather", arguments: '{"city":"X"}' } }],
    });
    const { analysis } = load("mistralai-Ministral-3-14B-Reasoning-2512.jinja");
    expect(prepareMessages(analysis, [{ role: "assistant", content: "A", reasoning_content: "R" }])[0]).toMatchObject({
      content: "[THINK]R[/THINK]A",
    });
  });
});

describe("JSON layouts no template in the set uses", () => {
  // Real analyses with one field changed, as a template of that shape would be analysed.
  const { template, analysis } = load(QWEN);
  const withFormat = (format: Partial<TemplateAnalysis["tools"]["format"]>): TemplateAnalysis => ({
    ...analysis,
    tools: { ...analysis.tools, format: { ...analysis.tools.format, ...format } },
  });

  it("Python dicts: single-quoted keys and strings, True/None; the grammar allows them too", () => {
    const p = generateChatParams(withFormat({ usesPythonDicts: true }), template, {
      messages: [USER],
      tools: TOOLS,
      toolChoice: "required",
    });
    const out =
      "<tool_call>\n{'name': 'get_weather', 'arguments': {'city': 'It\\'s \"Paris\"', 'days': None}}\n</tool_call>";
    expect(parseChatOutput(p, out, ids).tool_calls?.[0]?.function).toEqual({
      name: "get_weather",
      arguments: '{"city":"It\'s \\"Paris\\"","days":null}',
    });
    // The grammar types the arguments by the schema: None only where it allows null ("days" is an integer).
    expect(matchGbnf(p.grammar!, out).ok).toBe(false);
    const valid =
      "<tool_call>\n{'name': 'record', 'arguments': {'text': 'It\\'s \"Paris\"', 'flag': True, 'meta': {'z': " +
      "None}}}\n</tool_call>";
    expect(parseChatOutput(p, valid, ids).tool_calls?.[0]?.function).toEqual({
      name: "record",
      arguments: '{"text":"It\'s \\"Paris\\"","flag":true,"meta":{"z":null}}',
    });
    expect(matchGbnf(p.grammar!, valid).ok).toBe(true);
  });

  it('nested keys: {"function": {"name": ..., "arguments": ...}, "id": ...}', () => {
    const p = generateChatParams(
      withFormat({
        nameField: "function.name",
        argsField: "function.arguments",
        idField: "id",
        parameterOrder: ["id", "function"],
      }),
      template,
      {
        messages: [USER],
        tools: TOOLS,
        toolChoice: "required",
      },
    );
    const out =
      '<tool_call>\n{"id": "abc", "function": {"name": "get_weather", "arguments": {"city": "Rome"}}}\n</tool_call>';
    expect(parseChatOutput(p, out, ids).tool_calls).toEqual([
      { id: "abc", type: "function", function: { name: "get_weather", arguments: '{"city":"Rome"}' } },
    ]);
    expect(matchGbnf(p.grammar!, out).ok).toBe(true);
  });
});
