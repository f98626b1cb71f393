/**
 * ChatTemplate.render: the input polyfills caps call for, errors, options and the clock.
 */
import { describe, expect, test } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ChatTemplate, TemplateError, TemplateRuntimeError, TemplateSyntaxError } from "../../src/template/index.js";
import type { ChatMessage, ToolDefinition } from "../../src/types.js";

const TEMPLATES = join(import.meta.dirname, "../../deps/llama.cpp/models/templates");
const load = (name: string, options = {}) =>
  new ChatTemplate(readFileSync(join(TEMPLATES, `${name}.jinja`), "utf8"), options);

const WEATHER: ToolDefinition = {
  type: "function",
  function: {
    name: "get_weather",
    description: "Weather.",
    parameters: { type: "object", properties: { city: { type: "string" } } },
  },
};
const CALL: ChatMessage[] = [
  { role: "user", content: "Weather in Paris?" },
  {
    role: "assistant",
    content: null,
    tool_calls: [
      { id: "call00001", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris","days":2}' } },
    ],
  },
  { role: "tool", tool_call_id: "call00001", content: "sunny" },
];

describe.skipIf(!existsSync(TEMPLATES))("render() polyfills on real templates", () => {
  test("no system role: renderRaw raises the template's own message, render folds the system prompt", () => {
    const gemma = load("google-gemma-2-2b-it");
    const messages: ChatMessage[] = [
      { role: "system", content: "Be terse." },
      { role: "user", content: "Hi" },
    ];
    expect(() => gemma.renderRaw({ messages, add_generation_prompt: true })).toThrow(
      new TemplateError("System role not supported"),
    );
    const out = gemma.render({ messages });
    expect(out).toBe("<start_of_turn>user\nBe terse.\n\nHi<end_of_turn>\n<start_of_turn>model\n");
  });

  test("object-argument templates get the JSON string parsed (Qwen3 re-serializes it Python-style)", () => {
    const out = load("Qwen-Qwen3-0.6B").render({ messages: CALL, tools: [WEATHER] });
    expect(out).toContain(
      '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": 2}}\n</tool_call>',
    );
    // null content of a tool-call turn renders as "" rather than "None"
    expect(out).not.toContain("None");
  });

  test("string-argument templates get the string as sent", () => {
    const out = load("meetkai-functionary-medium-v3.2").render({ messages: CALL, tools: [WEATHER] });
    expect(out).toContain('>>>get_weather\n{"city":"Paris","days":2}');
  });

  test("bad JSON arguments for an object-argument template name the field", () => {
    const bad = structuredClone(CALL);
    (bad[1] as { tool_calls: { function: { arguments: string } }[] }).tool_calls[0]!.function.arguments = "{oops";
    expect(() => load("Qwen-Qwen3-0.6B").render({ messages: bad })).toThrow(
      /messages\[1\]\.tool_calls\[0\]\.function\.arguments/,
    );
  });

  test("enableThinking reaches the template", () => {
    const qwen3 = load("Qwen-Qwen3-0.6B");
    const msgs: ChatMessage[] = [{ role: "user", content: "Hi" }];
    expect(qwen3.render({ messages: msgs, enableThinking: false })).toMatch(
      /<\|im_start\|>assistant\n<think>\n\n<\/think>\n\n$/,
    );
    expect(qwen3.render({ messages: msgs })).toMatch(/<\|im_start\|>assistant\n$/);
  });

  test("strftime_now uses the injected clock; bos/eos come from the options", () => {
    const llama = load("meta-llama-Llama-3.2-3B-Instruct", {
      bosToken: "<B>",
      now: () => new Date(2024, 1, 29, 8, 0, 0),
    });
    const out = llama.render({ messages: [{ role: "user", content: "Hi" }] });
    expect(out.startsWith("<B><|start_header_id|>system")).toBe(true);
    expect(out).toContain("Today Date: 29 Feb 2024\n");
  });

  test("developer becomes system unless the template knows the developer role", () => {
    const qwen = load("Qwen-Qwen2.5-7B-Instruct");
    const out = qwen.render({
      messages: [
        { role: "developer", content: "Rules." },
        { role: "user", content: "Hi" },
      ],
    });
    expect(out.startsWith("<|im_start|>system\nRules.<|im_end|>")).toBe(true);
  });

  test("extraContext is passed through", () => {
    const oss = load("openai-gpt-oss-120b");
    expect(
      oss.render({ messages: [{ role: "user", content: "Hi" }], extraContext: { reasoning_effort: "high" } }),
    ).toContain("Reasoning: high");
  });
});

describe("render() polyfills on inline templates", () => {
  test("typed content is produced where parts are required", () => {
    const parts = new ChatTemplate(
      "{% for m in messages %}[{% for p in m.content %}{{ p.text }}{% endfor %}]{% endfor %}",
    );
    expect(parts.render({ messages: [{ role: "user", content: "plain" }] })).toBe("[plain]");
  });

  test("parts are joined with newlines where only strings work", () => {
    const str = new ChatTemplate("{% for m in messages %}<{{ m.content + '' }}>{% endfor %}");
    const out = str.render({
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "a" },
            { type: "text", text: "b" },
          ],
        },
      ],
    });
    expect(out).toBe("<a\nb>");
  });
});

describe("errors", () => {
  test("a template syntax error names what failed", () => {
    expect(() => new ChatTemplate("{% if x %}unclosed")).toThrow(TemplateSyntaxError);
    expect(() => new ChatTemplate("{% if x %}unclosed")).toThrow(/chat template failed to parse/);
  });

  test("an unknown filter fails at construction as in Jinja2", () => {
    expect(() => new ChatTemplate("{{ x|frobnicate }}")).toThrow(TemplateSyntaxError);
    expect(() => new ChatTemplate("{{ x|frobnicate }}")).toThrow("No filter named 'frobnicate'.");
    // ...but inside an `if` Jinja2 defers it to when the filter runs.
    expect(new ChatTemplate("{% if x %}{{ x|frobnicate }}{% endif %}ok").renderRaw({})).toBe("ok");
  });

  test("engine failures carry the Python exception type", () => {
    const tpl = new ChatTemplate("{{ messages[0].content + 1 }}");
    try {
      tpl.renderRaw({ messages: [{ role: "user", content: "x" }] });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(TemplateRuntimeError);
      expect((e as TemplateRuntimeError).pythonType).toBe("TypeError");
      expect((e as Error).message).toBe('can only concatenate str (not "int") to str');
    }
  });

  test("the immutable sandbox refuses list.append unless allowMutation", () => {
    const src = "{% set xs = [] %}{% set _ = xs.append(1) %}{{ xs }}";
    expect(() => new ChatTemplate(src).renderRaw({})).toThrow(
      "access to attribute 'append' of 'list' object is unsafe.",
    );
    expect(new ChatTemplate(src, { allowMutation: true }).renderRaw({})).toBe("[1]");
  });

  test("options and inputs are validated", () => {
    expect(() => new ChatTemplate(42 as unknown as string)).toThrow(TypeError);
    expect(() => new ChatTemplate("x", { bosToken: 1 as unknown as string })).toThrow(/options\.bosToken/);
    expect(() => new ChatTemplate("x", { now: "today" as unknown as () => Date })).toThrow(/options\.now/);
    const tpl = new ChatTemplate("x");
    expect(() => tpl.render({ messages: "hi" as unknown as ChatMessage[] })).toThrow(/input\.messages/);
    expect(() => tpl.render({ messages: [], addGenerationPrompt: "yes" as unknown as boolean })).toThrow(
      /addGenerationPrompt/,
    );
    expect(() => tpl.renderRaw(null as unknown as Record<string, unknown>)).toThrow(/context/);
  });
});
