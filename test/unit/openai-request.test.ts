// The one mapping of OpenAI chat-completion parameters to model.chat() options (toolwright/openai,
// used by the in-process client and the server), and the OpenAI shapes of results and chunks.
import { describe, expect, it } from "vitest";
import { ChatCompletionError, toChatCompletionError } from "../../src/openai/errors.js";
import { toChatOptions } from "../../src/openai/request.js";
import { ChunkMapper, toChatCompletion, toCompletionTimings } from "../../src/openai/response.js";
import type { ChatResult } from "../../src/session/index.js";

const base = { model: "m", messages: [{ role: "user", content: "Hi" }] };
const fn = (name: string, extra: Record<string, unknown> = {}) => ({
  type: "function",
  function: { name, parameters: { type: "object" }, ...extra },
});

const MAPPED: { label: string; params: Record<string, unknown>; expected: Record<string, unknown> }[] = [
  { label: "max_tokens", params: { max_tokens: 7 }, expected: { maxTokens: 7 } },
  {
    label: "a user message's image_url part",
    params: {
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "What is this?" },
            { type: "image_url", image_url: { url: "data:image/png;base64,AA==", detail: "high" } },
          ],
        },
      ],
    },
    expected: {
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "What is this?" },
            { type: "image_url", image_url: { url: "data:image/png;base64,AA==" } },
          ],
        },
      ],
    },
  },
  { label: "max_completion_tokens", params: { max_completion_tokens: 9 }, expected: { maxTokens: 9 } },
  {
    label: "sampling",
    params: { temperature: 0.2, top_p: 0.5, presence_penalty: 1, frequency_penalty: -1, top_k: 5, min_p: 0.1 },
    expected: {
      sampling: { temperature: 0.2, topP: 0.5, presencePenalty: 1, frequencyPenalty: -1, topK: 5, minP: 0.1 },
    },
  },
  {
    label: "a negative seed folds into the sampler's range",
    params: { seed: -1 },
    expected: { sampling: { seed: 0xfffffffe } },
  },
  { label: "stop as a string", params: { stop: "END" }, expected: { stop: ["END"] } },
  { label: "stop as an array", params: { stop: ["a", "b"] }, expected: { stop: ["a", "b"] } },
  {
    label: "strict: null is dropped",
    params: { tools: [fn("f", { strict: null })] },
    expected: { tools: [{ type: "function", function: { name: "f", parameters: { type: "object" } } }] },
  },
  {
    label: "tool_choice required",
    params: { tools: [fn("f")], tool_choice: "required", parallel_tool_calls: false },
    expected: { toolChoice: "required", parallelToolCalls: false },
  },
  {
    label: "a named tool_choice",
    params: { tools: [fn("f")], tool_choice: { type: "function", function: { name: "f" } } },
    expected: { toolChoice: { type: "function", function: { name: "f" } } },
  },
  {
    label: "allowed_tools narrows the tools",
    params: {
      tools: [fn("f"), fn("g")],
      tool_choice: {
        type: "allowed_tools",
        allowed_tools: { mode: "required", tools: [{ type: "function", function: { name: "g" } }] },
      },
    },
    expected: {
      toolChoice: "required",
      tools: [{ type: "function", function: { name: "g", parameters: { type: "object" } } }],
    },
  },
  {
    label: "json_object",
    params: { response_format: { type: "json_object" } },
    expected: { responseFormat: { type: "json_object" } },
  },
  {
    label: "json_schema",
    params: {
      response_format: { type: "json_schema", json_schema: { name: "a", schema: { type: "string" }, strict: true } },
    },
    expected: {
      responseFormat: { type: "json_schema", json_schema: { name: "a", schema: { type: "string" }, strict: true } },
    },
  },
  {
    label: "reasoning_effort turns thinking on and reaches the template",
    params: { reasoning_effort: "high" },
    expected: { enableThinking: true, extraContext: { reasoning_effort: "high" } },
  },
  {
    label: "reasoning_effort none turns thinking off",
    params: { reasoning_effort: "none" },
    expected: { enableThinking: false },
  },
  {
    label: "chat_template_kwargs",
    params: { chat_template_kwargs: { enable_thinking: false, x: 1 } },
    expected: { enableThinking: false, extraContext: { enable_thinking: false, x: 1 } },
  },
  {
    label: "messages: parts, refusals, tool calls, reasoning and tool results",
    params: {
      messages: [
        { role: "developer", content: [{ type: "text", text: "D" }] },
        { role: "user", content: "U", name: "bob" },
        {
          role: "assistant",
          content: [{ type: "refusal", refusal: "no" }],
          reasoning_content: "R",
          tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }],
        },
        { role: "tool", tool_call_id: "c1", content: "21" },
      ],
    },
    expected: {
      messages: [
        { role: "developer", content: [{ type: "text", text: "D" }] },
        { role: "user", content: "U" },
        {
          role: "assistant",
          content: [{ type: "text", text: "no" }],
          reasoning_content: "R",
          tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }],
        },
        { role: "tool", tool_call_id: "c1", content: "21" },
      ],
    },
  },
];

const REFUSED: { label: string; params: Record<string, unknown>; param: string | null; message: RegExp }[] = [
  { label: "not an object", params: null as never, param: null, message: /JSON object/ },
  { label: "no model", params: { model: undefined }, param: "model", message: /Missing required parameter: 'model'/ },
  { label: "empty messages", params: { messages: [] }, param: "messages", message: /empty array/ },
  { label: "n = 2", params: { n: 2 }, param: "n", message: /n must be 1/ },
  {
    label: "an audio part",
    params: { messages: [{ role: "user", content: [{ type: "input_audio", input_audio: {} }] }] },
    param: "messages[0].content[0]",
    message: /audio input/,
  },
  {
    label: "an image part in a system message",
    params: { messages: [{ role: "system", content: [{ type: "image_url", image_url: { url: "x.png" } }] }] },
    param: "messages[0].content[0]",
    message: /user messages only/,
  },
  {
    label: "an image part without its url",
    params: { messages: [{ role: "user", content: [{ type: "image_url", image_url: {} }] }] },
    param: "messages[0].content[0].image_url.url",
    message: /expected a URL string/,
  },
  {
    label: "a file part",
    params: { messages: [{ role: "user", content: [{ type: "file", file: {} }] }] },
    param: "messages[0].content[0]",
    message: /file input/,
  },
  {
    label: "the function role",
    params: { messages: [{ role: "function", name: "f", content: "x" }] },
    param: "messages[0].role",
    message: /deprecated/,
  },
  { label: "functions", params: { functions: [{ name: "f" }] }, param: "functions", message: /deprecated/ },
  {
    label: "a custom tool_choice",
    params: { tools: [fn("f")], tool_choice: { type: "custom", custom: { name: "x" } } },
    param: "tool_choice",
    message: /custom tools/,
  },
  {
    label: "stream_options without stream",
    params: { stream_options: { include_usage: true } },
    param: "stream_options",
    message: /only allowed when 'stream' is true/,
  },
  {
    label: "a non-integer max_tokens",
    params: { max_tokens: 1.5 },
    param: "max_tokens",
    message: /expected an integer/,
  },
  { label: "top_p above 1", params: { top_p: 1.5 }, param: "top_p", message: /out of range/ },
  {
    label: "a response_format type",
    params: { response_format: { type: "xml" } },
    param: "response_format.type",
    message: /Supported values/,
  },
  { label: "logit_bias", params: { logit_bias: { "1": 5 } }, param: "logit_bias", message: /not supported/ },
  { label: "an unknown key", params: { max_token: 5 }, param: "max_token", message: /did you mean 'max_tokens'/ },
];

describe("toChatOptions", () => {
  it.each(MAPPED)("maps $label", ({ params, expected }) => {
    const { options } = toChatOptions({ ...base, ...params });
    expect(options).toMatchObject(expected);
  });

  it("reads stream, include_usage and the model, and ignores informational parameters", () => {
    const r = toChatOptions({
      ...base,
      stream: true,
      stream_options: { include_usage: true },
      user: "u",
      store: false,
      metadata: {},
      n: 1,
      logprobs: false,
    });
    expect(r).toMatchObject({ stream: true, includeUsage: true, model: "m" });
    expect(Object.keys(r.options)).toEqual(["messages"]);
  });

  it("applies the server's max_tokens limit as the default and the ceiling", () => {
    expect(toChatOptions(base, { maxTokens: 64 }).options.maxTokens).toBe(64);
    expect(toChatOptions({ ...base, max_tokens: 10 }, { maxTokens: 64 }).options.maxTokens).toBe(10);
    expect(() => toChatOptions({ ...base, max_tokens: 65 }, { maxTokens: 64 })).toThrow(
      /more than this server allows \(64\)/,
    );
  });

  it.each(REFUSED)("refuses $label with a 400 naming the parameter", ({ params, param, message }) => {
    const e = (() => {
      try {
        toChatOptions(params === null ? null : { ...base, ...params });
      } catch (err) {
        return err;
      }
    })();
    expect(e).toBeInstanceOf(ChatCompletionError);
    expect(e).toMatchObject({ status: 400, param, type: "invalid_request_error" });
    expect((e as Error).message).toMatch(message);
  });
});

describe("toChatCompletionError", () => {
  it.each([
    { error: new RangeError("chat: options.x"), status: 400, code: "invalid_value" },
    {
      error: new RangeError("generate: the prompt has 9 tokens, more than the context size 4"),
      status: 400,
      code: "context_length_exceeded",
    },
    { error: new Error("boom"), status: 500, code: null },
  ])("$error.message → $status", ({ error, status, code }) => {
    const e = toChatCompletionError(error);
    expect(e.status).toBe(status);
    expect(e.toJSON().error.code).toBe(code);
    expect(e.toJSON().error.message).toBe(error.message);
  });
});

/** A chat result with defaults (an assertion: fields the session adds later need no update here). */
const result = (over: Partial<ChatResult>): ChatResult =>
  ({
    message: { role: "assistant", content: "" },
    finishReason: "stop",
    usage: {
      promptTokens: 5,
      completionTokens: 2,
      totalTokens: 7,
      cachedPromptTokens: 3,
      evaluatedPromptTokens: 2,
      shiftedPromptTokens: 0,
      forcedTokens: 1,
      draftedTokens: 4,
      acceptedDraftTokens: 3,
      droppedForcedTokens: 2,
    },
    timings: { promptMs: 8, generationMs: 40, firstTokenMs: 9, tokensPerSecond: 25 },
    steps: [],
    messages: [],
    toolErrors: [],
    ...over,
  }) as ChatResult;
const meta = { id: "chatcmpl-x", created: 1, model: "m" };
/** `result({})`'s usage and timings as llama-server reports them. */
const llamaServerTimings = {
  cache_n: 3,
  prompt_n: 2,
  prompt_ms: 8,
  prompt_per_token_ms: 4,
  prompt_per_second: 250,
  predicted_n: 2,
  predicted_ms: 40,
  predicted_per_token_ms: 20,
  predicted_per_second: 50,
};

describe("OpenAI shapes of results", () => {
  it("a completion: content null beside tool calls, reasoning_content, snake_case usage", () => {
    const c = toChatCompletion(
      result({
        finishReason: "tool_calls",
        message: {
          role: "assistant",
          content: "",
          reasoning_content: "hm",
          tool_calls: [{ id: "a", type: "function", function: { name: "f", arguments: "{" }, incomplete: true }],
        },
      }),
      meta,
    );
    expect(c).toEqual({
      id: "chatcmpl-x",
      object: "chat.completion",
      created: 1,
      model: "m",
      choices: [
        {
          index: 0,
          finish_reason: "tool_calls",
          logprobs: null,
          message: {
            role: "assistant",
            content: null,
            refusal: null,
            reasoning_content: "hm",
            tool_calls: [{ id: "a", type: "function", function: { name: "f", arguments: "{" } }],
          },
        },
      ],
      usage: {
        prompt_tokens: 5,
        completion_tokens: 2,
        total_tokens: 7,
        prompt_tokens_details: { cached_tokens: 3 },
        completion_tokens_details: { accepted_prediction_tokens: 4, rejected_prediction_tokens: 3 },
      },
      timings: llamaServerTimings,
    });
  });

  it("timings in llama-server's shape: rates of none are 0, not NaN or Infinity", () => {
    const t = toCompletionTimings(
      { ...result({}).usage, evaluatedPromptTokens: 0, completionTokens: 0 },
      { promptMs: 0, generationMs: 0, firstTokenMs: 0, tokensPerSecond: 0 },
    );
    expect(Object.values(t).every((v) => v === 0 || v === 3)).toBe(true);
    expect(t.cache_n).toBe(3);
  });

  it("chunks: the role first, deltas, the finish reason, the usage last", () => {
    const m = new ChunkMapper(meta, true);
    const out = [
      m.start(),
      ...m.map({ step: 0, choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] }),
      ...m.map({
        step: 0,
        choices: [
          {
            index: 0,
            delta: {
              content: "Hi",
              tool_calls: [{ index: 0, id: "a", type: "function", function: { name: "f", arguments: "" } }],
            },
            finish_reason: null,
          },
        ],
      }),
      ...m.map({
        step: 0,
        choices: [{ index: 0, delta: {}, finish_reason: "stop" }],
        usage: result({}).usage,
        timings: result({}).timings,
      }),
      ...m.finish(),
    ];
    expect(out.map((c) => c.timings)).toEqual([undefined, undefined, llamaServerTimings, undefined]);
    expect(out.map((c) => c.choices[0]?.delta ?? null)).toEqual([
      { role: "assistant", content: "" },
      { content: "Hi", tool_calls: [{ index: 0, id: "a", type: "function", function: { name: "f", arguments: "" } }] },
      {},
      null,
    ]);
    expect(out.map((c) => c.usage)).toEqual([
      null,
      null,
      null,
      {
        prompt_tokens: 5,
        completion_tokens: 2,
        total_tokens: 7,
        prompt_tokens_details: { cached_tokens: 3 },
        completion_tokens_details: { accepted_prediction_tokens: 4, rejected_prediction_tokens: 3 },
      },
    ]);
    expect(out.every((c) => c.id === "chatcmpl-x" && c.object === "chat.completion.chunk")).toBe(true);
  });

  it("chunks without include_usage carry no usage; reasoning streams as reasoning_content", () => {
    const m = new ChunkMapper(meta, false);
    const out = [
      m.start(),
      ...m.map({ step: 0, choices: [{ index: 0, delta: { reasoning_content: "hm" }, finish_reason: null }] }),
      ...m.map({ step: 0, choices: [{ index: 0, delta: {}, finish_reason: "length" }], usage: result({}).usage }),
      ...m.finish(),
    ];
    expect(out).toHaveLength(3);
    expect(out.every((c) => !("usage" in c))).toBe(true);
    expect(out[1]!.choices[0]!.delta).toEqual({ reasoning_content: "hm" });
    expect(out[2]!.choices[0]!.finish_reason).toBe("length");
  });
});
