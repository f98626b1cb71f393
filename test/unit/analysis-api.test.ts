// analyzeTemplate's contract: argument validation, errors, caching, plain frozen data, and the
// analysis of small hand-written templates whose markers are known by construction.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { analyzeTemplate } from "../../src/analysis/index.js";
import { WORKAROUNDS } from "../../src/analysis/workarounds.js";
import { analyzeChatTemplate } from "../../src/chat/index.js";
import { detectDedicatedFormat } from "../../src/chat/dedicated/index.js";
import { DEDICATED_FORMATS } from "../../src/chat/dedicated/index.js";
import { VariantRenderer } from "../../src/analysis/render.js";
import { analyzeTools } from "../../src/analysis/tools.js";
import { ChatTemplate, TemplateSyntaxError } from "../../src/template/index.js";
import { TEMPLATES_DIR } from "../helpers/analysis-oracle.js";

// ChatML with <think> reasoning and Hermes-style JSON tool calls, written for this test.
const CHATML_THINK_TOOLS = `{%- if tools %}<|im_start|>system
Tools:{% for t in tools %} {{ t.function.name }}{% endfor %}<|im_end|>
{% endif %}
{%- for m in messages %}<|im_start|>{{ m.role }}
{%- if m.role == "assistant" %}
{%- if m.reasoning_content %}
<think>
{{ m.reasoning_content }}
</think>
{%- endif %}
{%- if m.content %}
{{ m.content }}
{%- endif %}
{%- for c in m.tool_calls or [] %}
<tool_call>
{"name": "{{ c.function.name }}", "arguments": {{ c.function.arguments | tojson }}}
</tool_call>
{%- endfor %}
{%- else %}
{{ m.content }}
{%- endif %}<|im_end|>
{% endfor %}
{%- if add_generation_prompt %}<|im_start|>assistant
{% endif %}`;

// Tagged arguments in the Qwen3-Coder style, written for this test.
const TAGGED_TOOLS = `{%- for m in messages %}<|im_start|>{{ m.role }}
{%- if m.content %}
{{ m.content }}
{%- endif %}
{%- for c in m.tool_calls or [] %}
<tool_call>
<function={{ c.function.name }}>
{%- for k, v in c.function.arguments.items() %}
<parameter={{ k }}>
{{ v }}
</parameter>
{%- endfor %}
</function>
</tool_call>
{%- endfor %}<|im_end|>
{% endfor %}
{%- if add_generation_prompt %}<|im_start|>assistant
{% endif %}`;

describe("analyzeTemplate", () => {
  it("validates its arguments", () => {
    expect(() => analyzeTemplate(42 as unknown as string)).toThrow(/source must be a string, got number/);
    expect(() => analyzeTemplate("x", null as unknown as object)).toThrow(/options must be an object, got null/);
    expect(() => analyzeTemplate("x", { bosToken: 1 as unknown as string })).toThrow(
      /options\.bosToken must be a string/,
    );
    expect(() => analyzeTemplate("x", { template: {} as ChatTemplate })).toThrow(
      /options\.template must be a ChatTemplate/,
    );
  });

  it("reports a template that does not compile", () => {
    expect(() => analyzeTemplate("{% if %}")).toThrow(TemplateSyntaxError);
  });

  it("caches per source and returns frozen, JSON-serialisable data", () => {
    const a = analyzeTemplate(CHATML_THINK_TOOLS);
    expect(analyzeTemplate(CHATML_THINK_TOOLS)).toBe(a);
    const fresh = analyzeTemplate(CHATML_THINK_TOOLS, { cache: false });
    expect(fresh).not.toBe(a);
    expect(fresh).toEqual(a);
    expect(Object.isFrozen(a.tools.format)).toBe(true);
    expect(JSON.parse(JSON.stringify(a))).toEqual(a);
  });

  it("keys the cache on BOS/EOS too", () => {
    const plain = analyzeTemplate("{{ bos_token }}{% for m in messages %}{{ m.content }}{{ eos_token }}{% endfor %}");
    const withTokens = analyzeTemplate(
      "{{ bos_token }}{% for m in messages %}{{ m.content }}{{ eos_token }}{% endfor %}",
      {
        bosToken: "<s>",
        eosToken: "</s>",
      },
    );
    expect(withTokens).not.toBe(plain);
  });

  it("finds <think> reasoning and Hermes-style JSON tool calls", () => {
    const a = analyzeTemplate(CHATML_THINK_TOOLS);
    // trim_blocks drops the newline after each block tag, so content follows </think> directly.
    expect(a.reasoning).toEqual({ mode: "TAG_BASED", start: "<think>\n", end: "\n</think>" });
    expect(a.content.mode).toBe("PLAIN");
    expect(a.tools.format).toMatchObject({
      mode: "JSON_NATIVE",
      perCallStart: "<tool_call>\n",
      perCallEnd: "</tool_call>",
      nameField: "name",
      argsField: "arguments",
      parameterOrder: ["name", "arguments"],
      usesPythonDicts: false,
    });
    expect(a.assistantStart).toBe("<|im_start|>assistant");
    expect(a.userStart).toBe("<|im_start|>user");
    expect(a.preservedTokens).toEqual(["<think>", "</think>", "<tool_call>", "</tool_call>"]);
    expect(a.dedicatedHandler).toBeNull();
  });

  it("finds tagged function and argument markers", () => {
    const t = analyzeTemplate(TAGGED_TOOLS).tools;
    expect(t.format.mode).toBe("TAG_WITH_TAGGED");
    expect(t.format.perCallStart || t.format.sectionStart).toBe("<tool_call>\n");
    expect(t.format.perCallEnd || t.format.sectionEnd).toBe("</tool_call>");
    expect(t.function).toMatchObject({ namePrefix: "<function=", nameSuffix: ">", close: "</function>\n" });
    expect(t.arguments).toMatchObject({ namePrefix: "<parameter=", nameSuffix: ">\n", valueSuffix: "\n</parameter>" });
  });

  it("reads JSON tool calls whose arguments render as a Python dict", () => {
    // A template printing the arguments object itself (Jinja2 shows a Python dict), simulated by
    // a render function: llama.cpp's analysis fails on such calls (they are not valid JSON).
    const pyRepr = (v: unknown): string =>
      typeof v === "string"
        ? `'${v}'`
        : `{${Object.entries(v as Record<string, unknown>)
            .map(([k, x]) => `'${k}': ${pyRepr(x)}`)
            .join(", ")}}`;
    const render = (ctx: Record<string, unknown>): string =>
      (ctx.messages as Record<string, unknown>[])
        .map((m) => {
          const calls = (m.tool_calls as { function: { name: string; arguments: unknown } }[] | undefined) ?? [];
          const body = calls.map(
            (c) =>
              `<tool_call>{"name": "${c.function.name}", "arguments": ${pyRepr(c.function.arguments)}}</tool_call>`,
          );
          return `<|${String(m.role)}|>${String(m.content ?? "")}${body.join("")}<|end|>`;
        })
        .join("");
    const caps = {
      ...new ChatTemplate("x").caps,
      supportsToolCalls: true,
      supportsParallelToolCalls: true,
      supportsObjectArguments: true,
    };
    const tools = analyzeTools(new VariantRenderer(render, caps, "", ""), caps, { mode: "NONE", start: "", end: "" });
    expect(tools.format).toMatchObject({
      mode: "JSON_NATIVE",
      usesPythonDicts: true,
      nameField: "name",
      argsField: "arguments",
      perCallStart: "<tool_call>",
      perCallEnd: "</tool_call>",
    });
  });

  it("reports no tools and no reasoning for a template that renders neither", () => {
    const a = analyzeTemplate("{% for m in messages %}{{ m.role }}: {{ m.content }}\n{% endfor %}");
    expect(a.reasoning.mode).toBe("NONE");
    expect(a.tools.format.mode).toBe("NONE");
    expect(a.preservedTokens).toEqual([]);
  });
});

describe("workaround table", () => {
  const sources = readdirSync(TEMPLATES_DIR)
    .filter((f) => f.endsWith(".jinja"))
    .map((f) => readFileSync(join(TEMPLATES_DIR, f), "utf8"));

  it.each(WORKAROUNDS.map((w) => [w.name, w] as const))("%s identifies at least one real template", (_name, w) => {
    expect(sources.some((s) => w.features.every((f) => s.includes(f)))).toBe(true);
  });
});

describe("detectDedicatedFormat", () => {
  it.each([
    ["openai-gpt-oss-120b.jinja", "gpt-oss"],
    ["meetkai-functionary-medium-v3.2.jinja", "functionary-v3.2"],
    ["mistralai-Ministral-3-14B-Reasoning-2512.jinja", "ministral-3"],
    ["Qwen3-Coder.jinja", "qwen3-coder"],
    ["Mistral-Small-3.2-24B-Instruct-2506.jinja", null],
    ["Qwen-Qwen3-0.6B.jinja", null],
  ])("%s → %s", (file, handler) => {
    expect(detectDedicatedFormat(readFileSync(join(TEMPLATES_DIR, file), "utf8"))).toBe(handler);
  });

  it("every format module detects only the families it says it handles", () => {
    const sources = readdirSync(TEMPLATES_DIR)
      .filter((f) => f.endsWith(".jinja"))
      .map((f) => readFileSync(join(TEMPLATES_DIR, f), "utf8"));
    for (const format of DEDICATED_FORMATS) {
      const found = sources.map((s) => format.detect(s)).filter((f) => f !== null);
      expect(found.length, `${format.name} detects no llama.cpp template`).toBeGreaterThan(0);
      for (const family of found) expect(format.handles, format.name).toContain(family);
    }
  });
});

describe("the analysis with and without a format hint", () => {
  const gptOss = readFileSync(join(TEMPLATES_DIR, "openai-gpt-oss-120b.jinja"), "utf8");

  it("analyzeTemplate alone is the generic analysis; analyzeChatTemplate detects the format", () => {
    expect(analyzeTemplate(gptOss).dedicatedHandler).toBeNull();
    expect(analyzeChatTemplate(gptOss).dedicatedHandler).toBe("gpt-oss");
    expect(analyzeTemplate(gptOss, { format: { name: "gpt-oss" } })).toEqual(analyzeChatTemplate(gptOss));
  });

  it("a format hint leaves role channels to the format, as llama.cpp reports the analysis", () => {
    const muse = readFileSync(join(TEMPLATES_DIR, "muse-glimmer.jinja"), "utf8");
    expect(analyzeTemplate(muse, { format: { name: "muse-glimmer" } }).content).not.toEqual(
      analyzeTemplate(muse).content,
    );
  });

  it("probe conventions reach the probes", () => {
    const seen: unknown[] = [];
    analyzeTemplate(gptOss, { cache: false, format: { name: "x", probeMessages: (m) => (seen.push(m), [...m]) } });
    expect(seen.length).toBeGreaterThan(0);
  });

  it.each([
    [{ format: { name: "" } }, /options\.format must be null or/],
    [{ format: "gpt-oss" }, /options\.format must be null or/],
    [{ format: { name: "x", probeMessages: 1 } }, /probeMessages must be a function/],
  ])("rejects %j", (options, message) => {
    expect(() => analyzeTemplate(gptOss, options as never)).toThrow(message);
  });

  it("analyzeChatTemplate refuses a format of the caller's", () => {
    expect(() => analyzeChatTemplate(gptOss, { format: { name: "x" } } as never)).toThrow(/detected from the source/);
  });
});
