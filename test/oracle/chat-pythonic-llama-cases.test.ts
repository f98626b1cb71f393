// Real LFM2 / LFM2.5 model output from llama.cpp's chat-parser cases (shared llama-test-chat),
// read by the generic PYTHONIC parser. LFM2-8B-A1B and LFM2.5-Instruct do not render calls (their
// templates only list the tools), so the analysis cannot learn their format from them; the three
// share LFM2.5-8B-A1B's call syntax, whose analysis (PYTHONIC, <|tool_call_start|>[...]<|tool_call_end|>)
// builds the parser here. Cases that need reasoning parsing are left to the lfm2.5 dedicated handler.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ChatStreamParser, generateChatParams, parseChatOutput } from "../../src/chat/index.js";
import type { ToolDefinition } from "../../src/types.js";
import { PYTHONIC_TEMPLATES, pythonicCase } from "../helpers/pythonic-templates.js";
import { sharedData } from "../helpers/shared-data.js";

interface LlamaCase {
  id: number;
  template: string;
  input: string;
  is_partial: boolean;
  tools: ToolDefinition[] | null;
  tool_choice: "auto" | "required" | "none";
  parallel_tool_calls: boolean;
  reasoning_format: string;
  expect: { content: string; tool_calls: { name: string; arguments: string }[] };
}

const dir = sharedData("llama-test-chat");
const all: LlamaCase[] =
  dir === null
    ? []
    : readFileSync(join(dir, "cases.jsonl"), "utf8")
        .split("\n")
        .filter((l) => l.trim() !== "")
        .map((l) => JSON.parse(l) as LlamaCase);
const lfm = all.filter(
  (c) => /\/LFM2[^/]*\.jinja$/.test(c.template) && c.tools !== null && c.reasoning_format === "none",
);
const t = pythonicCase(PYTHONIC_TEMPLATES.find((e) => e.file === "LFM2.5-8B-A1B.jinja")!)!;

function paramsOf(c: LlamaCase) {
  return generateChatParams(t.analysis, t.template, {
    messages: [{ role: "user", content: "Hey there!" }],
    tools: c.tools!,
    toolChoice: c.tool_choice,
    parallelToolCalls: c.parallel_tool_calls,
  });
}

describe.skipIf(dir === null)("LFM2 / LFM2.5 model output through the generic PYTHONIC parser", () => {
  it("has the cases", () => {
    expect(lfm.length).toBeGreaterThanOrEqual(40);
  });

  it.each(
    lfm
      .filter((c) => !c.is_partial)
      .map((c) => ({ label: `#${c.id} ${c.template.split("/").pop()} ${JSON.stringify(c.input).slice(0, 60)}`, c })),
  )("$label", ({ c }) => {
    const got = parseChatOutput(paramsOf(c), c.input);
    expect(typeof got.content === "string" ? got.content.trim() : (got.content ?? "")).toBe(c.expect.content.trim());
    const calls = (got.tool_calls ?? []).map((x) => ({
      name: x.function.name,
      arguments: JSON.parse(x.function.arguments) as unknown,
    }));
    expect(calls).toEqual(
      c.expect.tool_calls.map((x) => ({ name: x.name, arguments: JSON.parse(x.arguments) as unknown })),
    );
  });

  it.each(lfm.filter((c) => c.is_partial).map((c) => ({ label: `#${c.id} partial ${JSON.stringify(c.input)}`, c })))(
    "$label",
    ({ c }) => {
      // A partial output names the call and streams what is certain of its arguments.
      const parser = new ChatStreamParser(paramsOf(c));
      parser.feed(c.input);
      const call = parser.message().tool_calls?.[0];
      expect(call?.function.name).toBe(c.expect.tool_calls[0]!.name);
      expect(c.expect.tool_calls[0]!.arguments.replace(/\s/g, "").startsWith(call!.function.arguments)).toBe(true);
    },
  );
});
