// The analysis must describe real tool calls, not just the probes it was derived from: render a
// fresh call (other function name, id and argument) with each template and check that the
// markers the analysis reports appear around it. Where toolwright deliberately differs from
// llama.cpp (IMPROVEMENTS), llama.cpp's markers must fail this check and toolwright's pass.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ToolsAnalysis } from "../../src/analysis/index.js";
import { analyzeChatTemplate } from "../../src/chat/index.js";
import { ChatTemplate } from "../../src/template/index.js";
import type { ToolDefinition } from "../../src/types.js";
import { TEMPLATES_DIR, loadOracleTable, oracleAnalysis } from "../helpers/analysis-oracle.js";
import { IMPROVEMENTS } from "../helpers/analysis-differences.js";

const NAME = "get_weather";
const CALL_ID = "call12345"; // 9 alphanumerics: Mistral templates insist on that shape
const ARG = "city";
const VALUE = "Paris";

const TOOLS: ToolDefinition[] = [
  {
    type: "function",
    function: {
      name: NAME,
      description: "Current weather",
      parameters: {
        type: "object",
        properties: { [ARG]: { type: "string", description: "City name" } },
        required: [ARG],
      },
    },
  },
];

/** A conversation with one call, rendered the way a real prompt is (ChatTemplate.render, compat "auto"). */
function renderCall(source: string): string {
  return new ChatTemplate(source, { compat: "auto" }).render({
    messages: [
      { role: "user", content: "Weather in Paris?" },
      {
        role: "assistant",
        content: "",
        tool_calls: [
          { id: CALL_ID, type: "function", function: { name: NAME, arguments: JSON.stringify({ [ARG]: VALUE }) } },
        ],
      },
    ],
    tools: TOOLS,
    addGenerationPrompt: false,
  });
}

/** The marker sequences an analysis predicts for the rendered call that are missing from it. */
function missingSequences(tools: ToolsAnalysis, rendered: string): string[] {
  const { format, function: fn, arguments: args, callId } = tools;
  const expected: string[] = [format.sectionStart, format.sectionEnd, format.perCallStart, format.perCallEnd, fn.close];
  if (format.mode !== "JSON_NATIVE") expected.push(fn.namePrefix + NAME + fn.nameSuffix);
  if (format.mode === "TAG_WITH_TAGGED") {
    expected.push(args.namePrefix + ARG + args.nameSuffix, args.valuePrefix + VALUE + args.valueSuffix);
  }
  if (callId.position !== "NONE") expected.push(callId.prefix + CALL_ID + callId.suffix);
  return expected.filter((s) => s !== "" && !rendered.includes(s));
}

const table = loadOracleTable();
const names = Object.keys(table.templates).sort();
const source = (name: string) => readFileSync(join(TEMPLATES_DIR, name), "utf8");

// Templates llama.cpp hands to a dedicated parser are not described by the generic markers, nor
// templates that render no call (a format their prompt teaches in words has no rendering to check).
const generic = names.filter((n) => {
  const a = analyzeChatTemplate(source(n));
  return a.dedicatedHandler === null && a.tools.format.mode !== "NONE" && a.caps.supportsToolCalls;
});

describe("reported markers appear around a freshly rendered tool call", () => {
  it("covers the generic tool-calling templates", () => {
    expect(generic.length).toBeGreaterThanOrEqual(30);
  });

  it.each(generic)("%s", (name) => {
    const rendered = renderCall(source(name));
    expect(rendered).toContain(NAME);
    expect(missingSequences(analyzeChatTemplate(source(name)).tools, rendered)).toEqual([]);
  });
});

describe("improvements over llama.cpp", () => {
  it.each(Object.keys(IMPROVEMENTS))("%s: llama.cpp's markers miss the real call, toolwright's match it", (name) => {
    const rendered = renderCall(source(name));
    const theirs = oracleAnalysis(table.templates[name]!) as { tools: ToolsAnalysis };
    expect(missingSequences(theirs.tools, rendered)).not.toEqual([]);
    expect(missingSequences(analyzeChatTemplate(source(name)).tools, rendered)).toEqual([]);
  });

  it("the Solar call id is recognised before the function name", () => {
    const { callId, function: fn } = analyzeChatTemplate(source("upstage-Solar-Open-100B.jinja")).tools;
    expect(callId).toEqual({ position: "PRE_FUNC_NAME", prefix: "<|tool_call:begin|>", suffix: "<|tool_call:name|>" });
    expect(fn.namePrefix).not.toContain("call00001");
  });
});
