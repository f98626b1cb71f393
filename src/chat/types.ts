/**
 * Shapes of the chat layer: what a chat request asks for, what {@link generateChatParams}
 * derives from it (prompt, parser, grammar, triggers), and what parsing yields (an OpenAI
 * assistant message, or streamed deltas of one).
 */
import type { NameEscapes } from "./name-escapes.js";
import type { PegArena, PegId } from "../peg/index.js";
import type { ChatMessage, ResponseFormat, ToolChoice, ToolDefinition } from "../types.js";
import type { ValueDialect } from "./json-normalizer.js";

/** A chat request, in OpenAI's terms. */
export interface ChatRequest {
  messages: ChatMessage[];
  tools?: ToolDefinition[];
  /** Default "auto" (when tools are given). */
  toolChoice?: ToolChoice;
  /** Allow more than one call per turn (default true where the template supports it). */
  parallelToolCalls?: boolean;
  /**
   * Most calls per turn the grammar lets the model write when calls are parallel (default 8),
   * so that a strict grammar always reaches its end. 1 is the same as `parallelToolCalls: false`.
   */
  maxToolCalls?: number;
  /** `json_schema` constrains the answer to JSON matching the schema. */
  responseFormat?: ResponseFormat;
  /**
   * Sets the template's `enable_thinking` when given. A template that switches thinking with another variable instead
   * (`reasoning_effort` for Tencent Hy3 and Solar Open, `thinking` for Kimi K3) gets the value its prompt turns
   * thinking on or off with, unless `extraContext` sets that variable.
   */
  enableThinking?: boolean;
  /** Extra template variables (e.g. `reasoning_effort`). */
  extraContext?: Record<string, unknown>;
  /**
   * Where the model's reasoning goes: "auto" (default) separates it into `reasoning_content`;
   * "none" leaves it inline in `content`, its markers included (llama.cpp's
   * `--reasoning-format none`). The grammar is the same either way.
   */
  reasoningFormat?: "auto" | "none";
  /**
   * Continue the final message (prefill), which must be an assistant message, instead of
   * opening a new turn: the prompt ends inside that message, and the output is parsed as its
   * continuation (the message returned holds the prefilled text too). `"reasoning"` continues
   * its reasoning, `"content"` its content; `true` picks reasoning when the message has
   * reasoning and no content, else content. (`model.chat()` continues in its first model turn only.)
   *
   * @example
   * const history = [user, { role: "assistant", content: "The capital of France is" }];
   * await model.chat({ messages: history, continueFinalMessage: true });
   */
  continueFinalMessage?: boolean | "content" | "reasoning";
  /**
   * Append the template's generation prompt (default true). `false` with a final assistant
   * message is the same as `continueFinalMessage: true` (transformers' convention); `false`
   * otherwise renders the conversation as it is, and the output continues it.
   */
  addGenerationPrompt?: boolean;
}

/**
 * What activates a lazy grammar: a word, a regex searched in the output (the grammar sees the
 * output from the first capture group, or from the match when there is none), or a token text.
 */
export type ChatGrammarTrigger =
  | { type: "word"; value: string }
  | { type: "pattern"; value: string }
  | { type: "token"; value: string };

/**
 * Which grammar one request generates under, decided once by {@link generateChatParams}; the
 * session only carries it out (`chatGrammar`, and when the reasoning budget closes reasoning).
 *
 *   - `none`: the output is unconstrained (no tools, no JSON schema, or no marker opens a call);
 *   - `lazy`: tool_choice "auto": the grammar starts at a trigger (the call section's marker);
 *     with `guard`, a trigger only counts after that word (the reasoning end, when the prompt
 *     opened reasoning), so reasoning is never constrained;
 *   - `after-reasoning`: a strict grammar deferred past reasoning the prompt opened: it starts
 *     with `reasoningEnd` itself, triggered by it;
 *   - `strict`: tool_choice "required" or a named tool (`constrains: "tool-calls"`), or a JSON
 *     answer (`"response-format"`), from the first token; `afterReasoning` is the grammar of what
 *     follows reasoning the model may open itself (null when it cannot).
 *
 * @example
 * import { generateChatParams } from "toolwright/chat";
 * const { grammarPlan } = generateChatParams(analysis, template, { messages, tools });
 * if (grammarPlan.kind === "lazy") console.log(grammarPlan.triggers); // [{ type: "word", value: "<tool_call>" }]
 */
export type GrammarPlan =
  | { kind: "none" }
  | { kind: "lazy"; gbnf: string; triggers: ChatGrammarTrigger[]; guard: string | null }
  | {
      kind: "after-reasoning";
      gbnf: string;
      triggers: ChatGrammarTrigger[];
      /** The reasoning end: the grammar's first words, and the trigger that starts it. */
      reasoningEnd: string;
    }
  | { kind: "strict"; gbnf: string; constrains: "tool-calls" | "response-format"; afterReasoning: string | null };

/** How the mapper turns the parse tree of one format into a message. */
export interface ChatMappingOptions {
  /** A call id written by the model comes after the function name: the call's first delta waits for it. */
  idAfterName: boolean;
  /** Ids written by the model are only template counters (e.g. "0"): generate real ones instead. */
  ignoreModelIds: boolean;
  /** Arguments use a non-JSON string / key syntax (read by the JSON normalizer). */
  valueDialect?: ValueDialect;
  /**
   * Tool and argument names are written with these escapes (Kimi K3 writes them as XML attribute values:
   * `&amp;`, `&quot;`): the mapper reads them back (name-escapes.ts). Absent: names are read as written.
   */
  nameEscapes?: NameEscapes;
  /**
   * Reasoning blocks are content, markers included (reasoningFormat "none"): the mapper reads a
   * `reasoning-block` node as content text.
   */
  reasoningInline?: boolean;
  /**
   * Reasoning blocks the model opens after content are reasoning (reasoning-in-content.ts): the content text is
   * split at these markers (and `resume`, the content opener, dropped right after a block's end). Absent: content
   * is content.
   */
  reasoningInContent?: { start: string; end: string; resume?: string };
  /**
   * Calls end with a closing marker (a `call-end` node): a call whose text stops before it is
   * one the model did not finish, and is content.
   */
  callEndRequired?: boolean;
  /**
   * Calls carry their arguments in a field of their own (JSON calls): a call written without
   * it (`{"name": "f"}`) is malformed, and its text is content. `"where-declared"`: such a call
   * is one with `{}` where its tool requires no argument (calls inside the format's markers).
   */
  argumentsRequired?: boolean | "where-declared";
  /**
   * The request reads one call (parallel calls off): after a call, a section's further text is content and no
   * reading goes on past it (see MessageMapper.closeStructures).
   */
  readsOneCall?: boolean;
  /** Each tool's parameter schema, by name: finished calls' arguments are checked against it. */
  toolParameters?: Record<string, unknown>;
  /**
   * A grammar makes the model finish every call it starts (a streamed, constrained generation):
   * a call of a declared tool is emitted as soon as its name is read, and its arguments as they
   * are written, as OpenAI streams them. Only a cut (token limit, abort, stop string) ends one early; it then
   * stays a call, its arguments as far as written. Off (the default), a call is emitted whole once
   * the model has finished it, and a call it did not finish is content.
   */
  streamCalls?: boolean;
}

/**
 * The parser of one chat request: a PEG definition plus how to feed and map it. The parser
 * reads `prefix + output` (the prefix is the part of the prompt the output continues, e.g. an
 * opened `<think>`).
 */
export interface ChatParserSpec {
  arena: PegArena;
  /** Root of the parser (reads prefix + output). */
  root: PegId;
  /**
   * Where reading starts again after text the parser could not place (content up to the next
   * call, then calls): the body after reasoning (for calls without markers, a body in which a
   * call may begin after text). Absent: `root`.
   */
  resumeRoot?: PegId;
  /** Text of the prompt that the output continues; parsed before the output. */
  prefix: string;
  /**
   * How much of the end of `prefix` belongs to the message (default 0): a continued message's
   * prefilled text, or the reasoning opener the prompt wrote when reasoning stays inline.
   */
  keptPrefix?: number;
  mapping: ChatMappingOptions;
  /**
   * The output ends at the first of these (the marker that closes the model's turn, where the
   * format uses it nowhere else): nothing from there on is parsed or shows in the message.
   */
  stopAt?: string[];
  /**
   * End-of-sequence texts (`</s>`): one that ends the output, whitespace aside, is dropped, as
   * models that write their end token as text mean it (src/chat/trailing-end.ts).
   */
  endTexts?: string[];
  /** Which builder made it: "generic" or a dedicated handler's name. */
  format: string;
}

/** Everything needed to run one chat request: prompt, parser, grammar. Plain data apart from the arena. */
export interface ChatParams {
  /** The rendered prompt, ending with the generation prompt. */
  prompt: string;
  /** The generation prompt alone (what the template appends to open the assistant turn). */
  generationPrompt: string;
  /**
   * The output continues the request's final message (continueFinalMessage): the parsed message
   * is that message continued, its prefilled text included, and takes its place in a history.
   */
  continuesFinalMessage: boolean;
  parser: ChatParserSpec;
  /** Which grammar applies and how: the fields `grammar` … `grammarAfterReasoning` are views of it. */
  grammarPlan: GrammarPlan;
  /** GBNF grammar from the parser definition, or null when output is unconstrained. */
  grammar: string | null;
  /** The grammar only applies from a trigger on (tool_choice auto, or deferred past reasoning). */
  grammarLazy: boolean;
  grammarTriggers: ChatGrammarTrigger[];
  /** Tokens the tokenizer must keep whole (format markers). */
  preservedTokens: string[];
  /** Stop strings beyond the model's end-of-generation tokens. */
  additionalStops: string[];
  /**
   * The prompt ends inside reasoning (e.g. with `<think>`): the output starts as reasoning, and
   * a strict grammar is deferred until `reasoningEnd` (it is then lazy, triggered by that word).
   */
  thinkingForcedOpen: boolean;
  /** The marker that ends reasoning (trimmed), or null when the format has none. */
  reasoningEnd: string | null;
  /**
   * The marker with which the model opens reasoning itself (trimmed), or null: the runtime
   * counts reasoning tokens from it for the reasoning budget.
   */
  reasoningStart: string | null;
  /**
   * The strict grammar of what follows the reasoning, when the grammar is strict and the model
   * may open reasoning itself: once the reasoning budget closes reasoning, generation goes on
   * under it. Null otherwise.
   */
  grammarAfterReasoning: string | null;
}

/** One streamed piece of a tool call, as in OpenAI's `delta.tool_calls`. */
export interface ToolCallDelta {
  index: number;
  id?: string;
  type?: "function";
  function: { name?: string; arguments?: string };
}

/** One streamed delta of the assistant message, as in OpenAI's `choices[0].delta`. */
export interface ChatDelta {
  content?: string;
  reasoning_content?: string;
  tool_calls?: ToolCallDelta[];
}

/** Options of the chat parsers. */
export interface ChatParseOptions {
  /** Makes ids for calls the model wrote none for (default: 9 random letters and digits). */
  generateCallId?: (index: number) => string;
}
