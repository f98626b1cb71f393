// Images in chat(): OpenAI `image_url` parts (data URLs, file paths, file: URLs) and in-memory
// `image` parts reach the model through its projector, alone or with tools, streamed or not; a
// conversation reuses the cached image; every misuse is a clear error.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createOpenAIClient } from "../../src/openai/index.js";
import { createServer } from "../../src/server/index.js";
import { type ChatMessage, type ChatModel, loadModel, MediaError } from "../../src/index.js";
import { makePng } from "../helpers/png.js";
import { writeProjector } from "../helpers/projector-model.js";
import { ensureTestModel } from "../helpers/test-models.js";

const dir = mkdtempSync(join(tmpdir(), "tw-chat-images-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SCREENSHOT = makePng(32, 20, (x, y) => (y < 4 ? [40, 40, 200] : x % 8 < 4 ? [250, 250, 250] : [20, 20, 20]));
const PHOTO = makePng(24, 24, (x, y) => [x * 10, 255 - y * 10, 90]);
const screenshotFile = join(dir, "screenshot.png");
writeFileSync(screenshotFile, SCREENSHOT);

const TOOLS = [
  {
    type: "function" as const,
    function: {
      name: "click",
      description: "Click a button on the screen",
      parameters: {
        type: "object",
        properties: { label: { enum: ["OK", "Cancel"] } },
        required: ["label"],
        additionalProperties: false,
      },
    },
  },
];

let model: ChatModel;
let modelPath: string;

beforeAll(async () => {
  modelPath = await ensureTestModel({ vocab: "qwen2", template: "Qwen-Qwen3-0.6B" });
  const projector = join(dir, "mmproj.gguf");
  await writeProjector(projector, { textEmbedding: 64, seed: 5 });
  model = await loadModel(modelPath, { projector });
});
afterAll(() => model?.dispose());

function ask(image: unknown, text = "What is on the screen?"): ChatMessage[] {
  return [{ role: "user", content: [{ type: "text", text }, image as never] }];
}

const asked = (messages: ChatMessage[], extra: object = {}) =>
  model.chat({ messages, maxTokens: 12, sampling: { temperature: 0 }, enableThinking: false, ...extra });

describe("chat() with images", () => {
  test("every way to send the same image gives the same answer; another image another one", async () => {
    const dataUrl = `data:image/png;base64,${SCREENSHOT.toString("base64")}`;
    const ways = [
      { type: "image", image: new Uint8Array(SCREENSHOT) },
      { type: "image_url", image_url: { url: dataUrl } },
      { type: "image_url", image_url: { url: screenshotFile } },
      { type: "image_url", image_url: { url: pathToFileURL(screenshotFile).href, detail: "low" } },
    ];
    const answers = [];
    for (const part of ways) answers.push(await asked(ask(part)));
    const text = await asked([{ role: "user", content: "What is on the screen?" }]);
    expect(answers[0]!.usage.promptTokens).toBe(text.usage.promptTokens + 4); // the image's 4 positions
    for (const a of answers.slice(1)) expect(a.message.content).toBe(answers[0]!.message.content);
    const other = await asked(ask({ type: "image", image: PHOTO }));
    expect([other.message.content, text.message.content]).not.toContain(answers[0]!.message.content);
  });

  test("streamChat gives chat()'s answer", async () => {
    const messages = ask({ type: "image", image: PHOTO });
    const whole = await asked(messages);
    const stream = model.streamChat({ messages, maxTokens: 12, sampling: { temperature: 0 }, enableThinking: false });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    expect(text).toBe(whole.message.content);
  });

  test("a screenshot and tools: a required call comes back", async () => {
    const r = await asked(ask({ type: "image", image: SCREENSHOT }, "Press OK."), {
      tools: TOOLS,
      toolChoice: "required",
      maxTokens: 120,
    });
    expect(r.finishReason).toBe("tool_calls");
    expect(r.message.tool_calls?.[0]?.function.name).toBe("click");
    expect(["OK", "Cancel"]).toContain(JSON.parse(r.message.tool_calls![0]!.function.arguments).label);
  });

  test("the next turn of a conversation reuses the cached image", async () => {
    const first = ask({ type: "image", image: SCREENSHOT });
    const r1 = await asked(first);
    const next: ChatMessage[] = [...first, r1.message, { role: "user", content: "And below it?" }];
    const r2 = await asked(next);
    expect(r2.usage.cachedPromptTokens).toBeGreaterThan(r1.usage.promptTokens - 8);
  });
});

describe("the OpenAI client and server with images", () => {
  const url = `data:image/png;base64,${SCREENSHOT.toString("base64")}`;
  const body = {
    model: "local",
    messages: [
      {
        role: "user" as const,
        content: [
          { type: "text" as const, text: "What is on the screen?" },
          { type: "image_url" as const, image_url: { url } },
        ],
      },
    ],
    max_tokens: 12,
    temperature: 0,
    chat_template_kwargs: { enable_thinking: false },
  };

  test("the in-process client and the HTTP server answer as chat() does", async () => {
    const expected = (await asked(ask({ type: "image", image: SCREENSHOT }))).message.content;
    const local = await createOpenAIClient(model).chat.completions.create(body);
    expect(local.choices[0]?.message.content).toBe(expected);
    const server = createServer(model, { modelId: "local" });
    try {
      const { url: base } = await server.listen({ port: 0 });
      const client = new OpenAI({ baseURL: `${base}/v1`, apiKey: "none", maxRetries: 0 });
      const remote = await client.chat.completions.create(body as never);
      expect(remote.choices[0]?.message.content).toBe(expected);
      expect(remote.usage?.prompt_tokens).toBe(local.usage?.prompt_tokens);
    } finally {
      await server.close({ timeoutMs: 0 });
    }
  });
});

describe("chat() with images: clear errors", () => {
  test("a model without a projector", async () => {
    await using plain = await loadModel(modelPath);
    const err = await plain.chat({ messages: ask({ type: "image", image: PHOTO }) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MediaError);
    expect(err).toMatchObject({ code: "TOOLWRIGHT_NO_PROJECTOR" });
    expect((err as Error).message).toMatch(/projector/);
  });

  test.each([
    ["a web URL", { type: "image_url", image_url: { url: "https://example.com/a.png" } }, /web URL.*does not download/],
    ["a missing file", { type: "image_url", image_url: { url: join(dir, "nope.png") } }, /content\[1\].*ENOENT/],
    ["bytes that are no image", { type: "image", image: new Uint8Array([1, 2, 3]) }, /cannot be decoded/],
  ])("%s: TOOLWRIGHT_MEDIA_INVALID", async (_name, part, message) => {
    const err = await asked(ask(part)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MediaError);
    expect(err).toMatchObject({ code: "TOOLWRIGHT_MEDIA_INVALID" });
    expect((err as Error).message).toMatch(message);
  });

  test.each([
    ["an image in an assistant message", { role: "assistant", content: [{ type: "image", image: PHOTO }] }, RangeError],
    ["an image part without bytes", { role: "user", content: [{ type: "image", image: "x" }] }, TypeError],
    ["an image_url without url", { role: "user", content: [{ type: "image_url", image_url: {} }] }, TypeError],
  ])("%s is refused before anything runs", async (_name, message, kind) => {
    await expect(asked([message as ChatMessage])).rejects.toThrow(kind);
  });
});
