/**
 * Post-analysis corrections for templates whose renderings mislead the differential
 * analysis. A table keyed on template features: each row names the template family, the
 * source substrings (and analysis state) that identify it, and the fields it sets. Rows
 * apply in order, after preserved tokens are collected; they match llama.cpp's
 * workaround list so both end up with the same analysis. A row applies only where its
 * result passes the evidence checks of workaround-evidence.ts: shared prologues do not
 * carry a family's fix onto templates of another format.
 *
 * @example
 * applyWorkarounds(source, analysis); // Granite 3.3 gets <think>/<response> markers
 */
import { trimWhitespace } from "./bytes.js";
import type { TemplateAnalysis } from "./types.js";
import { workaroundProblem } from "./workaround-evidence.js";

export interface Workaround {
  /** The template family the row fixes. */
  name: string;
  /** Source substrings that must all be present. */
  features: readonly string[];
  /** Extra condition on the source or the analysis so far. */
  when?: (source: string, a: TemplateAnalysis) => boolean;
  apply: (a: TemplateAnalysis) => void;
  /**
   * Marker pieces (tags) the diffing finds on this family's templates that the row drops on
   * purpose (the renderings mislead the diff about them); dropping any other vetoes the row.
   */
  overrides?: readonly string[];
}

function setReasoningTags(a: TemplateAnalysis, start: string, end: string): void {
  a.reasoning.mode = "TAG_BASED";
  a.reasoning.start = start;
  a.reasoning.end = end;
  a.preservedTokens.push(start, end);
}

function setThinkTags(a: TemplateAnalysis): void {
  setReasoningTags(a, "<think>", "</think>");
}

export const WORKAROUNDS: readonly Workaround[] = [
  {
    // Old Qwen / DeepSeek reasoning templates strip reasoning from history, so nothing renders it.
    name: "old Qwen/DeepSeek thinking template",
    features: ["content.split('</think>')"],
    when: (s, a) => !s.includes("reasoning_content") && !s.includes("<SPECIAL_12>") && a.reasoning.mode === "NONE",
    apply: setThinkTags,
  },
  {
    // Granite 3.3 only describes its markers in the system prompt.
    name: "Granite 3.3",
    features: ["Write your thoughts between <think></think> and write your response between <response></response>"],
    apply: (a) => {
      setThinkTags(a);
      a.content.mode = "WRAPPED_WITH_REASONING";
      a.content.start = "<response>";
      a.content.end = "</response>";
      a.preservedTokens.push("<response>", "</response>");
    },
  },
  {
    name: "Cohere Command R+",
    features: ["<|CHATBOT_TOKEN|>", "<|END_OF_TURN_TOKEN|>"],
    when: (_s, a) => a.content.start === "",
    apply: (a) => {
      a.content.mode = "ALWAYS_WRAPPED";
      a.content.start = "<|CHATBOT_TOKEN|>";
      a.content.end = "<|END_OF_TURN_TOKEN|>";
      a.preservedTokens.push("<|CHATBOT_TOKEN|>", "<|END_OF_TURN_TOKEN|>");
      a.userStart = "<|START_OF_TURN_TOKEN|><|USER_TOKEN|>";
    },
  },
  {
    // Functionary 3.1 writes calls as bare <function=NAME>{...}</function> with no section marker.
    name: "Functionary 3.1",
    features: [
      'set has_code_interpreter = tools | selectattr("type", "equalto", "code_interpreter") | list | length > 0',
    ],
    apply: (a) => {
      const t = a.tools;
      a.content.mode = "PLAIN";
      a.content.end = "";
      t.function.namePrefix = "";
      t.format.sectionStart = "";
      t.format.sectionEnd = "";
      t.format.perCallStart = "<function=";
      t.format.perCallEnd = "</function>";
      t.function.close = "";
      a.preservedTokens = ["<|eot_id|>", "<|eom_id|>", "<function=", ">", "</function>"];
    },
  },
  {
    name: "DeepSeek-R1-Distill-Qwen",
    // The end of a history turn renders right after the arguments' fence.
    overrides: ["<｜end▁of▁sentence｜>"],
    features: ["{{'<｜Assistant｜><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>' + tool['type'] + '<｜tool▁sep｜>'"],
    apply: (a) => {
      const t = a.tools;
      t.format.sectionStart = "<｜tool▁calls▁begin｜>";
      t.format.sectionEnd = "<｜tool▁calls▁end｜>";
      t.format.perCallStart = "<｜tool▁call▁begin｜>function";
      t.function.namePrefix = "<｜tool▁sep｜>";
      t.format.perCallEnd = "<｜tool▁call▁end｜>";
      t.function.close = "```";
    },
  },
  {
    name: "Nemotron Nano v2",
    // The turn separator the renderings show around calls; the format needs none.
    overrides: ["<SPECIAL_12>"],
    features: ["<SPECIAL_10>", "<SPECIAL_11>", "<SPECIAL_12>", "<TOOL_RESPONSE>"],
    apply: (a) => {
      const f = a.tools.format;
      f.mode = "JSON_NATIVE";
      f.sectionStart = "";
      f.sectionEnd = "";
      f.perCallStart = "<TOOLCALL>";
      f.perCallEnd = "</TOOLCALL>";
      f.toolsArrayWrapped = true;
      a.content.mode = "PLAIN";
      a.content.start = "";
      a.content.end = "";
      a.reasoning.mode = "TAG_BASED";
      a.reasoning.start = "<think>\n";
      a.reasoning.end = "</think>";
      a.assistantStart = "<SPECIAL_11>Assistant";
      a.userStart = "<SPECIAL_11>User";
      a.preservedTokens = ["<SPECIAL_11>", "</think>", "<TOOLCALL>", "</TOOLCALL>"];
    },
  },
  {
    name: "Fireworks FireFunction v2",
    features: [
      "{%- set system_prompt = '<|start_header_id|>' + 'system' + '<|end_header_id|>\\n\\n' + " +
        "message['content'] | trim + '\\n' + system_prompt_suffix + '<|eot_id|>' -%}",
    ],
    apply: (a) => {
      a.assistantStart = "<|start_header_id|>assistant<|end_header_id|>";
      a.userStart = "<|start_header_id|>user<|end_header_id|>";
    },
  },
  {
    // Solar Open thinks in a message of its own (`<|think|>…<|end|>`), then opens the answer's
    // message (`<|begin|>assistant<|content|>…`); the renderings show reasoning only for history.
    name: "Solar Open",
    features: ["<|begin|>assistant<|think|><|end|>"],
    apply: (a) => {
      a.assistantStart = "<|begin|>assistant";
      a.reasoning = { mode: "TAG_BASED", start: "<|think|>", end: "<|end|><|begin|>assistant" };
      a.preservedTokens.push("<|think|>", "<|begin|>");
    },
  },
  {
    name: "Apriel 1.6",
    features: ["if not loop.last and '[BEGIN FINAL RESPONSE]' in asst_text"],
    apply: (a) => {
      a.userStart = "<|begin_user|>";
      a.assistantStart = "<|begin_assistant|>";
    },
  },
  {
    // The prompt asks for {"name", "parameters"} but models answer with the OpenAI wrapper.
    name: "JSON name/parameters tool instruction",
    features: ['Respond in the format {"name": function name', "Do not use variables."],
    apply: (a) => {
      a.tools.format.openaiWrapperTrigger = true;
    },
  },
  {
    // Laguna renders "<think>\n" and "</arg_value>\n" with formatting newlines the model never emits.
    name: "Laguna",
    features: ["laguna_glm_thinking"],
    apply: (a) => {
      const args = a.tools.arguments;
      a.reasoning.start = trimWhitespace(a.reasoning.start);
      a.reasoning.end = trimWhitespace(a.reasoning.end);
      args.valuePrefix = trimWhitespace(args.valuePrefix);
      args.valueSuffix = trimWhitespace(args.valueSuffix);
      args.separator = trimWhitespace(args.separator);
      args.tolerateIntertagWhitespace = true;
      // The end-of-turn tag may be spelled out in text tokens after tool calls.
      a.additionalStops.push("</assistant>");
    },
  },
  {
    // Apertus renders reasoning only from content "blocks" of type "thoughts", a message shape the probes do not
    // send, between the inner markers its models write (`<|inner_prefix|>…<|inner_suffix|>answer`).
    name: "Apertus",
    features: ["{%- set inner_token = '<|inner_prefix|>' -%}", "{%- set outer_token = '<|inner_suffix|>' -%}"],
    when: (_s, a) => a.reasoning.mode === "NONE",
    apply: (a) => setReasoningTags(a, "<|inner_prefix|>", "<|inner_suffix|>"),
  },
  {
    name: "Bailing V3",
    features: ["Bailing V3 chat template"],
    apply: (a) => {
      a.tools.arguments.valueSuffix = trimWhitespace(a.tools.arguments.valueSuffix);
      a.tools.arguments.tolerateIntertagWhitespace = true;
    },
  },
];

/**
 * Applies every matching row, in order, whose result passes {@link workaroundProblem} (the
 * markers it sets are in the source, and it keeps every marker the diffing found but those it
 * `overrides`); returns the names of the rows applied.
 */
export function applyWorkarounds(source: string, analysis: TemplateAnalysis): string[] {
  const applied: string[] = [];
  for (const w of WORKAROUNDS) {
    if (!w.features.every((f) => source.includes(f))) continue;
    if (w.when && !w.when(source, analysis)) continue;
    // Applied to a copy: a row whose result fails the checks leaves the analysis as it was.
    const corrected = structuredClone(analysis);
    w.apply(corrected);
    if (workaroundProblem(source, analysis, corrected, w.overrides) !== null) continue;
    Object.assign(analysis, corrected);
    applied.push(w.name);
  }
  return applied;
}
