/**
 * Every option is validated: unknown keys are rejected with a "did you mean" hint (edit
 * distance), and messages are checked at the boundary, each error naming messages[i] and the
 * field. Table-driven: chat()/streamChat() options, ChatSession options, generateChatParams.
 */
import { describe, expect, it } from "vitest";
import { analyzeTemplate } from "../../src/analysis/index.js";
import { generateChatParams } from "../../src/chat/index.js";
import { checkMessages } from "../../src/chat/request.js";
import { checkKeys, closestName, editDistance } from "../../src/validate/index.js";
import { checkSessionOptions, planChat } from "../../src/session/options.js";
import { ChatTemplate } from "../../src/template/index.js";

const user = { role: "user", content: "Hi" } as const;

describe("editDistance and closestName", () => {
  it.each([
    ["", "", 0],
    ["abc", "abc", 0],
    ["maxToken", "maxTokens", 1],
    ["tempreature", "temperature", 1], // a transposition counts once
    ["kitten", "sitting", 3],
    ["", "abc", 3],
  ])("editDistance(%j, %j) = %i", (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
    expect(editDistance(b, a)).toBe(d);
  });

  it.each([
    ["max_tokens", ["maxTokens", "stop"], "maxTokens"],
    ["temp", ["temperature", "topK"], undefined],
    ["topk", ["temperature", "topK"], "topK"],
    ["contextsize", ["contextSize", "batchSize"], "contextSize"],
    ["zzzzzz", ["contextSize", "batchSize"], undefined],
  ])("closestName(%j) is %j", (word, known, best) => {
    expect(closestName(word, known)).toBe(best);
  });

  it("checkKeys names the object, the key and the hint, or the known keys", () => {
    expect(() => checkKeys({ maxToken: 1 }, ["maxTokens", "stop"], "generate: options")).toThrow(
      new TypeError('generate: options has an unknown key "maxToken" (did you mean "maxTokens"?)'),
    );
    expect(() => checkKeys({ bogus: 1 }, ["maxTokens", "stop"], "generate: options")).toThrow(
      new TypeError('generate: options has an unknown key "bogus" (known keys: maxTokens, stop)'),
    );
    expect(() => checkKeys({ stop: [] }, ["maxTokens", "stop"], "x")).not.toThrow();
  });
});

const unknownKeys: { name: string; run: () => unknown; message: RegExp }[] = [
  {
    name: "chat options",
    run: () => planChat({ messages: [user], maxToken: 8 }, "chat"),
    message: /^chat: options has an unknown key "maxToken" \(did you mean "maxTokens"\?\)$/,
  },
  {
    name: "streamChat options",
    run: () => planChat({ messages: [user], tool_choice: "auto" }, "streamChat"),
    message: /^streamChat: options has an unknown key "tool_choice" \(did you mean "toolChoice"\?\)/,
  },
  {
    name: "chat sampling",
    run: () => planChat({ messages: [user], sampling: { temprature: 0 } }, "chat"),
    message: /chat: options.sampling has an unknown key "temprature" \(did you mean "temperature"\?\)/,
  },
  {
    name: "chat tool",
    run: () =>
      planChat({ messages: [user], tools: [{ type: "function", function: { name: "f" }, excute: () => 1 }] }, "chat"),
    message: /chat: options.tools\[0\] has an unknown key "excute" \(did you mean "execute"\?\)/,
  },
  {
    name: "chat tool function",
    run: () =>
      planChat({ messages: [user], tools: [{ type: "function", function: { name: "f", parameter: {} } }] }, "chat"),
    message: /options.tools\[0\].function has an unknown key "parameter" \(did you mean "parameters"\?\)/,
  },
  {
    name: "ChatTemplate options",
    run: () => new ChatTemplate("x", { compt: "auto" } as never),
    message: /ChatTemplate: options has an unknown key "compt" \(did you mean "compat"\?\)/,
  },
  {
    name: "ChatTemplate render input",
    run: () => new ChatTemplate("x").render({ messages: [], addGenerationPromt: true } as never),
    message:
      /ChatTemplate.render: input has an unknown key "addGenerationPromt" \(did you mean "addGenerationPrompt"\?\)/,
  },
  {
    name: "analyzeTemplate options",
    run: () => analyzeTemplate("x", { eosTokn: "</s>" } as never),
    message: /analyzeTemplate: options has an unknown key "eosTokn" \(did you mean "eosToken"\?\)/,
  },
  {
    name: "ChatSession options",
    run: () => checkSessionOptions({ grammarEngin: "llama" }),
    message: /ChatSession: options has an unknown key "grammarEngin" \(did you mean "grammarEngine"\?\)/,
  },
  {
    name: "ChatSession context options",
    run: () => checkSessionOptions({ context: { contextSise: 8 } }),
    message: /ChatSession: options.context has an unknown key "contextSise" \(did you mean "contextSize"\?\)/,
  },
];

describe("unknown keys are rejected with a hint", () => {
  it.each(unknownKeys)("$name", ({ run, message }) => {
    expect(run).toThrow(TypeError);
    expect(run).toThrow(message);
  });

  it("generateChatParams request", () => {
    const source =
      "{% for m in messages %}{{ m.role }}: {{ m.content }}\n{% endfor %}{% if add_generation_prompt " +
      "%}assistant:{% endif %}";
    const analysis = analyzeTemplate(source);
    const template = new ChatTemplate(source);
    const run = () => generateChatParams(analysis, template, { messages: [user], enable_thinking: false } as never);
    expect(run).toThrow(TypeError);
    expect(run).toThrow(
      /generateChatParams: request has an unknown key "enable_thinking" \(did you mean "enableThinking"\?\)/,
    );
  });
});

type Bad = { name: string; messages: unknown[]; error: typeof TypeError | typeof RangeError; message: RegExp };
const badMessages: Bad[] = [
  {
    name: "a message that is not an object",
    messages: [user, "hi"],
    error: TypeError,
    message: /options.messages\[1\] must be a message object, got string/,
  },
  {
    name: "a missing role",
    messages: [{ content: "x" }],
    error: RangeError,
    message: /options.messages\[0\].role must be .* got nothing/,
  },
  {
    name: "an unknown role",
    messages: [{ role: "bot", content: "x" }],
    error: RangeError,
    message: /options.messages\[0\].role must be .* got "bot"/,
  },
  {
    name: "user content null",
    messages: [{ role: "user", content: null }],
    error: TypeError,
    message: /options.messages\[0\].content is null/,
  },
  {
    name: "user content missing",
    messages: [{ role: "user" }],
    error: TypeError,
    message: /options.messages\[0\].content is missing/,
  },
  {
    name: "system content a number",
    messages: [{ role: "system", content: 3 }, user],
    error: TypeError,
    message: /options.messages\[0\].content must be a string or an array of text parts, got number/,
  },
  {
    name: "assistant content null without tool calls",
    messages: [user, { role: "assistant", content: null }, user],
    error: TypeError,
    message: /options.messages\[1\].content is null: an assistant message needs content unless it has tool_calls/,
  },
  {
    name: "assistant content missing",
    messages: [user, { role: "assistant" }, user],
    error: TypeError,
    message: /options.messages\[1\].content is missing/,
  },
  {
    name: "an unknown content part type",
    messages: [{ role: "user", content: [{ type: "txt", text: "x" }] }],
    error: TypeError,
    message: /options.messages\[0\].content\[0\].type must be "text", "image_url" or "image", got "txt"/,
  },
  {
    name: "a text part without text",
    messages: [{ role: "user", content: [{ type: "text" }] }],
    error: TypeError,
    message: /options.messages\[0\].content\[0\].text must be a string, got undefined/,
  },
  {
    name: "an image part outside a user message",
    messages: [{ role: "system", content: [{ type: "image_url", image_url: { url: "data:" } }] }],
    error: RangeError,
    message:
      /options.messages\[0\].content\[0\] is an image part \(type "image_url"\): only user messages carry images/,
  },
  {
    name: "an image part without its url",
    messages: [
      {
        role: "user",
        content: [
          { type: "text", text: "what is this?" },
          { type: "image_url", image_url: {} },
        ],
      },
    ],
    error: TypeError,
    message: /options.messages\[0\].content\[1\].image_url.url must be a data URL, a file path or a file: URL/,
  },
  {
    name: "an audio part",
    messages: [{ role: "user", content: [{ type: "input_audio" }] }],
    error: RangeError,
    message: /options.messages\[0\].content\[0\] is a "input_audio" part: toolwright reads text and images/,
  },
  {
    name: "a tool message without tool_call_id",
    messages: [
      user,
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "a", type: "function", function: { name: "f", arguments: "{}" } }],
      },
      { role: "tool", content: "1" },
    ],
    error: TypeError,
    message: /options.messages\[2\].tool_call_id is missing/,
  },
  {
    name: "a tool message with a numeric tool_call_id",
    messages: [user, { role: "tool", tool_call_id: 1, content: "1" }],
    error: TypeError,
    message: /options.messages\[1\].tool_call_id must be a string, got number/,
  },
  {
    name: "a tool message with null content",
    messages: [user, { role: "tool", tool_call_id: "a", content: null }],
    error: TypeError,
    message: /options.messages\[1\].content is null/,
  },
  {
    name: "tool_calls not an array",
    messages: [user, { role: "assistant", content: "", tool_calls: {} }],
    error: TypeError,
    message: /options.messages\[1\].tool_calls must be an array, got object/,
  },
  {
    name: "a tool call without a name",
    messages: [
      user,
      { role: "assistant", content: null, tool_calls: [{ id: "a", type: "function", function: { arguments: "{}" } }] },
    ],
    error: TypeError,
    message: /options.messages\[1\].tool_calls\[0\].function.name must be a string/,
  },
];

describe("messages are checked at the boundary", () => {
  it.each(badMessages)("chat rejects $name", ({ messages, error, message }) => {
    const run = () => planChat({ messages }, "chat");
    expect(run).toThrow(error);
    expect(run).toThrow(message);
  });

  it.each(badMessages)("generateChatParams rejects $name", ({ messages, error, message }) => {
    const run = () => checkMessages(messages, "generateChatParams: request");
    expect(run).toThrow(error);
    expect(run).toThrow(new RegExp(`^generateChatParams: request\\.${message.source.slice("options.".length)}`));
  });

  it.each([
    [
      "plain turns",
      [
        { role: "system", content: "s" },
        user,
        { role: "assistant", content: "a" },
        { role: "user", content: [{ type: "text", text: "b" }] },
      ],
    ],
    [
      "a call and its result",
      [
        user,
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "a", type: "function", function: { name: "f", arguments: "{}" } }],
        },
        { role: "tool", tool_call_id: "a", content: "1" },
      ],
    ],
    [
      "an assistant message with only reasoning (a prefill)",
      [user, { role: "assistant", reasoning_content: "Let me think" }],
    ],
    [
      "arguments as an object",
      [
        user,
        {
          role: "assistant",
          tool_calls: [{ id: "a", type: "function", function: { name: "f", arguments: { x: 1 } } }],
        },
      ],
    ],
  ])("accepts %s", (_name, messages) => {
    expect(() => planChat({ messages }, "chat")).not.toThrow();
  });
});
