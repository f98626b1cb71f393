/**
 * Validation of chat() options: each mistake throws a TypeError or RangeError that names the
 * option and shows what was given, before any work starts.
 */
import { checkMessages } from "../chat/request.js";
import { parametersJsonSchema } from "../chat/tool-schema.js";
import { CONTEXT_OPTION_KEYS } from "../runtime/context.js";
import { SAMPLING_KEYS } from "../runtime/sampling.js";
import {
  checkKeys,
  checkObject,
  checkString,
  describe,
  optBoolean,
  optInteger,
  optSignal,
  optStringArray,
} from "../validate/index.js";
import type { ContextOverflow } from "./context-fit.js";
import type { ChatOptions, ChatTool } from "./types.js";

/** Checked options with defaults filled in. */
export interface PlannedChat {
  options: ChatOptions;
  tools: ChatTool[];
  maxTokens: number;
  maxSteps: number;
  stop: string[];
  signal: AbortSignal | undefined;
  reasoningBudget: number | undefined;
  grammarEngine: string | undefined;
  /** Constrain decoding with the derived grammar (false: the output is only parsed). */
  grammar: boolean;
  /** The context size asked for: a number, "auto", or undefined (keep the session's context). */
  contextSize: number | "auto" | undefined;
  /** What to do when the prompt does not fit the context; undefined: the session's choice. */
  contextOverflow: ContextOverflow | undefined;
  /** "chat" or "streamChat": the prefix of error messages. */
  where: string;
}

const KNOWN = [
  "messages",
  "tools",
  "toolChoice",
  "parallelToolCalls",
  "responseFormat",
  "enableThinking",
  "extraContext",
  "sampling",
  "maxTokens",
  "stop",
  "signal",
  "template",
  "maxSteps",
  "reasoningBudget",
  "maxReasoningTokens",
  "maxToolCalls",
  "grammarEngine",
  "grammar",
  "reasoningFormat",
  "continueFinalMessage",
  "addGenerationPrompt",
  "contextSize",
  "contextOverflow",
];

const OVERFLOWS: readonly string[] = ["error", "truncate-oldest"];

/** Checks a `contextOverflow` option. */
function optOverflow(value: unknown, name: string): ContextOverflow | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || !OVERFLOWS.includes(value))
    throw new RangeError(`${name} must be "error" or "truncate-oldest", got ${describe(value)}`);
  return value as ContextOverflow;
}

/** Checks a `contextSize` option: a positive integer or "auto". */
function optContextSize(value: unknown, name: string): number | "auto" | undefined {
  if (value === "auto") return value;
  if (typeof value === "string")
    throw new RangeError(`${name} must be a number of tokens or "auto", got ${describe(value)}`);
  return optInteger(value, name, 1, 1 << 24);
}

/** The keys of {@link ChatSessionOptions}. */
export const SESSION_OPTION_KEYS: readonly string[] = ["context", "grammarEngine", "contextOverflow"];

/**
 * Checks `new ChatSession(model, options)`'s options (and the context options in them).
 *
 * @example
 * checkSessionOptions({ context: { contextSize: 4096 } });
 */
export function checkSessionOptions(options: unknown): void {
  const o = checkObject(options, "ChatSession: options");
  checkKeys(o, SESSION_OPTION_KEYS, "ChatSession: options");
  if (o.context !== undefined)
    checkKeys(
      checkObject(o.context, "ChatSession: options.context"),
      CONTEXT_OPTION_KEYS,
      "ChatSession: options.context",
    );
  if (o.grammarEngine !== undefined) checkString(o.grammarEngine, "ChatSession: options.grammarEngine");
  optOverflow(o.contextOverflow, "ChatSession: options.contextOverflow");
}

function checkTools(value: unknown, where: string): ChatTool[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new TypeError(`${where}: options.tools must be an array, got ${describe(value)}`);
  return value.map((t: unknown, i) => {
    const tool = checkObject(t, `${where}: options.tools[${i}]`) as unknown as ChatTool;
    if (tool.type !== "function" || tool.function === null || typeof tool.function !== "object") {
      throw new TypeError(`${where}: options.tools[${i}] must be {type: "function", function: {name, parameters}}`);
    }
    checkKeys(
      tool as unknown as Record<string, unknown>,
      ["type", "function", "execute"],
      `${where}: options.tools[${i}]`,
    );
    checkKeys(
      tool.function as unknown as Record<string, unknown>,
      ["name", "description", "parameters", "strict"],
      `${where}: options.tools[${i}].function`,
    );
    checkString(tool.function.name, `${where}: options.tools[${i}].function.name`);
    // A schema library's object becomes JSON Schema here (once per object), or a TypeError names it.
    if (tool.function.parameters !== undefined)
      parametersJsonSchema(tool.function.parameters, `${where}: options.tools[${i}].function.parameters`);
    // null: not set (OpenAI's SDK types allow it).
    if (tool.function.strict !== null)
      optBoolean(tool.function.strict, `${where}: options.tools[${i}].function.strict`);
    if (tool.execute !== undefined && typeof tool.execute !== "function") {
      throw new TypeError(`${where}: options.tools[${i}].execute must be a function, got ${describe(tool.execute)}`);
    }
    return tool;
  });
}

/**
 * A responseFormat's schema, checked (a schema library's object converted, once per object) as tools' parameters are.
 */
function checkResponseFormatSchema(format: Record<string, unknown>, where: string): void {
  if (format.type === "json_object" && format.schema !== undefined)
    parametersJsonSchema(format.schema, `${where}: options.responseFormat.schema`);
  const spec = format.json_schema;
  if (format.type !== "json_schema" || spec === null || typeof spec !== "object") return;
  const schema = (spec as Record<string, unknown>).schema;
  if (schema !== undefined) parametersJsonSchema(schema, `${where}: options.responseFormat.json_schema.schema`);
}

/**
 * Checks chat() options. `where` prefixes the messages ("chat" or "streamChat").
 *
 * @example
 * planChat({ messages: [{ role: "user", content: "Hi" }], maxTokens: 64 }, "chat").maxTokens; // 64
 */
export function planChat(value: unknown, where: string): PlannedChat {
  if (value === undefined || value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new TypeError(`${where}: options must be an object, got ${describe(value)}`);
  }
  const o = value as Record<string, unknown>;
  checkKeys(o, KNOWN, `${where}: options`);
  if (!Array.isArray(o.messages))
    throw new TypeError(`${where}: options.messages must be an array of messages, got ${describe(o.messages)}`);
  if (o.messages.length === 0) throw new RangeError(`${where}: options.messages must not be empty`);
  checkMessages(o.messages, `${where}: options`);
  const tools = checkTools(o.tools, where);
  optBoolean(o.parallelToolCalls, `${where}: options.parallelToolCalls`);
  optBoolean(o.enableThinking, `${where}: options.enableThinking`);
  if (o.extraContext !== undefined) checkObject(o.extraContext, `${where}: options.extraContext`);
  if (o.reasoningFormat !== undefined && o.reasoningFormat !== "auto" && o.reasoningFormat !== "none") {
    throw new RangeError(
      `${where}: options.reasoningFormat must be "auto" or "none", got ${describe(o.reasoningFormat)}`,
    );
  }
  const cont = o.continueFinalMessage;
  if (cont !== undefined && typeof cont !== "boolean" && cont !== "content" && cont !== "reasoning") {
    throw new TypeError(
      `${where}: options.continueFinalMessage must be a boolean, "content" or "reasoning", got ${describe(cont)}`,
    );
  }
  optBoolean(o.addGenerationPrompt, `${where}: options.addGenerationPrompt`);
  if (o.sampling !== undefined)
    checkKeys(checkObject(o.sampling, `${where}: options.sampling`), SAMPLING_KEYS, `${where}: options.sampling`);
  if (o.template !== undefined) {
    checkString(o.template, `${where}: options.template`);
    if ((o.template as string).trim() === "") throw new RangeError(`${where}: options.template must not be empty`);
  }
  if (o.responseFormat !== undefined)
    checkResponseFormatSchema(checkObject(o.responseFormat, `${where}: options.responseFormat`), where);
  const stop = optStringArray(o.stop, `${where}: options.stop`) ?? [];
  stop.forEach((s, i) => {
    if (s === "") throw new RangeError(`${where}: options.stop[${i}] must not be empty`);
  });
  const budget = optInteger(o.reasoningBudget, `${where}: options.reasoningBudget`, 0, 2 ** 31 - 1);
  const budgetAlias = optInteger(o.maxReasoningTokens, `${where}: options.maxReasoningTokens`, 0, 2 ** 31 - 1);
  if (budget !== undefined && budgetAlias !== undefined && budget !== budgetAlias) {
    throw new RangeError(
      `${where}: options.reasoningBudget (${budget}) and options.maxReasoningTokens (${budgetAlias}) ` +
        `disagree; give one`,
    );
  }
  optInteger(o.maxToolCalls, `${where}: options.maxToolCalls`, 1, 1 << 16);
  const grammarEngine =
    o.grammarEngine === undefined ? undefined : checkString(o.grammarEngine, `${where}: options.grammarEngine`);
  const anyExecute = tools.some((t) => t.execute !== undefined);
  return {
    options: o as unknown as ChatOptions,
    tools,
    maxTokens: optInteger(o.maxTokens, `${where}: options.maxTokens`, 1, 2 ** 31 - 1) ?? 1024,
    maxSteps: optInteger(o.maxSteps, `${where}: options.maxSteps`, 1, 1 << 16) ?? (anyExecute ? 8 : 1),
    stop,
    signal: optSignal(o.signal, `${where}: options.signal`),
    reasoningBudget: budget ?? budgetAlias,
    grammarEngine,
    grammar: optBoolean(o.grammar, `${where}: options.grammar`) ?? true,
    contextSize: optContextSize(o.contextSize, `${where}: options.contextSize`),
    contextOverflow: optOverflow(o.contextOverflow, `${where}: options.contextOverflow`),
    where,
  };
}
