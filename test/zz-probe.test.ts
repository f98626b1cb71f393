import { test } from "vitest";
import { readFileSync } from "node:fs";
import { analyzeTemplate } from "/work/main/src/analysis/index.js";
import { generateChatParams, parseChatOutput } from "/work/main/src/chat/index.js";
import { ChatTemplate } from "/work/main/src/template/index.js";
test("probe", () => {
  const n = "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B";
  const src = readFileSync(`/work/main/deps/llama.cpp/models/templates/${n}.jinja`, "utf8");
  const t = new ChatTemplate(src, { compat: "auto" }); const a = analyzeTemplate(src, { template: t });
  const p = generateChatParams(a, t, { messages: [{ role: "user", content: "Hey" }], reasoningFormat: "none", enableThinking: true });
  console.log(JSON.stringify(p.generationPrompt), JSON.stringify(p.parser.prefix), p.parser.keptPrefix, p.thinkingForcedOpen, JSON.stringify(parseChatOutput(p, "abc def")));
});
