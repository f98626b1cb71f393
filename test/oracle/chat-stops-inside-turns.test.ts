// Stop strings never cut what the model writes inside its own turn. For every reference template (llama.cpp's and
// templates-dev), an assistant turn with reasoning, an answer and a call is rendered as history, and no stop string
// of the params a request gets may occur between the turn's first written text and its last: generation would end
// there (Solar Open's `<|begin|>` ended it after the reasoning before its workaround row).
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { analyzeChatTemplate, generateChatParams } from "../../src/chat/index.js";
import { ChatTemplate, TemplateRuntimeError } from "../../src/template/index.js";
import { TEMPLATES_DIR } from "../helpers/analysis-oracle.js";
import { TOOLS } from "../helpers/chat-roundtrip.js";
import { sharedData } from "../helpers/shared-data.js";

const DEV_DIR = sharedData("templates-dev");
const TEMPLATES = [
  ...readdirSync(TEMPLATES_DIR).map((f) => join(TEMPLATES_DIR, f)),
  ...(DEV_DIR === null ? [] : readdirSync(DEV_DIR).map((f) => join(DEV_DIR, f))),
].filter((f) => f.endsWith(".jinja"));

/** Templates that render no request at all: they call a helper (`generate_schema_from_functions`) no renderer has. */
const UNRENDERABLE = [
  "functionary--v2.llama3.jinja",
  "functionary--v3.llama3.jinja",
  "functionary--v3.llava_llama.jinja",
];
const CALL = { id: "call_1", type: "function", function: { name: "get_weather", arguments: { city: "Quimper" } } };
const USER = { role: "user", content: "USERMSG" };

/** The rendered text of the last assistant turn, from its first written marker text to its last (null: none). */
function turnSpan(
  template: ChatTemplate,
  tools: typeof TOOLS | undefined,
  assistant: Record<string, unknown>,
  last: string,
): string | null {
  let text: string;
  try {
    text = template.renderRaw({ messages: [USER, assistant], tools, add_generation_prompt: false });
  } catch {
    return null; // a template that refuses this turn's shape has nothing to check here
  }
  const after = text.indexOf("USERMSG");
  const firsts = ["PLAN", "ANSWER", "get_weather"].map((k) => text.indexOf(k, after)).filter((i) => i >= 0);
  const end = text.lastIndexOf(last);
  return firsts.length === 0 || end < 0 ? null : text.slice(Math.min(...firsts), end);
}

describe("no stop string inside an assistant turn", () => {
  it("covers llama.cpp's templates and templates-dev", () => {
    expect(TEMPLATES.length).toBeGreaterThanOrEqual(DEV_DIR === null ? 70 : 100);
  });

  it.each(TEMPLATES.map((path) => ({ name: path.slice(path.lastIndexOf("/") + 1), path })))(
    "$name",
    ({ name, path }) => {
      const source = readFileSync(path, "utf8");
      const template = new ChatTemplate(source, { compat: "auto" });
      const analysis = analyzeChatTemplate(source, { template });
      // Templates that render no tool call get no tools.
      const tools = template.caps.supportsToolCalls ? TOOLS : undefined;
      const request = () =>
        generateChatParams(analysis, template, { messages: [{ role: "user", content: "hi" }], tools });
      if (UNRENDERABLE.includes(name)) {
        expect(request).toThrow(TemplateRuntimeError);
        return;
      }
      const params = request();
      const reasoning = { reasoning_content: "PLAN", reasoning: "PLAN" };
      const spans = [
        turnSpan(template, tools, { role: "assistant", ...reasoning, content: "ANSWER" }, "ANSWER"),
        tools &&
          turnSpan(
            template,
            tools,
            { role: "assistant", ...reasoning, content: "ANSWER", tool_calls: [CALL] },
            "Quimper",
          ),
      ].filter((s): s is string => typeof s === "string");
      expect(spans.length, "the turn renders").toBeGreaterThan(0);
      for (const span of spans)
        expect(
          params.additionalStops.filter((stop) => span.includes(stop)),
          span,
        ).toEqual([]);
    },
  );
});
