/**
 * The result of analysing a chat template: plain, JSON-serialisable data describing how a
 * model writes reasoning, content and tool calls. Parser and grammar generators read it.
 * Field meanings follow llama.cpp's autoparser (seed document 004) so the two can be
 * compared field by field; names are camelCase.
 *
 * @example
 * const a: TemplateAnalysis = analyzeTemplate(source);
 * if (a.tools.format.mode === "TAG_WITH_TAGGED") console.log(a.tools.arguments.namePrefix);
 */
import type { RenderMode, TemplateCaps } from "../template/types.js";

/** How reasoning is delimited. */
export type ReasoningMode =
  /** No reasoning markers found. */
  | "NONE"
  /** `start` + reasoning + `end`; `start` may be empty (delimiter style) or sit in the prompt. */
  | "TAG_BASED"
  /** Reasoning is only rendered on turns that call tools. */
  | "TOOLS_ONLY";

/** How assistant content is wrapped. */
export type ContentMode = "PLAIN" | "ALWAYS_WRAPPED" | "WRAPPED_WITH_REASONING";

/** How tool calls are written. */
export type ToolFormatMode =
  /** No tool calls detected. */
  | "NONE"
  /** The whole call is JSON: `{"name": ..., "arguments": {...}}`. */
  | "JSON_NATIVE"
  /** Name in tags, arguments as one JSON object: `<function=X>{...}</function>`. */
  | "TAG_WITH_JSON"
  /** Name and each argument in tags: `<param=key>value</param>`. */
  | "TAG_WITH_TAGGED"
  /**
   * Python call expressions with keyword arguments, `[get_weather(city='Paris'), get_time()]`,
   * values as Python literals; the list may sit inside wrapper markers (section markers). toolwright
   * addition: llama.cpp reads these templates with dedicated handlers or as TAG_WITH_TAGGED.
   */
  | "PYTHONIC";

/** Where a call id is written in tag-based formats. */
export type CallIdPosition = "NONE" | "PRE_FUNC_NAME" | "BETWEEN_FUNC_AND_ARGS" | "POST_ARGS";

/**
 * A dedicated format the caller recognised in the template (see `AnalyzeOptions.format`): llama.cpp
 * routes such templates to a hand-written handler; the analysis still runs and is reported.
 */
export interface AnalysisFormatHint {
  /** The family's name, reported as `dedicatedHandler` (e.g. "gpt-oss"). */
  name: string;
  /** Rewrites each probe conversation's messages the way the family's templates expect them. */
  probeMessages?: <M extends object>(messages: readonly M[]) => M[];
}

export interface ReasoningAnalysis {
  mode: ReasoningMode;
  /** e.g. "<think>", "" when reasoning starts without a marker. */
  start: string;
  /** e.g. "</think>", "[BEGIN FINAL RESPONSE]". */
  end: string;
}

export interface ContentAnalysis {
  mode: ContentMode;
  /** e.g. "<response>", "". */
  start: string;
  /** e.g. "</response>", "". */
  end: string;
  requiresNonNullContent: boolean;
}

export interface ToolFormatAnalysis {
  mode: ToolFormatMode;
  /** Opens the whole tool-call section, e.g. "<tool_call>", "[TOOL_CALLS]". */
  sectionStart: string;
  sectionEnd: string;
  /** Opens each call when calls are individually wrapped. */
  perCallStart: string;
  perCallEnd: string;
  /** JSON: the function name is the object key, `{"get_weather": {...}}`. */
  funNameIsKey: boolean;
  /** JSON / PYTHONIC: calls are wrapped in a list `[...]`. */
  toolsArrayWrapped: boolean;
  /**
   * Arguments are rendered as Python dicts (single-quoted strings) or Python literals (PYTHONIC). toolwright addition.
   */
  usesPythonDicts: boolean;
  /** The model may also emit the OpenAI `{"type": "function", ...}` wrapper. */
  openaiWrapperTrigger: boolean;
  /** JSON: key of the nested function object ("function"). */
  functionField: string;
  /** JSON: key (dotted path) of the function name ("name"). */
  nameField: string;
  /** JSON: key (dotted path) of the arguments ("arguments"). */
  argsField: string;
  /** JSON: key of a string call id ("id"), "" when none. */
  idField: string;
  /** JSON: key of a generated call id, "" when none. */
  genIdField: string;
  /** JSON: order of the fields above as rendered. */
  parameterOrder: string[];
  /**
   * JSON: an opener the prompt's instructions teach for a list of calls (`functools[{"name": …}]`,
   * Phi-4-mini) where the history renders bare calls; calls may come either way. "" when none.
   * toolwright addition.
   */
  taughtListStart: string;
}

export interface ToolFunctionAnalysis {
  /** Before the function name, e.g. "<function=". */
  namePrefix: string;
  /** After the function name, e.g. ">". */
  nameSuffix: string;
  /** Marker between the name and the arguments, e.g. "<tool_sep>". */
  argsSeparator: string;
  /** Closes one call, e.g. "</function>". */
  close: string;
}

export interface ToolArgumentsAnalysis {
  /** Opens the argument block. */
  start: string;
  end: string;
  /** Tagged arguments: before the argument name, e.g. "<param=". */
  namePrefix: string;
  nameSuffix: string;
  /** Tagged arguments: before / after the value. */
  valuePrefix: string;
  valueSuffix: string;
  /** Between two arguments. */
  separator: string;
  /** Accept whitespace between argument tags. */
  tolerateIntertagWhitespace: boolean;
}

export interface ToolCallIdAnalysis {
  position: CallIdPosition;
  prefix: string;
  suffix: string;
}

export interface ToolsAnalysis {
  format: ToolFormatAnalysis;
  function: ToolFunctionAnalysis;
  arguments: ToolArgumentsAnalysis;
  callId: ToolCallIdAnalysis;
}

/** Everything the analysis found out about one template. */
export interface TemplateAnalysis {
  reasoning: ReasoningAnalysis;
  content: ContentAnalysis;
  tools: ToolsAnalysis;
  /** Capability flags detected from the template. */
  caps: TemplateCaps;
  /** Marker that opens a user turn, e.g. "<|im_start|>user". */
  userStart: string;
  /** Marker that opens an assistant turn, e.g. "<|im_start|>assistant". */
  assistantStart: string;
  /**
   * Marker that closes an assistant turn, e.g. "<|im_end|>", "" when the template writes none
   * (or only the EOS token). The output ends there: it never shows in the message.
   */
  assistantEnd: string;
  /** Every non-empty marker, trimmed, once: tokens the tokenizer must keep whole. */
  preservedTokens: string[];
  /** Literal stop strings beyond the model's end-of-generation tokens. */
  additionalStops: string[];
  /**
   * The family llama.cpp would use a hand-written handler for (`AnalyzeOptions.format`, as
   * toolwright/chat's `analyzeChatTemplate` detects it), or null.
   */
  dedicatedHandler: string | null;
  /**
   * "lenient" when ordinary conversations (the capability probes: a user turn, a system turn, a
   * tool-call exchange, reasoning history) only render with llama.cpp's relaxations
   * (src/template/compat.ts): prompts for this template need a `compat: "auto"` (or "lenient")
   * ChatTemplate. "strict" when transformers' rules suffice. (In auto mode a few edge probes, e.g.
   * an empty conversation, may still render leniently for strict templates, as in llama.cpp.)
   */
  renderMode: RenderMode;
}
