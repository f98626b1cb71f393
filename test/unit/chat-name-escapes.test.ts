// Names a format writes escaped: Kimi K3's template writes tool and argument names as XML attribute values
// (`&amp;`, `&quot;`). The parser reads the template's own rendering back to the names it was given (values are
// raw text and stay as written), the grammar allows exactly that rendering, and the escapes round-trip.
import { describe, expect, it } from "vitest";
import { generateChatParams, parseChatOutput } from "../../src/chat/index.js";
import { ATTRIBUTE_ESCAPES, escapeName, unescapeName } from "../../src/chat/name-escapes.js";
import { matchGbnf } from "../../src/grammar/gbnf-match.js";
import type { AssistantMessage, ToolDefinition } from "../../src/types.js";
import { generatedPart, toolTemplates, USER } from "../helpers/chat-roundtrip.js";
import { grammarInput } from "../helpers/grammar-input.js";

describe("name escapes", () => {
  it.each([
    ["plain", "plain"],
    ['a&b"c', "a&amp;b&quot;c"],
    ["&amp;", "&amp;amp;"],
    ['""&&', "&quot;&quot;&amp;&amp;"],
  ])("%s is written %s and read back", (name, written) => {
    expect(escapeName(name, ATTRIBUTE_ESCAPES)).toBe(written);
    expect(unescapeName(written, ATTRIBUTE_ESCAPES)).toBe(name);
  });
});

const TOOLS: ToolDefinition[] = [
  {
    type: "function",
    function: {
      name: 'echo&log"v2"',
      description: "A tool whose name holds an ampersand and quotes",
      parameters: {
        type: "object",
        properties: { 'k&"q': { type: "string" }, n: { type: "integer" } },
        required: ['k&"q'],
      },
    },
  },
];

const VALUE = 'say "hi" &amp; bye';
const CALL: AssistantMessage = {
  role: "assistant",
  content: null,
  tool_calls: [
    {
      id: "call_1",
      type: "function",
      function: { name: 'echo&log"v2"', arguments: JSON.stringify({ 'k&"q': VALUE, n: 2 }) },
    },
  ],
};

describe("Kimi K3 writes names as escaped attribute values", () => {
  const [t] = toolTemplates(undefined, (name) => name === "Kimi-K3.jinja");
  const params = (toolChoice: "auto" | "required") =>
    generateChatParams(t!.analysis, t!.template, { messages: [USER], tools: TOOLS, toolChoice });
  const rendered = (): string => {
    const part = generatedPart(t!, { name: "escaped names", message: CALL }, params("auto"), TOOLS);
    if ("error" in part) throw new Error(part.error);
    return part.output;
  };

  it("renders them escaped (the premise)", () => {
    expect(rendered()).toContain('tool="echo&amp;log&quot;v2&quot;"');
    expect(rendered()).toContain('key="k&amp;&quot;q"');
  });

  it("reads the call back with the names it was given and the value as written", () => {
    const message = parseChatOutput(params("auto"), rendered());
    expect(message.tool_calls?.map((c) => [c.function.name, JSON.parse(c.function.arguments)])).toEqual([
      ['echo&log"v2"', { 'k&"q': VALUE, n: 2 }],
    ]);
  });

  it.each(["auto", "required"] as const)("the grammar (tool_choice %s) accepts the rendering", (choice) => {
    const p = params(choice);
    const text = grammarInput(p, rendered());
    expect(text).not.toBeNull();
    expect(matchGbnf(p.grammar!, text!).ok).toBe(true);
  });

  it("the grammar refuses the names written unescaped", () => {
    const p = params("required");
    const raw = rendered().replace("echo&amp;log&quot;v2&quot;", 'echo&log"v2"').replace("k&amp;&quot;q", 'k&"q');
    const text = grammarInput(p, raw);
    expect(text === null || !matchGbnf(p.grammar!, text).ok).toBe(true);
  });
});
