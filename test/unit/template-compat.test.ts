/**
 * Compatibility modes (src/template/compat.ts): each lenient relaxation on its own, what stays
 * strict, and the "auto" policy (strict first, lenient only after a relaxable error, never after
 * the template's own raise_exception). Strict errors below are Python Jinja2's (checked against
 * ImmutableSandboxedEnvironment); that lenient mode keeps every strict rendering is checked on
 * all goldens in test/oracle/template-parity.test.ts.
 */
import { describe, expect, test } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ChatTemplate, TemplateError, TemplateRuntimeError } from "../../src/template/index.js";
import { LENIENT_RELAXATIONS, type Relaxation } from "../../src/template/compat.js";
import type { ChatMessage } from "../../src/types.js";

const TEMPLATES = join(import.meta.dirname, "../../deps/llama.cpp/models/templates");

interface Case {
  relaxation: Relaxation["id"];
  source: string;
  context?: Record<string, unknown>;
  /** Python exception type and message strict mode raises. */
  strict: [string, string];
  lenient: string;
}

// prettier-ignore
const RELAXED: Case[] = [
  {
    relaxation: "mutation",
    source: "{% set l = [1] %}{% set _ = l.append(2) %}{{ l }}",
    strict: ["SecurityError", "access to attribute 'append' of 'list' object is unsafe."],
    lenient: "[1, 2]",
  },
  {
    relaxation: "mutation",
    source: "{% set d = {'a': 1} %}{% set _ = d.update({'b': 2}) %}{{ d | tojson }}",
    strict: ["SecurityError", "access to attribute 'update' of 'dict' object is unsafe."],
    lenient: '{"a": 1, "b": 2}',
  },
  {
    relaxation: "chainable-undefined",
    source: "[{{ missing.attr.deeper }}|{{ missing['k'][0] }}|{{ missing[1:2] }}]",
    strict: ["UndefinedError", "'missing' is undefined"],
    lenient: "[||]",
  },
  {
    relaxation: "chainable-undefined",
    source: "{% if messages[0].role is defined %}y{% else %}n{% endif %}",
    context: { messages: [] },
    strict: ["UndefinedError", "list object has no element 0"],
    lenient: "n",
  },
  {
    relaxation: "concat-missing",
    source: "{{ 'a' + functions }}",
    strict: ["UndefinedError", "'functions' is undefined"],
    lenient: "a",
  },
  {
    relaxation: "concat-missing",
    source: "{{ x + 'b' }}",
    strict: ["UndefinedError", "'x' is undefined"],
    lenient: "b",
  },
  {
    relaxation: "none-iteration",
    source: "[{% for t in tools %}{{ t }}{% endfor %}]",
    context: { tools: null },
    strict: ["TypeError", "'NoneType' object is not iterable"],
    lenient: "[]",
  },
  {
    relaxation: "concat-missing",
    source: "{{ 'a' + none }}",
    strict: ["TypeError", 'can only concatenate str (not "NoneType") to str'],
    lenient: "a",
  },
  {
    relaxation: "concat-missing",
    source: "{{ none + 'b' }}",
    strict: ["TypeError", "unsupported operand type(s) for +: 'NoneType' and 'str'"],
    lenient: "b",
  },
  {
    relaxation: "iterator-as-list",
    source: "{{ [1, 2] | map('string') | tojson }}",
    strict: ["TypeError", "Object of type generator is not JSON serializable"],
    lenient: '["1", "2"]',
  },
  {
    relaxation: "iterator-as-list",
    source: "{{ {'a': [1] | select} | tojson }}",
    strict: ["TypeError", "Object of type generator is not JSON serializable"],
    lenient: '{"a": [1]}',
  },
  {
    relaxation: "iterator-as-list",
    source: "{{ [1, 2, 3] | select('odd') | length }}",
    strict: ["TypeError", "object of type 'generator' has no len()"],
    lenient: "2",
  },
  {
    relaxation: "iterator-as-list",
    source: "{{ [1, 2] | select | count }}",
    strict: ["TypeError", "object of type 'generator' has no len()"],
    lenient: "2",
  },
  {
    relaxation: "iterator-as-list",
    source: "{{ [1, 2] | map('string') | last }}",
    strict: ["TypeError", "'generator' object is not reversible"],
    lenient: "2",
  },
  {
    relaxation: "iterator-as-list",
    source: "{{ ([1] | list) + ([2] | select) }}",
    strict: ["TypeError", 'can only concatenate list (not "generator") to list'],
    lenient: "[1, 2]",
  },
  {
    relaxation: "iterator-as-list",
    source: "{{ ([2] | select) + [1] }}",
    strict: ["TypeError", "unsupported operand type(s) for +: 'generator' and 'list'"],
    lenient: "[2, 1]",
  },
  // Read as a list, not consumed: the loop still sees the items (llama.cpp's map gives a list).
  {
    relaxation: "iterator-as-list",
    source: "{% set g = [1, 2] | select %}{{ g | tojson }}{% for x in g %}{{ x }}{% endfor %}",
    strict: ["TypeError", "Object of type generator is not JSON serializable"],
    lenient: "[1, 2]12",
  },
];

/** Raise in lenient mode too: no relaxation covers them. */
// prettier-ignore
const STILL_RAISING: [string, string, string][] = [
  ["{{ missing + missing }}", "UndefinedError", "'missing' is undefined"],
  ["{{ 1 + none }}", "TypeError", "unsupported operand type(s) for +: 'int' and 'NoneType'"],
  ["{{ 'a' + {'k': 1} }}", "TypeError", 'can only concatenate str (not "dict") to str'],
  ["{{ missing() }}", "UndefinedError", "'missing' is undefined"],
  ["{{ missing.method() }}", "UndefinedError", "'missing' is undefined"],
  ["{{ 1 // 0 }}", "ZeroDivisionError", "integer division or modulo by zero"],
];

/** Same output in every mode: strict mode does not raise here, so lenient must not differ. */
// prettier-ignore
const UNCHANGED: [string, string][] = [
  ["{{ 'a' ~ none }}", "aNone"],
  ["{{ 'a' ~ missing }}", "a"],
  ["{{ [1, 2] | select | first }}", "1"],
  ["{{ ([1, 2] | select)[0] is defined }}", "False"],
  ["{% if [] | select %}truthy{% endif %}", "truthy"],
  ["{{ missing is defined }}|{{ missing | default('d') }}|{{ missing | length }}", "False|d|0"],
];

function outcome(tpl: ChatTemplate, context: Record<string, unknown> = {}): string | [string, string] {
  try {
    return tpl.renderRaw(context);
  } catch (e) {
    if (e instanceof TemplateRuntimeError) return [e.pythonType, e.message];
    if (e instanceof TemplateError) return ["TemplateError", e.message];
    throw e;
  }
}

describe("lenient relaxations", () => {
  test("every relaxation is exercised below and says what strict mode raises", () => {
    expect(new Set(RELAXED.map((c) => c.relaxation))).toEqual(new Set(LENIENT_RELAXATIONS.map((r) => r.id)));
    for (const c of RELAXED) {
      const r = LENIENT_RELAXATIONS.find((x) => x.id === c.relaxation)!;
      expect(r.strictRaises).toContain(c.strict[0]);
    }
  });

  test.each(RELAXED)("$relaxation: $source", ({ source, context, strict, lenient }) => {
    expect(outcome(new ChatTemplate(source), context)).toEqual(strict);
    expect(outcome(new ChatTemplate(source, { compat: "lenient" }), context)).toBe(lenient);
    expect(new ChatTemplate(source, { compat: "auto" }).renderRawWithMode(context ?? {})).toEqual({
      text: lenient,
      mode: "lenient",
    });
  });

  test.each(STILL_RAISING)("still raises: %s", (source, type, message) => {
    expect(outcome(new ChatTemplate(source, { compat: "lenient" }))).toEqual([type, message]);
    expect(outcome(new ChatTemplate(source, { compat: "auto" }))).toEqual([type, message]);
  });

  test.each(UNCHANGED)("unchanged: %s", (source, expected) => {
    for (const compat of ["strict", "lenient", "auto"] as const) {
      expect(outcome(new ChatTemplate(source, { compat }))).toBe(expected);
    }
  });

  test("lenient mode does not mutate the caller's data", () => {
    const messages = [{ role: "user", content: "Hi" }];
    const tpl = new ChatTemplate("{% set _ = messages.append({'role': 'x'}) %}{{ messages | length }}", {
      compat: "lenient",
    });
    expect(tpl.renderRaw({ messages })).toBe("2");
    expect(messages).toHaveLength(1);
  });
});

describe("auto policy", () => {
  test("renders strictly whenever strict mode renders", () => {
    const tpl = new ChatTemplate("{% for m in messages %}{{ m.role }}: {{ m.content }}\n{% endfor %}", {
      compat: "auto",
    });
    expect(tpl.renderRawWithMode({ messages: [{ role: "user", content: "Hi" }] })).toEqual({
      text: "user: Hi\n",
      mode: "strict",
    });
  });

  test("the template's own raise_exception is never retried leniently", () => {
    // Strict: `[].append` is the sandbox's unsafe Undefined, so the template refuses; lenient would say "ok".
    const src = "{% if [].append is defined %}ok{% else %}{{ raise_exception('immutable') }}{% endif %}";
    expect(outcome(new ChatTemplate(src, { compat: "auto" }))).toEqual(["TemplateError", "immutable"]);
    expect(outcome(new ChatTemplate(src, { compat: "lenient" }))).toBe("ok");
  });

  test("when lenient mode fails too, the strict (Python) error is reported", () => {
    const tpl = new ChatTemplate("{{ 'a' + missing }}{{ 1 + none }}", { compat: "auto" });
    expect(outcome(tpl)).toEqual(["UndefinedError", "'missing' is undefined"]);
  });

  test("...unless lenient mode reaches the template's own refusal, which is reported as is", () => {
    const tpl = new ChatTemplate("{{ 'a' + missing }}{{ raise_exception('no tools given') }}", { compat: "auto" });
    expect(() => tpl.renderRaw({})).toThrow(TemplateError);
    expect(outcome(tpl)).toEqual(["TemplateError", "no tools given"]);
  });

  test("render() and renderWithMode() follow the same policy", () => {
    const src = "{% for m in messages %}{{ '[' + m.role + ']' + m.content }}{% endfor %}";
    const tpl = new ChatTemplate(src, { compat: "auto" });
    const messages: ChatMessage[] = [{ role: "assistant", content: null }];
    expect(() => new ChatTemplate(src).render({ messages, addGenerationPrompt: false })).toThrow(TemplateRuntimeError);
    expect(tpl.render({ messages, addGenerationPrompt: false })).toBe("[assistant]");
    expect(tpl.renderWithMode({ messages, addGenerationPrompt: false })).toEqual({
      text: "[assistant]",
      mode: "lenient",
    });
  });
});

describe("compat option", () => {
  test("defaults to strict and is validated", () => {
    expect(new ChatTemplate("x").compat).toBe("strict");
    expect(new ChatTemplate("x", { compat: "auto" }).compat).toBe("auto");
    expect(() => new ChatTemplate("x", { compat: "loose" as never })).toThrow(
      /options\.compat must be "strict", "lenient" or "auto", got "loose"/,
    );
    expect(() => new ChatTemplate("x", { compat: 1 as never })).toThrow(TypeError);
  });

  test("renderRawWithMode validates its context like renderRaw", () => {
    expect(() => new ChatTemplate("x").renderRawWithMode([] as never)).toThrow(
      /renderRawWithMode: context must be an object, got array/,
    );
  });
});

describe.skipIf(!existsSync(TEMPLATES))("caps in the mode that renders", () => {
  const load = (name: string, compat: "strict" | "lenient" | "auto") =>
    new ChatTemplate(readFileSync(join(TEMPLATES, `${name}.jinja`), "utf8"), { compat });

  test.each(["Kimi-K2-Instruct", "Kimi-K2-Thinking", "fireworks-ai-llama-3-firefunction-v2", "llama-cpp-deepseek-r1"])(
    "%s: strict probes raise, auto probes render leniently",
    (name) => {
      expect(load(name, "strict").capsRenderMode).toBe("strict");
      expect(load(name, "strict").caps.supportsToolCalls).toBe(false);
      const auto = load(name, "auto");
      expect(auto.caps.supportsToolCalls).toBe(true);
      expect(auto.capsRenderMode).toBe("lenient");
    },
  );

  test("a template transformers renders keeps strict caps in auto mode", () => {
    const strict = load("Qwen-Qwen3-0.6B", "strict");
    const auto = load("Qwen-Qwen3-0.6B", "auto");
    expect(auto.caps).toEqual(strict.caps);
    expect(auto.capsRenderMode).toBe("strict");
    expect(load("Qwen-Qwen3-0.6B", "lenient").capsRenderMode).toBe("lenient");
  });

  test("deepseek-r1's tools, dumped through a map() iterator, count as read", () => {
    expect(load("llama-cpp-deepseek-r1", "auto").caps.supportsTools).toBe(true);
  });

  test("Kimi-K2 tool-call turns render in auto mode with their numbered call ids", () => {
    const out = load("Kimi-K2-Instruct", "auto").renderWithMode({
      messages: [
        { role: "user", content: "Weather?" },
        {
          role: "assistant",
          content: "",
          tool_calls: [
            { id: "x", type: "function", function: { name: "get_weather", arguments: '{"city": "Paris"}' } },
          ],
        },
        { role: "tool", tool_call_id: "x", content: "sunny" },
      ],
      addGenerationPrompt: true,
    });
    expect(out.mode).toBe("lenient");
    expect(out.text).toContain(
      '<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|>',
    );
    expect(out.text).toContain("## Return of functions.get_weather:0");
  });
});
