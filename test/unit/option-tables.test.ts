/**
 * The option tables: an option a chat request shares with chat() is checked by the same row at
 * both boundaries (the same error class and message, each naming its option and the value); every
 * request option reaches the request chat() builds; sampling options are checked by their table.
 */
import { describe, expect, it } from "vitest";
import { analyzeTemplate } from "../../src/analysis/index.js";
import { generateChatParams } from "../../src/chat/index.js";
import { CHAT_REQUEST_KEYS } from "../../src/chat/request-options.js";
import { SAMPLING_KEYS, toNativeSampling } from "../../src/runtime/sampling.js";
import { FORWARDED_OPTIONS, planChat } from "../../src/session/options.js";
import { ChatTemplate } from "../../src/template/index.js";

const user = { role: "user", content: "Hi" } as const;
const source =
  "{% for m in messages %}{{ m.role }}: {{ m.content }}\n{% endfor %}" +
  "{% if add_generation_prompt %}assistant:{% endif %}";
const analysis = analyzeTemplate(source);
const template = new ChatTemplate(source);

type Bad = { option: string; value: unknown; error: typeof TypeError | typeof RangeError; message: string };
const SHARED: Bad[] = [
  { option: "parallelToolCalls", value: "yes", error: TypeError, message: 'must be a boolean, got "yes"' },
  { option: "enableThinking", value: 1, error: TypeError, message: "must be a boolean, got 1" },
  { option: "addGenerationPrompt", value: null, error: TypeError, message: "must be a boolean, got null" },
  { option: "maxToolCalls", value: 0, error: RangeError, message: "must be an integer in [1, 65536], got 0" },
  { option: "maxToolCalls", value: 1.5, error: RangeError, message: "must be an integer in [1, 65536], got 1.5" },
  { option: "maxToolCalls", value: "8", error: TypeError, message: 'must be an integer, got "8"' },
  { option: "extraContext", value: "x", error: TypeError, message: 'must be an object, got "x"' },
  {
    option: "reasoningFormat",
    value: "deepseek",
    error: RangeError,
    message: 'must be "auto" or "none", got "deepseek"',
  },
  {
    option: "continueFinalMessage",
    value: "yes",
    error: TypeError,
    message: 'must be a boolean, "content" or "reasoning", got "yes"',
  },
];

describe("an option shared by a chat request and chat() is checked the same way at both", () => {
  it.each(SHARED)("$option: $value", ({ option, value, error, message }) => {
    const chat = () => planChat({ messages: [user], [option]: value }, "chat");
    const request = () => generateChatParams(analysis, template, { messages: [user], [option]: value } as never);
    expect(chat).toThrow(error);
    expect(chat).toThrow(`chat: options.${option} ${message}`);
    expect(request).toThrow(error);
    expect(request).toThrow(`generateChatParams: request.${option} ${message}`);
  });
});

describe("chat()'s table", () => {
  it("passes every request option on as given, but the three it maps itself", () => {
    const forwarded = FORWARDED_OPTIONS.map(([key]) => key);
    const mapped = ["messages", "tools", "enableThinking"];
    expect([...forwarded, ...mapped].sort()).toEqual([...CHAT_REQUEST_KEYS].sort());
    // Only the first turn continues the caller's final message.
    expect(FORWARDED_OPTIONS.filter(([, when]) => when === "first turn").map(([key]) => key)).toEqual([
      "continueFinalMessage",
      "addGenerationPrompt",
    ]);
  });

  it.each([
    [{}, { maxTokens: 1024, maxSteps: 1, stop: [], grammar: true, reasoningBudget: undefined }],
    [
      { tools: [{ type: "function", function: { name: "f" }, execute: () => 1 }] },
      { maxTokens: 1024, maxSteps: 8, stop: [], grammar: true },
    ],
    [
      { maxTokens: 8, maxSteps: 2, stop: ["x"], grammar: false, maxReasoningTokens: 4 },
      { maxTokens: 8, maxSteps: 2, stop: ["x"], grammar: false, reasoningBudget: 4 },
    ],
  ])("defaults: %j", (given, planned) => {
    expect(planChat({ messages: [user], ...given }, "chat")).toMatchObject(planned);
  });
});

describe("sampling options are checked by their table", () => {
  const VOCAB = 100;
  const BAD: [string, unknown, typeof TypeError | typeof RangeError][] = [
    ["temperature", -1, RangeError],
    ["topK", VOCAB + 1, RangeError],
    ["topP", 1.5, RangeError],
    ["minP", "0.1", TypeError],
    ["repeatPenalty", 0, RangeError],
    ["presencePenalty", Number.NaN, RangeError],
    ["frequencyPenalty", 2e6, RangeError],
    ["penaltyLastN", 0.5, RangeError],
    ["seed", 2 ** 32, RangeError],
    ["greedy", 1, TypeError],
    ["fastForward", "no", TypeError],
  ];

  it("has a bad-value case for every key", () => {
    expect(BAD.map(([key]) => key).sort()).toEqual([...SAMPLING_KEYS].sort());
  });

  it.each(BAD)("%s: %j", (key, value, error) => {
    const run = () => toNativeSampling({ [key]: value }, VOCAB);
    expect(run).toThrow(error);
    expect(run).toThrow(`generate: options.sampling.${key} must be`);
  });

  it("keeps the values given, and only those", () => {
    const given = { temperature: 0.7, topK: VOCAB, seed: 0, greedy: false, fastForward: false };
    expect(toNativeSampling(given, VOCAB)).toEqual(given);
    expect(() => toNativeSampling({ temprature: 1 }, VOCAB)).toThrow(/did you mean "temperature"/);
  });
});
