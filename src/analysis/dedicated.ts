/**
 * Templates whose format llama.cpp handles with a hand-written parser instead of the
 * generic analysis, recognised by substrings of the template source (checked in order,
 * first match wins, as llama.cpp does before running its autoparser).
 *
 * @example
 * detectDedicatedHandler(gptOssSource); // "gpt-oss"
 */
import type { DedicatedHandler } from "./types.js";

interface DedicatedRule {
  handler: DedicatedHandler;
  matches: (source: string) => boolean;
}

const has = (source: string, ...needles: string[]): boolean => needles.every((n) => source.includes(n));

const RULES: readonly DedicatedRule[] = [
  // Mistral Small 3.2 has [CALL_ID]; Ministral / Magistral 3 do not.
  { handler: "ministral-3", matches: (s) => has(s, "[SYSTEM_PROMPT]", "[TOOL_CALLS]", "[ARGS]") && !s.includes("[CALL_ID]") },
  { handler: "gpt-oss", matches: (s) => has(s, "<|channel|>") },
  { handler: "muse-glimmer", matches: (s) => has(s, "<atem:function_calls>", "<|eom|>") },
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the template source's own Jinja-like text
  { handler: "functionary-v3.2", matches: (s) => has(s, ">>>all", ">>>${recipient}") },
  { handler: "kimi-k2", matches: (s) => has(s, "<|tool_calls_section_begin|>", "<|tool_call_begin|>") },
  { handler: "kimi-k3", matches: (s) => has(s, "<|open|>", "<|close|>", "<|end_of_msg|>") },
  { handler: "ling-3", matches: (s) => has(s, "<role>ASSISTANT</role>", "<arg_key>") },
  { handler: "cohere2-moe", matches: (s) => has(s, "<|START_TEXT|>", "<|START_ACTION|>") },
  { handler: "lfm2", matches: (s) => has(s, "<|tool_list_start|>", "<|tool_list_end|>") },
  { handler: "lfm2.5", matches: (s) => has(s, "List of tools: [") && !s.includes("<|tool_list_start|>") },
  { handler: "gigachat-v3", matches: (s) => has(s, "<|role_sep|>", "<|message_sep|>") && !s.includes("<|function_call|>") },
  // The "]<]minimax[>[" namespace token collides with marker segmentation.
  { handler: "minimax-m3", matches: (s) => has(s, "]<]minimax[>[", "<tool_call>", "<invoke name=") },
  {
    handler: "deepseek-v3.2",
    matches: (s) => has(s, "dsml_token", "DSML") && (s.includes("function_calls") || s.includes("tool_calls")),
  },
  { handler: "gemma4", matches: (s) => has(s, "'<|tool_call>call:'") },
  { handler: "minicpm5", matches: (s) => has(s, "Tool usage guidelines:", '<function name="', '<param name="') },
  {
    handler: "qwen3-coder",
    matches: (s) => has(s, "<tool_call>", "<function=", "<parameter=") && !s.includes("'<tool_call><function=' ~ tool_call.name ~ '>'"),
  },
];

/** The dedicated handler llama.cpp would pick for this template source, or null. */
export function detectDedicatedHandler(source: string): DedicatedHandler | null {
  for (const rule of RULES) if (rule.matches(source)) return rule.handler;
  return null;
}
