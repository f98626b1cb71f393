#!/usr/bin/env node
// A runnable chat with a tool, on a generated tiny test model (random weights: the text is
// gibberish, but the call is well-formed because the grammar constrains it).
//
//   npm run build:ts && node examples/chat.mjs [path/to/model.gguf]
import { mkdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { defineTool, loadModel } = await import(pathToFileURL(join(ROOT, "lib", "index.js")).href);
const { createTestModel } = await import(pathToFileURL(join(ROOT, "lib", "runtime", "gguf", "test-model.js")).href);

let path = process.argv[2];
if (!path) {
  mkdirSync(join(ROOT, ".cache"), { recursive: true });
  path = join(ROOT, ".cache", "example-chat-model.gguf");
  await createTestModel({
    vocabPath: join(ROOT, "deps/llama.cpp/models/ggml-vocab-llama-spm.gguf"),
    chatTemplate: readFileSync(
      join(ROOT, "deps/llama.cpp/models/templates/meta-llama-Llama-3.1-8B-Instruct.jinja"),
      "utf8",
    ),
    size: "tiny",
    seed: 1,
    outPath: path,
  });
}

const model = await loadModel(path);
const tools = [
  defineTool({
    name: "get_weather",
    description: "Current weather in a city",
    parameters: { type: "object", properties: { city: { enum: ["Paris", "Oslo", "Lima"] } }, required: ["city"] },
    execute: async ({ city }) => ({ city, temperature: 21, sky: "clear" }),
  }),
];

const stream = model.streamChat({
  messages: [{ role: "user", content: "What's the weather in Paris?" }],
  tools,
  toolChoice: "required",
  maxSteps: 2, // the runner executes the call, then the model calls again (required) and stops at maxSteps
  maxTokens: 160,
  sampling: { seed: 1 },
});
for await (const chunk of stream) {
  const { delta, finish_reason } = chunk.choices[0];
  if (delta.content) process.stdout.write(delta.content);
  for (const call of delta.tool_calls ?? [])
    process.stdout.write(
      call.function.name
        ? `\n[call ${call.function.name}] ${call.function.arguments ?? ""}`
        : (call.function.arguments ?? ""),
    );
  if (finish_reason) console.log(`\n-- step ${chunk.step} finished: ${finish_reason}`);
  if (chunk.toolMessages) console.log(chunk.toolMessages.map((m) => `[result] ${m.content}`).join("\n"));
}
const { usage, timings, finishReason } = await stream.result;
console.log({ finishReason, usage, firstTokenMs: Math.round(timings.firstTokenMs) });
model.dispose();
