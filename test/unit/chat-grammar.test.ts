// The grammar agrees with the parser: both come from one PEG definition, so the GBNF grammar
// (run by the char-level matcher) must accept every output the parser maps correctly: with
// tool_choice auto (lazy grammar) the text from the trigger on, with tool_choice required the
// whole output (from the reasoning end when the grammar is deferred past forced-open
// reasoning) when the call comes first, and never content before the call. And a required call
// must not be satisfiable by plain text.
import { describe, expect, it } from "vitest";
import { generateChatParams, parseChatOutput, type ChatParams } from "../../src/chat/index.js";
import { fromTrigger, grammarInput } from "../helpers/grammar-input.js";
import { matchGbnf } from "../../src/grammar/gbnf-match.js";
import {
  KNOWN_FAILURES,
  SCENARIOS,
  type Scenario,
  TOOLS,
  USER,
  extraContext,
  generatedPart,
  messageDifferences,
  scenarioFor,
  toolTemplates,
} from "../helpers/chat-roundtrip.js";

const templates = toolTemplates();
const toolScenarios = SCENARIOS.filter((s) => s.message.tool_calls);

const cases = templates.flatMap((t) =>
  (["auto", "required"] as const).flatMap((toolChoice) =>
    toolScenarios
      .filter(
        (s) =>
          (!s.parallel || t.template.caps.supportsParallelToolCalls) &&
          !KNOWN_FAILURES[t.name]?.scenarios.includes(s.name),
      )
      .map((s) => ({ label: `${t.name} | ${toolChoice} | ${s.name}`, t, s: scenarioFor(t, s), toolChoice })),
  ),
);

describe("the grammar accepts what the parser reads back", () => {
  it.each(cases)("$label", ({ t, s, toolChoice }) => {
    const params = generateChatParams(t.analysis, t.template, {
      messages: [USER],
      tools: TOOLS,
      toolChoice,
      enableThinking: s.enableThinking,
      extraContext: extraContext(t, s),
    });
    const g = generatedPart(t, s, params);
    if ("error" in g) throw new Error(g.error);
    expect(messageDifferences(s.message, parseChatOutput(params, g.output), g.output)).toEqual([]);
    expect(params.grammar).not.toBeNull();
    expect(params.grammarLazy).toBe(toolChoice === "auto" || params.thinkingForcedOpen);
    const text = grammarInput(params, g.output);
    expect(
      text,
      `no trigger of ${JSON.stringify(params.grammarTriggers)} in ${JSON.stringify(g.output)}`,
    ).not.toBeNull();
    const r = matchGbnf(params.grammar!, text!);
    const content = s.message.content;
    const hasContent = typeof content === "string" && content.trim() !== "";
    if (toolChoice === "required" && hasContent) {
      // "required" means the call comes first: text before it is exactly what the grammar rules
      // out (the parser still reads it back, checked above).
      expect(r.ok, `accepted content before a required call: ${JSON.stringify(text)}`).toBe(false);
    } else {
      expect(r.ok, `rejected after ${r.consumed} code points of ${JSON.stringify(text)}`).toBe(true);
    }
  });
});

describe("tool_choice required without thinking: the grammar accepts the template's own rendering of a call", () => {
  const oneCall = SCENARIOS.find((s) => s.name === "one call")!;
  it.each(templates.map((t) => ({ label: t.name, t })))("$label", ({ t }) => {
    const params = generateChatParams(t.analysis, t.template, {
      messages: [USER],
      tools: TOOLS,
      toolChoice: "required",
      enableThinking: false,
    });
    const g = generatedPart(t, { ...oneCall, enableThinking: false }, params);
    if ("error" in g) throw new Error(g.error);
    const text = grammarInput(params, g.output);
    expect(text, JSON.stringify(g.output)).not.toBeNull();
    const r = matchGbnf(params.grammar!, text!);
    expect(r.ok, `rejected after ${r.consumed} code points of ${JSON.stringify(text)}`).toBe(true);
  });

  it("an empty reasoning block is all it allows before the call (Kimi K2 Thinking renders one)", () => {
    const t = templates.find((x) => x.name.startsWith("Kimi-K2-Thinking"))!;
    const params = generateChatParams(t.analysis, t.template, {
      messages: [USER],
      tools: TOOLS,
      toolChoice: "required",
      enableThinking: false,
    });
    const g = generatedPart(t, { ...oneCall, enableThinking: false }, params);
    if ("error" in g) throw new Error(g.error);
    expect(g.output.startsWith("<think></think>")).toBe(true);
    expect(matchGbnf(params.grammar!, g.output).ok).toBe(true);
    expect(matchGbnf(params.grammar!, g.output.replace("<think></think>", "")).ok).toBe(true);
    expect(matchGbnf(params.grammar!, g.output.replace("<think></think>", "<think>let me see</think>")).ok).toBe(false);
  });
});

describe("tool_choice required rejects plain content", () => {
  const supported = templates.filter((t) => !KNOWN_FAILURES[t.name]?.scenarios.includes("one call"));
  it.each(supported.map((t) => ({ label: t.name, t })))("$label", ({ t }) => {
    const params = generateChatParams(t.analysis, t.template, {
      messages: [USER],
      tools: TOOLS,
      toolChoice: "required",
    });
    const plain = "The weather in Paris is sunny.";
    const text = params.grammarLazy ? `${params.reasoningEnd ?? ""}${plain}` : plain;
    if (params.grammarLazy) expect(fromTrigger(text, params.grammarTriggers)).not.toBeNull();
    const r = matchGbnf(params.grammar!, grammarInput(params, text)!);
    expect(r.ok).toBe(false);
    // ...and the parser keeps the text as content.
    expect(parseChatOutput(params, text).content).toBe(plain);
  });
});

describe("response_format json_schema: the answer is JSON matching the schema, reasoning unconstrained", () => {
  const schema = {
    type: "object",
    properties: { city: { type: "string" }, temp: { type: "number" } },
    required: ["city", "temp"],
    additionalProperties: false,
  };
  const answer: Scenario = {
    name: "json answer",
    message: { role: "assistant", content: '{"city": "Paris", "temp": 21.5}' },
  };
  // Formats whose plain answers do not round trip wrap answers in ways the parser does not know.
  it.each(
    templates
      .filter((t) => !KNOWN_FAILURES[t.name]?.scenarios.includes("reasoning and content"))
      .map((t) => ({ label: t.name, t })),
  )("$label", ({ t }) => {
    // Tools are offered too (some templates cannot render without): the schema takes precedence.
    const params = generateChatParams(t.analysis, t.template, {
      messages: [USER],
      tools: TOOLS,
      responseFormat: { type: "json_schema", json_schema: { name: "weather", schema } },
    });
    expect(params.grammar).not.toBeNull();
    const g = generatedPart(t, answer, params);
    if ("error" in g) throw new Error(g.error);
    const msg = parseChatOutput(params, g.output);
    expect(JSON.parse(String(msg.content))).toEqual({ city: "Paris", temp: 21.5 });
    expect(msg.tool_calls).toBeUndefined();
    const text = grammarInput(params, g.output);
    expect(text, JSON.stringify(g.output)).not.toBeNull();
    expect(matchGbnf(params.grammar!, text!).ok, JSON.stringify(text)).toBe(true);
    expect(matchGbnf(params.grammar!, grammarInput(params, g.output.replace("21.5", '"warm"'))!).ok).toBe(false);
  });
});

describe("tool_choice required: the grammar is the call alone, bounded", () => {
  const byName = new Map(templates.map((t) => [t.name.replace(/\.jinja$/, ""), t]));
  const get = (name: string) => {
    const t = byName.get(name);
    if (!t) throw new Error(`no template ${name}`);
    return t;
  };
  const weather = [TOOLS[0]!];
  const required = (name: string, extra: Partial<Parameters<typeof generateChatParams>[2]> = {}) => {
    const t = get(name);
    return generateChatParams(t.analysis, t.template, {
      messages: [USER],
      tools: weather,
      toolChoice: "required",
      ...extra,
    });
  };
  const accepts = (params: ChatParams, text: string) => matchGbnf(params.grammar!, text).ok;
  const hermesCall = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>';

  it.each([
    { label: "the call", text: hermesCall, ok: true },
    { label: "indented on a new line", text: `\n        ${hermesCall}`, ok: true },
    { label: "a couple of spaces", text: `  ${hermesCall}`, ok: true },
    { label: "a long run of spaces", text: `${" ".repeat(12)}${hermesCall}`, ok: false },
    { label: "many blank lines", text: `\n\n\n\n${hermesCall}`, ok: false },
    { label: "content first", text: `Sure.${hermesCall}`, ok: false },
    { label: "two calls without parallel", text: `${hermesCall}\n${hermesCall}`, ok: false },
  ])("Hermes format: $label → $ok", ({ text, ok }) => {
    expect(accepts(required("Qwen-Qwen2.5-7B-Instruct", { parallelToolCalls: false }), text)).toBe(ok);
  });

  it("maxToolCalls bounds parallel calls", () => {
    const params = required("Qwen-Qwen2.5-7B-Instruct", { parallelToolCalls: true, maxToolCalls: 2 });
    expect(accepts(params, `${hermesCall}\n${hermesCall}`)).toBe(true);
    expect(accepts(params, `${hermesCall}\n${hermesCall}\n${hermesCall}`)).toBe(false);
    expect(() => required("Qwen-Qwen2.5-7B-Instruct", { maxToolCalls: 0 })).toThrow(/maxToolCalls/);
  });

  it("a request that does not think gets no reasoning block; one that thinks may reason freely first", () => {
    // Templates with a reasoning opener the model may write itself.
    const candidates = templates.filter((t) => {
      const p = generateChatParams(t.analysis, t.template, {
        messages: [USER],
        tools: weather,
        toolChoice: "required",
        enableThinking: true,
      });
      // Where the prompt neither opens nor closes reasoning.
      return p.reasoningStart !== null && p.grammarAfterReasoning !== null;
    });
    expect(candidates.length).toBeGreaterThan(3);
    for (const t of candidates) {
      const on = generateChatParams(t.analysis, t.template, {
        messages: [USER],
        tools: weather,
        toolChoice: "required",
        enableThinking: true,
      });
      const off = generateChatParams(t.analysis, t.template, {
        messages: [USER],
        tools: weather,
        toolChoice: "required",
        enableThinking: false,
      });
      const reasoning = `${on.reasoningStart}anything at all, 日本語 {"x": 1}`;
      expect(matchGbnf(on.grammar!, reasoning).prefixOk, t.name).toBe(true);
      expect(matchGbnf(off.grammar!, reasoning).prefixOk, t.name).toBe(false);
      // The budget continues under the grammar of what follows reasoning: no reasoning block there.
      expect(matchGbnf(on.grammarAfterReasoning!, reasoning).prefixOk, t.name).toBe(false);
    }
  });

  it("tagged arguments: each once, in schema order, required ones present", () => {
    const params = required("Qwen3-Coder");
    const call = (params_: string) => `<tool_call>\n<function=get_weather>\n${params_}</function>\n</tool_call>`;
    const city = "<parameter=city>\nParis\n</parameter>\n";
    const days = "<parameter=days>\n3\n</parameter>\n";
    expect(accepts(params, call(city))).toBe(true);
    expect(accepts(params, call(city + days))).toBe(true);
    expect(accepts(params, call(days))).toBe(false);
    expect(accepts(params, call(city + city))).toBe(false);
    // A string may hold anything but the end tag.
    expect(accepts(params, call(city.replace("Paris", "3\n</parameter>\n<parameter=days>\n4")))).toBe(true);
    expect(
      accepts(params, call('<parameter=city>\nParis\n</parameter>\n<parameter=days>\n"three"\n</parameter>\n')),
    ).toBe(false);
  });

  it.each([
    {
      name: "openai-gpt-oss-120b",
      good: '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris"}',
      bad: '<|channel|>commentary to=functions.get_weather whatever text<|message|>{"city": "Paris"}',
    },
    {
      name: "openai-gpt-oss-120b",
      good: ' to=functions.get_weather<|channel|>commentary json<|message|>{"city": "Paris"}',
      bad:
        "<|channel|>commentary<|message|>Let me check.<|end|><|start|>assistant " +
        'to=functions.get_weather<|channel|>commentary json<|message|>{"city": "Paris"}',
    },
    {
      name: "meetkai-functionary-medium-v3.2",
      good: 'get_weather\n{"city": "Paris"}',
      bad: 'all\nLet me check.>>>get_weather\n{"city": "Paris"}',
    },
    {
      name: "mistralai-Ministral-3-14B-Reasoning-2512",
      good: '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}',
      bad: 'Sure.[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}',
    },
    {
      name: "LFM2.5-8B-A1B",
      good: "<|tool_call_start|>[get_weather(city='Paris', days=2)]<|tool_call_end|>",
      bad: "Sure.<|tool_call_start|>[get_weather(city='Paris')]<|tool_call_end|>",
    },
    {
      name: "LFM2.5-8B-A1B",
      good: "<|tool_call_start|>[get_weather(city='Paris')]<|tool_call_end|>",
      bad: "<|tool_call_start|>[get_weather(days=2)]<|tool_call_end|>",
    },
  ])("dedicated $name: accepts the call, rejects $bad", ({ name, good, bad }) => {
    const params = required(name, { enableThinking: false });
    const text = (s: string) => (params.grammarLazy ? `${params.reasoningEnd}${s}` : s);
    expect(accepts(params, text(good))).toBe(true);
    expect(accepts(params, text(bad))).toBe(false);
  });

  it("MiniMax M3: no content before the call, arguments in order", () => {
    const params = required("MiniMax-M3", { enableThinking: false });
    const NS = "]<]minimax[>[";
    const call = (args: string) =>
      `</mm:think>${NS}<tool_call>${NS}<invoke name="get_weather">${args}${NS}</invoke>${NS}</tool_call>`;
    const city = `${NS}<city>Paris${NS}</city>`;
    expect(accepts(params, call(city))).toBe(true);
    expect(accepts(params, `Sure.${call(city)}`)).toBe(false);
    expect(accepts(params, call(""))).toBe(false);
    expect(accepts(params, `<mm:think>hm</mm:think>${call(city)}`)).toBe(false);
  });
});

describe("tool_choice required: ids", () => {
  it("Mistral: an id is bounded and must be followed by [ARGS]", () => {
    const t = templates.find((x) => x.name.startsWith("Mistral-Small-3.2"))!;
    const params = generateChatParams(t.analysis, t.template, {
      messages: [USER],
      tools: [TOOLS[0]!],
      toolChoice: "required",
      parallelToolCalls: false,
    });
    const ok = (s: string) => matchGbnf(params.grammar!, s).ok;
    expect(ok('[TOOL_CALLS]get_weather[CALL_ID]call12345[ARGS]{"city": "Paris"}')).toBe(true);
    expect(ok('[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}')).toBe(true);
    expect(ok('[TOOL_CALLS]get_weather[CALL_ID]call12345{"city": "Paris"}')).toBe(false);
    expect(ok(`[TOOL_CALLS]get_weather[CALL_ID]${"a".repeat(200)}[ARGS]{"city": "Paris"}`)).toBe(false);
  });
});
