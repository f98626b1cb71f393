// llama.cpp's chat-parser test suite as data (../shared/llama-test-chat/cases.jsonl): each case
// is a template, a request and a raw model output, with the message the output must parse into.
// This replays a case through toolwright's own params and parser, whole or streamed in chunks,
// and compares the message with llama.cpp's expectation.
import { isDeepStrictEqual } from "node:util";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  analyzeChatTemplate,
  ChatStreamParser,
  generateChatParams,
  type ChatParams,
  type ChatRequest,
} from "../../src/chat/index.js";
import { ChatTemplate } from "../../src/template/index.js";
import type { AssistantMessage, ChatMessage, JsonSchema, ToolDefinition } from "../../src/types.js";

const LLAMA_ROOT = fileURLToPath(new URL("../../deps/llama.cpp/", import.meta.url));

/** One case, with the fields of ../shared/README.md. */
export interface LlamaCase {
  id: number;
  template: string;
  line: number;
  input: string;
  is_partial: boolean;
  messages: ChatMessage[];
  tools: ToolDefinition[] | null;
  tool_choice: "auto" | "required" | "none";
  parallel_tool_calls: boolean;
  reasoning_format: "none" | "auto" | "deepseek";
  enable_thinking: boolean;
  add_generation_prompt: boolean;
  continue_final_message: "none" | "content" | "reasoning";
  json_schema: unknown;
  expect: {
    role: "assistant";
    content: string;
    reasoning_content: string;
    tool_calls: { name: string; arguments: string; id: string }[];
  };
}

/** Reads every case of a cases.jsonl file. */
export function loadLlamaCases(path: string): LlamaCase[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as LlamaCase);
}

const templates = new Map<string, { template: ChatTemplate; analysis: ReturnType<typeof analyzeChatTemplate> }>();

function templateOf(path: string) {
  let t = templates.get(path);
  if (!t) {
    const source = readFileSync(join(LLAMA_ROOT, path), "utf8");
    const template = new ChatTemplate(source, { compat: "auto" });
    t = { template, analysis: analyzeChatTemplate(source, { template }) };
    templates.set(path, t);
  }
  return t;
}

/** The toolwright request that asks what the case asks. */
export function requestOf(c: LlamaCase): ChatRequest {
  const req: ChatRequest = { messages: c.messages, enableThinking: c.enable_thinking };
  if (c.tools && c.tools.length > 0) {
    req.tools = c.tools;
    req.toolChoice = c.tool_choice;
    req.parallelToolCalls = c.parallel_tool_calls;
  }
  if (c.json_schema !== null && c.json_schema !== undefined)
    req.responseFormat = { type: "json_schema", json_schema: { schema: c.json_schema as JsonSchema } };
  if (c.reasoning_format === "none") req.reasoningFormat = "none";
  if (c.continue_final_message !== "none") req.continueFinalMessage = c.continue_final_message;
  else if (!c.add_generation_prompt) req.addGenerationPrompt = false;
  return req;
}

/** The params of a case's request. */
export function paramsOf(c: LlamaCase): ChatParams {
  const { template, analysis } = templateOf(c.template);
  return generateChatParams(analysis, template, requestOf(c));
}

/**
 * Parses the case's output with `chunks` as the cut points (empty: whole). A partial case is
 * not finished: its message is what the stream has parsed so far.
 */
export function replay(c: LlamaCase, params: ChatParams, cuts: number[] = []): AssistantMessage {
  const parser = new ChatStreamParser(params, { generateCallId: (i) => `generated-${i}` });
  let at = 0;
  for (const cut of [...cuts, c.input.length]) {
    parser.feed(c.input.slice(at, cut));
    at = cut;
  }
  if (!c.is_partial) parser.finish();
  return parser.message();
}

function text(v: unknown): string {
  if (typeof v === "string") return v;
  if (Array.isArray(v)) return v.map((p: { text?: string }) => p.text ?? "").join("");
  return "";
}

function parsed(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return { __unparseable: s };
  }
}

/** How a parsed message compares with the case's expectation. */
export type Verdict =
  | { kind: "exact" }
  /** Only leading/trailing whitespace of content or reasoning differs. */
  | { kind: "whitespace"; problems: string[] }
  /** Only call ids differ where the expectation has an id the output does not carry. */
  | { kind: "ids"; problems: string[] }
  | { kind: "differs"; problems: string[] };

/**
 * Compares `got` with the case's expectation: content and reasoning as strings, calls by name,
 * arguments as parsed JSON, ids where the expectation has one.
 */
export function judge(c: LlamaCase, got: AssistantMessage): Verdict {
  const want = c.expect;
  const hard: string[] = [];
  const ws: string[] = [];
  const ids: string[] = [];
  const field = (label: string, g: string, w: string) => {
    if (g === w) return;
    (g.trim() === w.trim() ? ws : hard).push(`${label} ${JSON.stringify(g)} instead of ${JSON.stringify(w)}`);
  };
  field("content", text(got.content), want.content);
  field("reasoning", text(got.reasoning_content), want.reasoning_content);
  const have = got.tool_calls ?? [];
  if (have.length !== want.tool_calls.length) hard.push(`${have.length} calls instead of ${want.tool_calls.length}`);
  want.tool_calls.forEach((w, i) => {
    const h = have[i];
    if (!h) return;
    if (h.function.name !== w.name) hard.push(`call ${i}: name ${h.function.name} instead of ${w.name}`);
    if (!isDeepStrictEqual(parsed(h.function.arguments), parsed(w.arguments)))
      hard.push(`call ${i}: arguments ${h.function.arguments} instead of ${w.arguments}`);
    if (w.id !== "" && h.id !== w.id)
      (c.input.includes(w.id) ? hard : ids).push(`call ${i}: id ${h.id} instead of ${w.id}`);
  });
  if (hard.length > 0) return { kind: "differs", problems: [...hard, ...ws, ...ids] };
  if (ws.length > 0) return { kind: "whitespace", problems: [...ws, ...ids] };
  if (ids.length > 0) return { kind: "ids", problems: ids };
  return { kind: "exact" };
}

/** Seeded cut points for a streamed replay: 1–8 character chunks. */
export function randomCuts(length: number, seed: number): number[] {
  let s = seed >>> 0 || 1;
  const next = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0), s);
  const cuts: number[] = [];
  for (let at = 1 + (next() % 8); at < length; at += 1 + (next() % 8)) cuts.push(at);
  return cuts;
}

/** A readable name for a case. */
export function caseLabel(c: LlamaCase): string {
  return `#${c.id} ${c.template.replace(/^models\/templates\//, "").replace(/\.jinja$/, "")} (test-chat.cpp:${c.line})`;
}
