/**
 * OpenAI chat-completion parameters → the options of `model.chat()`. The one request mapping of
 * the OpenAI surface: the in-process client and the HTTP server both go through it, and
 * `model.chat()` checks what it produces, so there is no second implementation of a request.
 * What toolwright cannot honour (n > 1, audio, images outside user messages, logprobs, custom
 * tools) fails here with an OpenAI-style 400 that names the parameter.
 */
import type { ChatOptions, ChatTool } from "../session/index.js";
import type { SamplingOptions } from "../runtime/index.js";
import type { ChatMessage, ContentPart, ImageUrlPart, ResponseFormat, ToolChoice } from "../types.js";
import { closestName, describe } from "../validate/index.js";
import { invalid, unsupported } from "./errors.js";

/** A request mapped to chat options, with what the response needs to know. */
export interface MappedRequest {
  options: ChatOptions;
  stream: boolean;
  /** `stream_options.include_usage`: a last chunk carries the usage. */
  includeUsage: boolean;
  /** The `model` the request named. */
  model: string;
}

/** Limits the caller (the server) puts on requests. */
export interface RequestLimits {
  /** The most tokens a request may ask for; also the default when it asks for none. */
  maxTokens?: number;
}

/** Parameters OpenAI documents that toolwright reads. */
const HANDLED = [
  "messages",
  "model",
  "stream",
  "stream_options",
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "response_format",
  "max_tokens",
  "max_completion_tokens",
  "temperature",
  "top_p",
  "seed",
  "stop",
  "presence_penalty",
  "frequency_penalty",
  "reasoning_effort",
  "n",
  "audio",
  "modalities",
  "logprobs",
  "top_logprobs",
  "logit_bias",
  "functions",
  "function_call",
  "web_search_options",
  // llama-server's extensions
  "chat_template_kwargs",
  "top_k",
  "min_p",
];
/** Parameters that only inform OpenAI's service (billing, storage, caching, routing): accepted, without effect. */
const INFORMATIONAL = [
  "user",
  "metadata",
  "store",
  "service_tier",
  "prompt_cache_key",
  "prompt_cache_options",
  "prompt_cache_retention",
  "safety_identifier",
  "prediction",
  "verbosity",
  "moderation",
];
const KNOWN = [...HANDLED, ...INFORMATIONAL];

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);
const given = (v: unknown) => v !== undefined && v !== null;

function number(v: unknown, param: string, min: number, max: number, integer = false): number | undefined {
  if (!given(v)) return undefined;
  if (typeof v !== "number" || !Number.isFinite(v) || (integer && !Number.isInteger(v)))
    throw invalid(
      param,
      `Invalid type for '${param}': expected ${integer ? "an integer" : "a number"}, but got ${describe(v)}.`,
    );
  if (v < min || v > max) throw invalid(param, `Invalid '${param}': ${v} is out of range [${min}, ${max}].`);
  return v;
}

function textOf(parts: unknown, param: string, allowRefusal: boolean): string | ContentPart[] {
  return partsOf(parts, param, allowRefusal, false) as string | ContentPart[];
}

/** A user message's content: text, and images (`image_url` parts: data URLs, file paths, file: URLs). */
function userContentOf(parts: unknown, param: string): string | (ContentPart | ImageUrlPart)[] {
  return partsOf(parts, param, false, true);
}

function imageUrlOf(p: Record<string, unknown>, at: string): ImageUrlPart {
  const image = p.image_url;
  if (!isObject(image) || typeof image.url !== "string" || image.url === "")
    throw invalid(`${at}.image_url.url`, `Invalid '${at}.image_url.url': expected a URL string.`);
  return { type: "image_url", image_url: { url: image.url } };
}

function partsOf(
  parts: unknown,
  param: string,
  allowRefusal: boolean,
  allowImages: boolean,
): string | (ContentPart | ImageUrlPart)[] {
  if (typeof parts === "string") return parts;
  if (!Array.isArray(parts))
    throw invalid(
      param,
      `Invalid type for '${param}': expected a string or an array of content parts, but got ${describe(parts)}.`,
    );
  return parts.map((p: unknown, j): ContentPart | ImageUrlPart => {
    const at = `${param}[${j}]`;
    if (!isObject(p))
      throw invalid(at, `Invalid type for '${at}': expected a content part object, but got ${describe(p)}.`);
    if (p.type === "text" && typeof p.text === "string") return { type: "text", text: p.text };
    if (allowRefusal && p.type === "refusal" && typeof p.refusal === "string") return { type: "text", text: p.refusal };
    if (p.type === "image_url" && allowImages) return imageUrlOf(p, at);
    if (p.type === "image_url")
      throw invalid(at, `Invalid content part '${at}': images are read in user messages only.`);
    if (p.type === "input_audio")
      throw unsupported(
        at,
        `Invalid content part '${at}': audio input is not supported: toolwright reads text and images.`,
      );
    if (p.type === "file")
      throw unsupported(
        at,
        `Invalid content part '${at}': file input is not supported: send images as image_url parts.`,
      );
    throw invalid(
      at,
      `Invalid content part '${at}': type ${JSON.stringify(p.type)} is not one of ` +
        `"text"${allowRefusal ? ', "refusal"' : ""}.`,
    );
  });
}

function toolCallsOf(
  calls: unknown,
  param: string,
): NonNullable<Extract<ChatMessage, { role: "assistant" }>["tool_calls"]> | undefined {
  if (!given(calls)) return undefined;
  if (!Array.isArray(calls))
    throw invalid(param, `Invalid type for '${param}': expected an array, but got ${describe(calls)}.`);
  return calls.map((c: unknown, j) => {
    const at = `${param}[${j}]`;
    if (!isObject(c))
      throw invalid(at, `Invalid type for '${at}': expected a tool call object, but got ${describe(c)}.`);
    if (c.type === "custom")
      throw unsupported(
        `${at}.type`,
        `Invalid '${at}.type': custom tool calls are not supported; only "function" tools are.`,
      );
    const fn = c.function;
    if (!isObject(fn) || typeof fn.name !== "string")
      throw invalid(`${at}.function`, `Invalid '${at}.function': expected {name, arguments}.`);
    if (typeof c.id !== "string") throw invalid(`${at}.id`, `Missing required parameter: '${at}.id'.`);
    const args = typeof fn.arguments === "string" ? fn.arguments : JSON.stringify(fn.arguments ?? {});
    return { id: c.id, type: "function" as const, function: { name: fn.name, arguments: args } };
  });
}

/** OpenAI message params → toolwright messages (same roles and shapes; non-text parts refused). */
function messagesOf(value: unknown): ChatMessage[] {
  if (!Array.isArray(value))
    throw invalid(
      "messages",
      `Invalid type for 'messages': expected an array of messages, but got ${describe(value)}.`,
    );
  if (value.length === 0)
    throw invalid("messages", "Invalid 'messages': empty array. Expected an array with minimum length 1.");
  return value.map((m: unknown, i): ChatMessage => {
    const at = `messages[${i}]`;
    if (!isObject(m)) throw invalid(at, `Invalid type for '${at}': expected a message object, but got ${describe(m)}.`);
    const content = `${at}.content`;
    switch (m.role) {
      case "system":
      case "developer":
        return { role: m.role, content: textOf(m.content, content, false) };
      case "user":
        return { role: "user", content: userContentOf(m.content, content) };
      case "assistant": {
        if (given(m.audio)) throw unsupported(`${at}.audio`, `Invalid '${at}.audio': toolwright does not take audio.`);
        if (given(m.function_call))
          throw unsupported(
            `${at}.function_call`,
            `Invalid '${at}.function_call': the deprecated function_call is not supported; use tool_calls.`,
          );
        const calls = toolCallsOf(m.tool_calls, `${at}.tool_calls`);
        const out: ChatMessage = {
          role: "assistant",
          content: given(m.content) ? textOf(m.content, content, true) : null,
        };
        if (calls && calls.length > 0) out.tool_calls = calls;
        if (typeof m.reasoning_content === "string") out.reasoning_content = m.reasoning_content;
        return out;
      }
      case "tool":
        if (typeof m.tool_call_id !== "string")
          throw invalid(`${at}.tool_call_id`, `Missing required parameter: '${at}.tool_call_id'.`);
        return { role: "tool", content: textOf(m.content, content, false), tool_call_id: m.tool_call_id };
      case "function":
        throw unsupported(
          `${at}.role`,
          `Invalid '${at}.role': the deprecated "function" role is not supported; use "tool".`,
        );
      default:
        throw invalid(
          `${at}.role`,
          `Invalid value for '${at}.role': ${JSON.stringify(m.role)}. Supported values are: "system", ` +
            `"developer", "user", "assistant" and "tool".`,
        );
    }
  });
}

function toolsOf(value: unknown): ChatTool[] {
  if (!given(value)) return [];
  if (!Array.isArray(value))
    throw invalid("tools", `Invalid type for 'tools': expected an array, but got ${describe(value)}.`);
  return value.map((t: unknown, i): ChatTool => {
    const at = `tools[${i}]`;
    if (!isObject(t)) throw invalid(at, `Invalid type for '${at}': expected a tool object, but got ${describe(t)}.`);
    if (t.type === "custom")
      throw unsupported(
        `${at}.type`,
        `Invalid '${at}.type': custom tools are not supported; only "function" tools are.`,
      );
    if (t.type !== "function")
      throw invalid(
        `${at}.type`,
        `Invalid value for '${at}.type': ${JSON.stringify(t.type)}. Supported values are: "function".`,
      );
    const fn = t.function;
    if (!isObject(fn) || typeof fn.name !== "string" || fn.name === "")
      throw invalid(`${at}.function.name`, `Missing required parameter: '${at}.function.name'.`);
    const out: ChatTool = { type: "function", function: { name: fn.name } };
    if (typeof fn.description === "string") out.function.description = fn.description;
    if (given(fn.parameters)) {
      if (!isObject(fn.parameters))
        throw invalid(
          `${at}.function.parameters`,
          `Invalid type for '${at}.function.parameters': expected a JSON Schema object, but got ` +
            `${describe(fn.parameters)}.`,
        );
      out.function.parameters = fn.parameters;
    }
    // strict: null means "not set" (OpenAI's SDK types allow it).
    if (typeof fn.strict === "boolean") out.function.strict = fn.strict;
    return out;
  });
}

/** tool_choice, with `allowed_tools` narrowing the tools the model sees. */
function toolChoiceOf(value: unknown, tools: ChatTool[]): { toolChoice?: ToolChoice; tools: ChatTool[] } {
  if (!given(value)) return { tools };
  if (value === "auto" || value === "none" || value === "required") return { toolChoice: value, tools };
  const named = (name: unknown, param: string) => {
    if (typeof name !== "string") throw invalid(param, `Missing required parameter: '${param}'.`);
    if (!tools.some((t) => t.function.name === name))
      throw invalid(param, `Invalid value for '${param}': no function named ${JSON.stringify(name)} in 'tools'.`);
    return name;
  };
  if (isObject(value)) {
    if (value.type === "function" && isObject(value.function))
      return {
        toolChoice: { type: "function", function: { name: named(value.function.name, "tool_choice.function.name") } },
        tools,
      };
    if (value.type === "custom")
      throw unsupported(
        "tool_choice",
        "Invalid 'tool_choice': custom tools are not supported; only \"function\" tools are.",
      );
    if (value.type === "allowed_tools" && isObject(value.allowed_tools)) {
      const { mode, tools: allowed } = value.allowed_tools;
      if (mode !== "auto" && mode !== "required")
        throw invalid(
          "tool_choice.allowed_tools.mode",
          `Invalid value for 'tool_choice.allowed_tools.mode': ${JSON.stringify(mode)}. Supported values are: ` +
            `"auto" and "required".`,
        );
      if (!Array.isArray(allowed))
        throw invalid(
          "tool_choice.allowed_tools.tools",
          "Missing required parameter: 'tool_choice.allowed_tools.tools'.",
        );
      const names = new Set(
        allowed.map((a: unknown, j) =>
          named(
            isObject(a) && isObject(a.function) ? a.function.name : undefined,
            `tool_choice.allowed_tools.tools[${j}].function.name`,
          ),
        ),
      );
      return { toolChoice: mode, tools: tools.filter((t) => names.has(t.function.name)) };
    }
  }
  throw invalid(
    "tool_choice",
    `Invalid value for 'tool_choice': ${JSON.stringify(value)?.slice(0, 80)}. Supported values are: "none", ` +
      `"auto", "required", {type: "function", function: {name}} and {type: ` +
      `"allowed_tools", allowed_tools}.`,
  );
}

function responseFormatOf(value: unknown): ResponseFormat | undefined {
  if (!given(value)) return undefined;
  if (!isObject(value))
    throw invalid(
      "response_format",
      `Invalid type for 'response_format': expected an object, but got ${describe(value)}.`,
    );
  if (value.type === "text") return { type: "text" };
  if (value.type === "json_object") return { type: "json_object" };
  if (value.type === "json_schema") {
    const js = value.json_schema;
    if (!isObject(js))
      throw invalid("response_format.json_schema", "Missing required parameter: 'response_format.json_schema'.");
    const schema = js.schema ?? {};
    if (!isObject(schema) && typeof schema !== "boolean")
      throw invalid(
        "response_format.json_schema.schema",
        `Invalid type for 'response_format.json_schema.schema': expected a JSON Schema object, but got ` +
          `${describe(schema)}.`,
      );
    return {
      type: "json_schema",
      json_schema: {
        ...(typeof js.name === "string" ? { name: js.name } : {}),
        schema,
        ...(typeof js.strict === "boolean" ? { strict: js.strict } : {}),
      },
    };
  }
  throw invalid(
    "response_format.type",
    `Invalid value for 'response_format.type': ${JSON.stringify(value.type)}. Supported values are: "text", ` +
      `"json_object" and "json_schema".`,
  );
}

function stopOf(value: unknown): string[] | undefined {
  if (!given(value)) return undefined;
  const list = typeof value === "string" ? [value] : value;
  if (!Array.isArray(list) || list.some((s) => typeof s !== "string"))
    throw invalid(
      "stop",
      `Invalid type for 'stop': expected a string or an array of strings, but got ${describe(value)}.`,
    );
  return (list as string[]).filter((s) => s !== "");
}

function refuseUnsupported(p: Record<string, unknown>): void {
  if (given(p.n) && p.n !== 1)
    throw unsupported(
      "n",
      `Invalid 'n': ${JSON.stringify(p.n)}: toolwright generates one choice per request; n must be 1.`,
    );
  if (given(p.audio))
    throw unsupported("audio", "Invalid 'audio': audio output is not supported: this model writes text only.");
  if (Array.isArray(p.modalities) && p.modalities.some((m) => m !== "text"))
    throw unsupported(
      "modalities",
      `Invalid 'modalities': ${JSON.stringify(p.modalities)}: this model writes text only.`,
    );
  if (p.logprobs === true)
    throw unsupported("logprobs", "Invalid 'logprobs': log probabilities are not supported by toolwright.");
  if (given(p.top_logprobs) && p.top_logprobs !== 0)
    throw unsupported("top_logprobs", "Invalid 'top_logprobs': log probabilities are not supported by toolwright.");
  if (isObject(p.logit_bias) && Object.keys(p.logit_bias).length > 0)
    throw unsupported("logit_bias", "Invalid 'logit_bias': logit bias is not supported by toolwright.");
  if (given(p.functions) || given(p.function_call))
    throw unsupported(
      given(p.functions) ? "functions" : "function_call",
      "The deprecated 'functions' and 'function_call' are not supported; use 'tools' and 'tool_choice'.",
    );
  if (given(p.web_search_options))
    throw unsupported("web_search_options", "Invalid 'web_search_options': web search is not supported by toolwright.");
}

function maxTokensOf(p: Record<string, unknown>, limits: RequestLimits): number | undefined {
  const a = number(p.max_tokens, "max_tokens", 1, 2 ** 31 - 1, true);
  const b = number(p.max_completion_tokens, "max_completion_tokens", 1, 2 ** 31 - 1, true);
  if (a !== undefined && b !== undefined && a !== b)
    throw invalid("max_tokens", `'max_tokens' (${a}) and 'max_completion_tokens' (${b}) disagree; give one.`);
  const asked = b ?? a;
  const limit = limits.maxTokens;
  if (limit !== undefined && asked !== undefined && asked > limit) {
    throw invalid(
      b !== undefined ? "max_completion_tokens" : "max_tokens",
      `Invalid '${b !== undefined ? "max_completion_tokens" : "max_tokens"}': ${asked} is more than this ` +
        `server allows (${limit}).`,
    );
  }
  return asked ?? limit;
}

/**
 * Maps OpenAI chat-completion parameters (parsed JSON or typed) to `model.chat()` options.
 *
 * @throws {ChatCompletionError} a 400 naming the parameter that is wrong or not supported.
 * @example
 * const { options, stream } = toChatOptions({
 *   model: "local",
 *   messages: [{ role: "user", content: "Hi" }],
 *   max_tokens: 32,
 * });
 * const result = await model.chat(options);
 */
export function toChatOptions(params: unknown, limits: RequestLimits = {}): MappedRequest {
  if (!isObject(params)) throw invalid(null, `The request body must be a JSON object, got ${describe(params)}.`);
  for (const key of Object.keys(params)) {
    if (KNOWN.includes(key)) continue;
    const hint = closestName(key, KNOWN);
    throw invalid(key, `Unrecognized request argument supplied: ${key}${hint ? ` (did you mean '${hint}'?)` : ""}`);
  }
  refuseUnsupported(params);
  if (typeof params.model !== "string") throw invalid("model", "Missing required parameter: 'model'.");
  const stream = params.stream === true;
  if (given(params.stream) && typeof params.stream !== "boolean")
    throw invalid("stream", `Invalid type for 'stream': expected a boolean, but got ${describe(params.stream)}.`);
  const streamOptions = params.stream_options;
  if (given(streamOptions) && !stream)
    throw invalid("stream_options", "Invalid 'stream_options': only allowed when 'stream' is true.");
  const includeUsage = isObject(streamOptions) && streamOptions.include_usage === true;

  const choice = toolChoiceOf(params.tool_choice, toolsOf(params.tools));
  const sampling: SamplingOptions = {};
  const set = <K extends keyof SamplingOptions>(key: K, v: SamplingOptions[K] | undefined) => {
    if (v !== undefined) sampling[key] = v;
  };
  set("temperature", number(params.temperature, "temperature", 0, 2));
  set("topP", number(params.top_p, "top_p", 0, 1));
  set("presencePenalty", number(params.presence_penalty, "presence_penalty", -2, 2));
  set("frequencyPenalty", number(params.frequency_penalty, "frequency_penalty", -2, 2));
  set("topK", number(params.top_k, "top_k", 0, 2 ** 31 - 1, true));
  set("minP", number(params.min_p, "min_p", 0, 1));
  // OpenAI's seeds are any integer; the sampler takes 0 … 2^32-2.
  const seed = number(params.seed, "seed", Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, true);
  if (seed !== undefined) sampling.seed = ((seed % 0xffffffff) + 0xffffffff) % 0xffffffff;

  const extraContext: Record<string, unknown> = {};
  if (given(params.chat_template_kwargs)) {
    if (!isObject(params.chat_template_kwargs))
      throw invalid(
        "chat_template_kwargs",
        `Invalid type for 'chat_template_kwargs': expected an object, but got ` +
          `${describe(params.chat_template_kwargs)}.`,
      );
    Object.assign(extraContext, params.chat_template_kwargs);
  }
  const effort = params.reasoning_effort;
  if (given(effort)) {
    if (typeof effort !== "string")
      throw invalid(
        "reasoning_effort",
        `Invalid type for 'reasoning_effort': expected a string, but got ${describe(effort)}.`,
      );
    extraContext.reasoning_effort = effort;
  }
  // reasoning_effort "none" asks for no reasoning, any other effort for reasoning (templates that
  // can turn thinking on or off do); chat_template_kwargs.enable_thinking says so directly.
  const enableThinking =
    typeof extraContext.enable_thinking === "boolean"
      ? extraContext.enable_thinking
      : given(effort)
        ? effort !== "none"
        : undefined;
  const maxTokens = maxTokensOf(params, limits);
  const stop = stopOf(params.stop);
  const responseFormat = responseFormatOf(params.response_format);
  if (given(params.parallel_tool_calls) && typeof params.parallel_tool_calls !== "boolean") {
    throw invalid(
      "parallel_tool_calls",
      `Invalid type for 'parallel_tool_calls': expected a boolean, but got ${describe(params.parallel_tool_calls)}.`,
    );
  }
  const options: ChatOptions = {
    messages: messagesOf(params.messages),
    ...(choice.tools.length > 0 ? { tools: choice.tools } : {}),
    ...(choice.toolChoice !== undefined ? { toolChoice: choice.toolChoice } : {}),
    ...(typeof params.parallel_tool_calls === "boolean" ? { parallelToolCalls: params.parallel_tool_calls } : {}),
    ...(responseFormat !== undefined ? { responseFormat } : {}),
    ...(Object.keys(sampling).length > 0 ? { sampling } : {}),
    ...(maxTokens !== undefined ? { maxTokens } : {}),
    ...(stop !== undefined && stop.length > 0 ? { stop } : {}),
    ...(Object.keys(extraContext).length > 0 ? { extraContext } : {}),
    ...(enableThinking !== undefined ? { enableThinking } : {}),
  };
  return { options, stream, includeUsage, model: params.model };
}
