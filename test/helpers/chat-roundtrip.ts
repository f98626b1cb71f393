// Round-trip material for the chat parser tests: every template that renders tool calls, the
// assistant turns to render through it, and the "generated part" of each (what a model would
// have written after the prompt), obtained by rendering the conversation with and without the
// final assistant turn.
import { isDeepStrictEqual } from "node:util";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { TemplateAnalysis } from "../../src/analysis/index.js";
import { analyzeChatTemplate, generateChatParams } from "../../src/chat/index.js";
import { prepareMessages } from "../../src/chat/messages.js";
import { withThinkingSwitch } from "../../src/chat/thinking-switch.js";
import { ChatTemplate } from "../../src/template/index.js";
import type { AssistantMessage, ChatMessage, ToolDefinition } from "../../src/types.js";
import type { ChatParams, ChatRequest } from "../../src/chat/index.js";
import { TEMPLATES_DIR } from "./analysis-oracle.js";

export const TOOLS: ToolDefinition[] = [
  {
    type: "function",
    function: {
      name: "get_weather",
      description: "Current weather in a city",
      parameters: {
        type: "object",
        properties: {
          city: { type: "string", description: "City name" },
          days: { type: "integer", description: "Days ahead" },
        },
        required: ["city"],
      },
    },
  },
  {
    type: "function",
    function: {
      name: "record",
      description: "Store values of every JSON type",
      parameters: {
        type: "object",
        properties: {
          text: { type: "string", description: "A string" },
          count: { type: "number", description: "A number" },
          flag: { type: "boolean", description: "A boolean" },
          // additionalProperties / items spelled out: Command R+ renders parameter types from them.
          meta: { type: "object", description: "An object", additionalProperties: {} },
          items: { type: "array", description: "An array", items: {} },
        },
        required: ["text"],
      },
    },
  },
];

export const USER: ChatMessage = { role: "user", content: "What is the weather in Paris?" };
const call = (id: string, name: string, args: Record<string, unknown>) => ({
  id,
  type: "function" as const,
  function: { name, arguments: JSON.stringify(args) },
});

/** A scenario: the assistant turn rendered through the template and expected back. */
export interface Scenario {
  name: string;
  message: AssistantMessage;
  /** Needs a template that renders two calls in one turn. */
  parallel?: boolean;
  enableThinking?: boolean;
  /** Ask for reasoning through reasoning_effort too (templates that read it). */
  reasoningEffort?: boolean;
}

export const TRICKY_STRING = 'He said "hi" & it\'s fine\n\tnext line — 日本語 ✓ 😀 \\ back';

export const SCENARIOS: Scenario[] = [
  {
    name: "reasoning and content",
    message: { role: "assistant", content: "The answer is 4.", reasoning_content: "Two plus two is four." },
    enableThinking: true,
    reasoningEffort: true,
  },
  {
    name: "one call",
    message: { role: "assistant", content: "", tool_calls: [call("call12345", "get_weather", { city: "Paris" })] },
  },
  {
    name: "two parallel calls",
    parallel: true,
    message: {
      role: "assistant",
      content: "",
      tool_calls: [
        call("call12345", "get_weather", { city: "Paris" }),
        call("call67890", "get_weather", { city: "Tokyo", days: 3 }),
      ],
    },
  },
  {
    name: "arguments of every type",
    message: {
      role: "assistant",
      content: "",
      tool_calls: [
        call("call24680", "record", {
          text: "plain",
          count: 3.5,
          flag: true,
          meta: { k: [1, 2], z: null },
          items: ["x", { y: 1 }],
        }),
      ],
    },
  },
  {
    name: "unicode, quotes, newlines",
    message: { role: "assistant", content: "", tool_calls: [call("call13579", "record", { text: TRICKY_STRING })] },
  },
];

/**
 * Round trips that fail, and why: formats toolwright cannot parse yet, or templates that lose
 * part of the message when rendering it. Checked to still fail, so an entry goes stale once the
 * round trip works. None left: every scenario round-trips on every tool template.
 */
export const KNOWN_FAILURES: Record<string, { scenarios: string[]; reason: string }> = {};

/**
 * Templates that cannot express a null argument, and why. Their round trips use the arguments
 * the template can express (see {@link scenarioFor}); chat-minimax-m3.test.ts checks what the
 * template renders for null and how the parser reads it.
 */
export const NULL_NOT_EXPRESSIBLE: Record<string, string> = {
  "MiniMax-M3.jinja":
    "The template leaves null members out by design (its comment: `<key>null</key>` would read back as the " +
    'string "null", so the convention is to omit the field) and renders a null array ' +
    "item as an empty <item>, the same as an empty string.",
};

/** The value without its null object members (what a template that omits them can carry). */
export function withoutNullMembers(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNullMembers);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => [k, withoutNullMembers(v)]),
  );
}

/**
 * The scenario as `t` can render it: for templates in {@link NULL_NOT_EXPRESSIBLE}, the calls'
 * arguments lose their null members (everything else stays, so the round trip still checks
 * every other type).
 */
export function scenarioFor(t: { name: string }, s: Scenario): Scenario {
  if (!(t.name in NULL_NOT_EXPRESSIBLE) || !s.message.tool_calls) return s;
  const tool_calls = s.message.tool_calls.map((c) => ({
    ...c,
    function: { ...c.function, arguments: JSON.stringify(withoutNullMembers(JSON.parse(c.function.arguments))) },
  }));
  return { ...s, message: { ...s.message, tool_calls } };
}

/**
 * The clock templates see: fixed, so templates that render the time (Hunyuan's date line) render
 * the prompt and the full conversation alike when a second passes between the two.
 */
const fixedNow = (): Date => new Date(2025, 0, 15, 10, 30, 0);

/** A template with everything a round trip needs. */
export interface TemplateCase {
  name: string;
  source: string;
  template: ChatTemplate;
  analysis: TemplateAnalysis;
}

/**
 * Every template in `dir` (llama.cpp's test templates by default) whose caps say it renders
 * tool calls. Templates are rendered in compat "auto" mode (strict Python Jinja2, and
 * llama.cpp's relaxations only where strict raises), as the analysis renders them: that is how
 * the Kimi-K2 templates (list.append) and firefunction-v2 / llama-cpp-deepseek-r1 (undefined
 * variables) render tool calls at all. `only` picks templates by file name before they are
 * analysed (a file that needs a few templates does not pay for analysing all of them). Each
 * template is analysed once per module instance (test files that share a worker share it).
 */
export function toolTemplates(
  dir: string = TEMPLATES_DIR,
  only: (name: string) => boolean = () => true,
): TemplateCase[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".jinja") && only(f))
    .sort()
    .map((name) => toolTemplate(join(dir, name), name))
    .filter((t) => t !== null);
}

const analysed = new Map<string, TemplateCase | null>();

/** The template at `path` with its analysis, or null when it renders no tool calls. */
function toolTemplate(path: string, name: string): TemplateCase | null {
  let t = analysed.get(path);
  if (t === undefined) {
    const source = readFileSync(path, "utf8");
    const template = new ChatTemplate(source, { compat: "auto", now: fixedNow });
    t = template.caps.supportsToolCalls
      ? { name, source, template, analysis: analyzeChatTemplate(source, { template }) }
      : null;
    analysed.set(path, t);
  }
  return t;
}

function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** The text a template writes after an assistant turn's content (its end-of-turn marker), trimmed. */
function turnEnd(t: TemplateCase, tools: ToolDefinition[]): string {
  const sentinel = "ZQX_END_SENTINEL";
  try {
    const r = t.template.render({
      messages: [USER, { role: "assistant", content: sentinel }],
      tools,
      addGenerationPrompt: false,
    });
    const at = r.lastIndexOf(sentinel);
    return at < 0 ? "" : r.slice(at + sentinel.length).trim();
  } catch {
    return "";
  }
}

/** Reasoning efforts asked for, most wanted first: templates accept different sets of names. */
const REASONING_EFFORTS = ["high", "xhigh", "max", "medium"];
const effortOf = new WeakMap<TemplateCase, string>();

/** The first of {@link REASONING_EFFORTS} the template renders a prompt with (it may raise on others). */
function reasoningEffort(t: TemplateCase): string {
  let effort = effortOf.get(t);
  if (effort === undefined) {
    effort =
      REASONING_EFFORTS.find((e) => {
        try {
          t.template.render({
            messages: [USER],
            tools: TOOLS,
            addGenerationPrompt: true,
            extraContext: { reasoning_effort: e },
          });
          return true;
        } catch {
          return false;
        }
      }) ?? REASONING_EFFORTS[0]!;
    effortOf.set(t, effort);
  }
  return effort;
}

/** Template variables a scenario sets. */
export function extraContext(t: TemplateCase, s: Scenario): Record<string, unknown> | undefined {
  return s.reasoningEffort && t.template.caps.supportsReasoningEffort
    ? { reasoning_effort: reasoningEffort(t) }
    : undefined;
}

/**
 * The request parameters of a scenario on a template: the user's turn, the tools, its thinking and effort, and
 * `more` (a tool choice).
 */
export function scenarioParams(t: TemplateCase, s: Scenario, more: Partial<ChatRequest> = {}): ChatParams {
  return generateChatParams(t.analysis, t.template, {
    messages: [USER],
    tools: TOOLS,
    ...more,
    enableThinking: s.enableThinking,
    extraContext: extraContext(t, s),
  });
}

/** Every marker of the format (kept when stripping the end of a turn). */
function formatMarkers(t: TemplateCase, params: ChatParams): string[] {
  const a = t.analysis;
  const tools = a.tools;
  // Dedicated formats list their markers; generic ones have them in the analysis (its preserved
  // tokens are not used: they also hold end-of-turn tokens some templates render).
  if (params.parser.format !== "generic") return params.preservedTokens;
  const all = [
    a.reasoning.start,
    a.reasoning.end,
    a.content.start,
    a.content.end,
    tools.format.sectionStart,
    tools.format.sectionEnd,
    tools.format.perCallStart,
    tools.format.perCallEnd,
    tools.function.close,
    tools.arguments.valueSuffix,
  ];
  return all.map((m) => m.trim()).filter((m) => m !== "");
}

const TRAILING_MARKER = /<[^<>\s"{}]*>$|\[[^[\]\s"{}]*\]$/;

/**
 * What the model would have generated for `message` after the prompt: the rendered turn minus
 * the generation prompt, without what follows the model's end-of-generation token.
 *
 * Templates that need care:
 *  - the history turn may differ from "generation prompt + output" (the prompt opens reasoning
 *    the history does not show, or a marker is split): the output starts where the two part,
 *    moved back to the start of a marker;
 *  - the prompt forces reasoning open but the turn renders none: the model's output then first
 *    closes the (empty) reasoning;
 *  - after the end-of-turn token some templates render more (Command R7B opens a new turn,
 *    DeepSeek R1 Distill repeats the assistant header): trailing markers that are not format
 *    markers are dropped, as are the end-of-turn text and whitespace.
 */
export function generatedPart(
  t: TemplateCase,
  s: Scenario,
  params: ChatParams,
  tools: ToolDefinition[] = TOOLS,
): { output: string } | { error: string } {
  const messages = prepareMessages(t.analysis, [USER, s.message]);
  // The template variables the request's params were rendered with (enableThinking may set one, thinking-switch.ts).
  const request = { messages, enableThinking: s.enableThinking, extraContext: extraContext(t, s) };
  const context = withThinkingSwitch(t.template, t.analysis, request).extraContext;
  let full: string;
  try {
    full = t.template.render({ ...request, tools, addGenerationPrompt: false, extraContext: context });
  } catch (e) {
    return { error: (e as Error).message };
  }
  const prompt = params.prompt;
  let at = commonPrefix(prompt, full);
  if (at < prompt.length) {
    const before = prompt.slice(0, at);
    const open = Math.max(before.lastIndexOf("<"), before.lastIndexOf("["));
    const close = Math.max(before.lastIndexOf(">"), before.lastIndexOf("]"));
    if (open > close) at = open;
  }
  let output = full.slice(at);
  // What the prompt already ends with is not generated again (Command R+ renders the turn
  // header of a history turn where the prompt has it).
  for (let k = Math.min(output.length, prompt.length); k > 0; k--) {
    const overlap = output.slice(0, k);
    if (/[<[]/.test(overlap) && prompt.endsWith(overlap)) {
      output = output.slice(k);
      break;
    }
  }
  const end = params.reasoningEnd;
  if (params.thinkingForcedOpen && end !== null && !output.includes(end)) output = end + output;
  // The prompt already closed reasoning but the history turn renders the closing marker alone.
  if (end !== null && params.parser.prefix.includes(end) && output.trimStart().startsWith(end))
    output = output.trimStart().slice(end.length);
  const keep = formatMarkers(t, params);
  // The end-of-turn token: the first marker after a turn's content that the format does not use.
  const tail = turnEnd(t, tools);
  const eot =
    (tail.match(/<[^<>\s"{}]*>|\[[^[\]\s"{}]*\]/g) ?? []).find((m) => !keep.some((k) => k.includes(m))) ??
    (/[<[]/.test(tail) ? "" : tail);
  const cutAt = eot === "" ? -1 : output.indexOf(eot);
  if (cutAt >= 0) output = output.slice(0, cutAt);
  for (let changed = true; changed; ) {
    changed = false;
    const trimmed = output.trimEnd();
    if (trimmed !== output) {
      output = trimmed;
      changed = true;
    }
    if (tail !== "" && output.endsWith(tail) && !keep.includes(tail)) {
      output = output.slice(0, output.length - tail.length);
      changed = true;
    }
    const m = TRAILING_MARKER.exec(output);
    if (m && !keep.some((k) => k.includes(m[0]))) {
      output = output.slice(0, m.index);
      changed = true;
    }
  }
  return { output };
}

function parseArgs(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return { __unparseable: s };
  }
}

/**
 * Differences between the message a scenario rendered and the one parsed back: texts compared
 * trimmed, arguments as parsed JSON, ids only where the rendered output carries them, and
 * reasoning only where the template rendered it.
 */
export function messageDifferences(expected: AssistantMessage, got: AssistantMessage, output: string): string[] {
  const problems: string[] = [];
  const text = (v: unknown): string => (typeof v === "string" ? v.trim() : "");
  if (text(got.content) !== text(expected.content))
    problems.push(`content ${JSON.stringify(got.content)} instead of ${JSON.stringify(expected.content)}`);
  const wantReasoning =
    typeof expected.reasoning_content === "string" && output.includes(expected.reasoning_content)
      ? expected.reasoning_content
      : "";
  if (text(got.reasoning_content) !== text(wantReasoning))
    problems.push(`reasoning ${JSON.stringify(got.reasoning_content)} instead of ${JSON.stringify(wantReasoning)}`);
  const want = expected.tool_calls ?? [];
  const have = got.tool_calls ?? [];
  if (have.length !== want.length) problems.push(`${have.length} calls instead of ${want.length}`);
  want.forEach((w, i) => {
    const h = have[i];
    if (!h) return;
    if (h.function.name !== w.function.name)
      problems.push(`call ${i}: name ${h.function.name} instead of ${w.function.name}`);
    const args = parseArgs(h.function.arguments);
    if (!isDeepStrictEqual(args, JSON.parse(w.function.arguments)))
      problems.push(`call ${i}: arguments ${h.function.arguments} instead of ${w.function.arguments}`);
    if (output.includes(w.id) && h.id !== w.id) problems.push(`call ${i}: id ${h.id} instead of ${w.id}`);
  });
  return problems;
}
