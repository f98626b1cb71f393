// A request whose parser can only read content (no tools, no reasoning) takes each chunk as content without
// parsing it: the message and deltas must be what the parse gives. The reference is the same parser with its
// root written so that the shortcut does not apply (content of the rest, then nothing), on every template.
import { describe, expect, it } from "vitest";
import { accumulateDeltas, generateChatParams, type ChatParams } from "../../src/chat/index.js";
import { readsAllAsContent } from "../../src/chat/chat-parser.js";
import { NODE } from "../../src/chat/tree-names.js";
import { PegArena } from "../../src/peg/index.js";
import { USER, toolTemplates, type TemplateCase } from "../helpers/chat-roundtrip.js";
import { streamInChunks } from "../helpers/chunked-stream.js";

/** The parser of a request without tools, thinking or not. */
function plainParams(t: TemplateCase, enableThinking: boolean): ChatParams {
  return generateChatParams(t.analysis, t.template, { messages: [USER], enableThinking });
}

/** `params` with a parser that reads the same (all content) through a parse per chunk. */
function parsedEveryChunk(params: ChatParams): ChatParams {
  const p = new PegArena();
  const root = p.seq(p.capture(NODE.content, p.rest()), p.eps());
  return { ...params, parser: { ...params.parser, arena: p, root, resumeRoot: root } };
}

/** Outputs a model may write: plain text, whitespace around it, and the format's own markers as text. */
function outputsFor(t: TemplateCase): string[] {
  const a = t.analysis;
  const markers = [a.reasoning.start, a.reasoning.end, a.tools.format.sectionStart, a.tools.format.perCallStart]
    .map((m) => m.trim())
    .filter((m) => m !== "");
  return [
    "",
    "The weather in Paris is mild.",
    "  \n Leading and trailing space. \n\n",
    "Unicode: naïve café, 東京, 😀\nSecond line\n",
    "Ends with an end text</s>",
    "Text <|im_end|>\n<|im_start|>user\nmore",
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
    ...markers.map((m) => `Before ${m} after ${m}`),
  ];
}

const cases = toolTemplates().flatMap((t) => [false, true].map((thinking) => ({ t, thinking })));
const applying = cases.filter(({ t, thinking }) => readsAllAsContent(plainParams(t, thinking).parser));

describe("content-only parsers read each chunk as content", () => {
  it("applies to the templates without reasoning, and never to a request with tools", () => {
    expect(applying.length).toBeGreaterThan(5);
    expect(applying.length).toBeLessThan(cases.length);
    const withTools = generateChatParams(applying[0]!.t.analysis, applying[0]!.t.template, {
      messages: [USER],
      tools: [{ type: "function", function: { name: "get_weather", parameters: { type: "object" } } }],
    });
    expect(readsAllAsContent(withTools.parser)).toBe(false);
  });

  it.each(applying.map((c) => ({ ...c, label: `${c.t.name} | thinking ${c.thinking}` })))(
    "$label: the same message and deltas as a parse per chunk",
    ({ t, thinking }) => {
      const params = plainParams(t, thinking);
      const reference = parsedEveryChunk(params);
      expect(readsAllAsContent(reference.parser)).toBe(false);
      for (const output of outputsFor(t)) {
        for (const [seed, maxChunk] of [
          [1, 1],
          [2, 5],
          [3, 1000],
        ] as const) {
          const fast = streamInChunks(params, output, seed, maxChunk);
          const parsed = streamInChunks(reference, output, seed, maxChunk);
          const label = `${JSON.stringify(output)} seed ${seed}`;
          expect(fast.parser.message(), label).toEqual(parsed.parser.message());
          expect(fast.deltas, label).toEqual(parsed.deltas);
          expect(accumulateDeltas(fast.deltas), label).toEqual(fast.parser.message());
        }
      }
    },
  );
});
