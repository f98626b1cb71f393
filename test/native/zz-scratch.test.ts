import { test } from "vitest";
import { ChatSession, loadModel } from "../../src/index.js";
test("scratch", async () => {
  const model = await loadModel("/work/main/.cache/bench-models/qwen2-tiny-s1-Qwen-Qwen2.5-7B-Instruct.gguf");
  const SCHEMA = {
    type: "object",
    properties: {
      title: { type: "string", maxLength: 60 },
      date: { type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2}$" },
      start_time: { type: "string", pattern: "^\\d{2}:\\d{2}$" },
      duration_minutes: { type: "integer", minimum: 5, maximum: 480 },
      priority: { enum: ["low", "normal", "high"] },
      attendees: { type: "array", items: { type: "string", maxLength: 40 }, maxItems: 6 },
      location: {
        type: "object",
        properties: { city: { type: "string", maxLength: 40 }, room: { type: "string", maxLength: 20 } },
        required: ["city"],
        additionalProperties: false,
      },
    },
    required: ["title", "date", "start_time", "duration_minutes", "priority", "location"],
    additionalProperties: false,
  };
  const tools = [
    { type: "function", function: { name: "create_event", description: "Create an event", parameters: SCHEMA } },
  ] as any;
  const messages = [
    { role: "system", content: "You manage the user's calendar. Today is 2026-11-28." },
    {
      role: "user",
      content:
        "Book a one-hour design review with Ana Souza and Luis Ortega next Tuesday at 10:00 in Berlin, room B2. It is high priority.",
    },
  ] as any;
  async function go(spec: any) {
    const s = new ChatSession(model, {
      context: { contextSize: 4096, threads: 2, ...(spec ? { speculative: spec } : {}) },
    });
    let text = "";
    const r = await s
      .chat({ messages, tools, toolChoice: "required", maxTokens: 256, sampling: { temperature: 0 } } as any)
      .catch((e) => {
        throw e;
      });
    s.dispose();
    return r;
  }
  for (const spec of [undefined, undefined, { lookup: true }, { lookup: true }]) {
    const r = await go(spec);
    console.log(
      JSON.stringify(spec),
      r.usage.completionTokens,
      r.usage.forcedTokens,
      JSON.stringify(r.message).slice(0, 120),
    );
  }
}, 600000);
