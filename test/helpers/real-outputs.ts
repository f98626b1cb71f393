/**
 * The row runner of the real-output tables (test/unit/chat-real-outputs-*.test.ts): what models
 * really write, beyond what their templates render (docs/reading-output.md). Each row is one
 * shape of the superset the parser reads, or one rule for what is never a call, checked whole and
 * in chunks of every size from 1 to 7 (the deltas add up to the message each time).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  ChatStreamParser,
  accumulateDeltas,
  analyzeChatTemplate,
  generateChatParams,
  parseChatOutput,
  type ChatParams,
} from "../../src/chat/index.js";
import { ChatTemplate } from "../../src/template/index.js";
import type { AssistantMessage, ToolDefinition } from "../../src/types.js";
import { TEMPLATES_DIR } from "./analysis-oracle.js";

const tool = (name: string, properties: Record<string, object>, required: string[] = []): ToolDefinition => ({
  type: "function",
  function: {
    name,
    description: `The ${name} tool.`,
    parameters: { type: "object", properties, ...(required.length > 0 ? { required } : {}) },
  },
});
/** The tools every row's request declares (`annotate`: an untyped argument it requires). */
const TOOLS = [
  tool("get_weather", { city: { type: "string" }, count: { type: "integer" }, todos: { type: "array" } }),
  tool("search", { q: { type: "string" } }),
  tool("submit", {}),
  tool("annotate", { body: {}, flag: { type: "boolean" } }, ["body"]),
];

const cache = new Map<string, ChatParams>();
function paramsOf(template: string): ChatParams {
  let p = cache.get(template);
  if (!p) {
    const source = readFileSync(join(TEMPLATES_DIR, template), "utf8");
    const t = new ChatTemplate(source, { compat: "auto" });
    p = generateChatParams(analyzeChatTemplate(source, { template: t }), t, {
      messages: [{ role: "user", content: "Help" }],
      tools: TOOLS,
    });
    cache.set(template, p);
  }
  return p;
}

/** The calls and content a row expects (ids are not compared); arguments that are not JSON as their text. */
export interface Want {
  calls: [string, object | string][];
  content: string | null;
}

/** One shape; `ids`: the call ids expected where the model wrote them (else ids are not compared). */
export interface RealOutputRow {
  name: string;
  /** A template of llama.cpp's models/templates. */
  template: string;
  output: string;
  want: Want;
  ids?: string[];
}

export const LLAMA = "meta-llama-Llama-3.2-3B-Instruct.jinja";
export const GLM = "GLM-4.7-Flash.jinja";
export const GLM46 = "GLM-4.6.jinja";
export const CODER = "Qwen3-Coder.jinja";
export const DSV4 = "deepseek-ai-DeepSeek-V4.jinja";
export const GPT_OSS = "openai-gpt-oss-120b.jinja";
export const LFM2 = "LFM2-8B-A1B.jinja";
export const QWEN = "Qwen-Qwen3-0.6B.jinja";
export const KIMI = "moonshotai-Kimi-K2.jinja";
export const GEMMA4 = "google-gemma-4-31B-it.jinja";
export const MINIMAX = "MiniMax-M3.jinja";
export const MINISTRAL = "mistralai-Ministral-3-14B-Reasoning-2512.jinja";
export const DEVSTRAL = "unsloth-mistral-Devstral-Small-2507.jinja";
export const HY3 = "tencent-Hy3.jinja";
export const COHERE2 = "Cohere2MoE.jinja";
export const QWEN25 = "Qwen-Qwen2.5-7B-Instruct.jinja";

/** A markerless JSON call, as Llama 3.2 writes one. */
export const WEATHER = '{"name": "get_weather", "parameters": {"city": "Paris"}}';

function jsonOrText(text: string): object | string {
  try {
    return JSON.parse(text) as object;
  } catch {
    return text;
  }
}

function shape(m: AssistantMessage): Want {
  return {
    calls: (m.tool_calls ?? []).map((c) => [c.function.name, jsonOrText(c.function.arguments)]),
    content: typeof m.content === "string" && m.content !== "" ? m.content : null,
  };
}

/** A test per row: the output read whole, then streamed in chunks of 1 to 7 characters, gives `want`. */
export function describeRealOutputs(title: string, rows: RealOutputRow[]): void {
  describe(title, () => {
    it.each(rows)("$name", ({ template, output, want, ids }) => {
      const params = paramsOf(template);
      const whole = parseChatOutput(params, output, { generateCallId: (i) => `c${i}` });
      expect(shape(whole)).toEqual(want);
      if (ids !== undefined) expect((whole.tool_calls ?? []).map((c) => c.id)).toEqual(ids);
      for (let size = 1; size <= 7; size++) {
        const s = new ChatStreamParser(params, { generateCallId: (i) => `c${i}` });
        const deltas = [];
        for (let i = 0; i < output.length; i += size) deltas.push(...s.feed(output.slice(i, i + size)));
        deltas.push(...s.finish());
        expect(s.message(), `chunks of ${size}`).toEqual(whole);
        expect(accumulateDeltas(deltas), `deltas, chunks of ${size}`).toEqual(whole);
      }
    });
  });
}
