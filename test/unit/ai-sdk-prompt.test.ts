// The AI SDK prompt → chat messages: a user message's image files become image parts (bytes, base64
// data, file: URLs), text stays text, and files chat() cannot read are refused naming the prompt entry.
import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import { describe, expect, test } from "vitest";
import { messagesOf } from "../../src/ai-sdk/prompt.js";
import { ChatCompletionError } from "../../src/openai/index.js";

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47]);
const user = (content: unknown): LanguageModelV3Prompt => [{ role: "user", content } as LanguageModelV3Prompt[number]];

describe("messagesOf: images", () => {
  test.each([
    ["bytes", { type: "file", mediaType: "image/png", data: PNG }, { type: "image", image: PNG }],
    [
      "base64 data",
      { type: "file", mediaType: "image/jpeg", data: "AAEC" },
      { type: "image_url", image_url: { url: "data:image/jpeg;base64,AAEC" } },
    ],
    [
      "a file: URL",
      { type: "file", mediaType: "image/png", data: new URL("file:///tmp/a.png") },
      { type: "image_url", image_url: { url: "file:///tmp/a.png" } },
    ],
  ])("an image file as %s becomes an image part beside the text", (_name, file, part) => {
    const [message] = messagesOf(user([{ type: "text", text: "What is this?" }, file]));
    expect(message).toEqual({ role: "user", content: [{ type: "text", text: "What is this?" }, part] });
  });

  test("a user message without files stays one string", () => {
    expect(
      messagesOf(
        user([
          { type: "text", text: "a" },
          { type: "text", text: "b" },
        ]),
      ),
    ).toEqual([{ role: "user", content: "ab" }]);
  });

  test.each([
    ["a PDF in a user message", user([{ type: "file", mediaType: "application/pdf", data: PNG }]), /application\/pdf/],
    [
      "an image in an assistant message",
      [{ role: "assistant", content: [{ type: "file", mediaType: "image/png", data: PNG }] }] as LanguageModelV3Prompt,
      /assistant message/,
    ],
  ])("%s is refused naming the prompt entry", (_name, prompt, message) => {
    const e = (() => {
      try {
        messagesOf(prompt);
      } catch (err) {
        return err;
      }
    })();
    expect(e).toBeInstanceOf(ChatCompletionError);
    expect((e as Error).message).toMatch(/prompt\[0\]/);
    expect((e as Error).message).toMatch(message);
  });
});
