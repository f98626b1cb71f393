// PYTHONIC tool calls end to end on every pythonic template (see helpers/pythonic-templates.ts):
// the analysis finds the format and its wrappers; rendering an assistant turn and parsing the
// generated part gives the message back; the grammar (lazy under tool_choice auto, strict under
// required) accepts that text; chunked streaming gives the whole-output message.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  analyzeChatTemplate,
  accumulateDeltas,
  generateChatParams,
  parseChatOutput,
  type ChatParams,
} from "../../src/chat/index.js";
import { ChatTemplate } from "../../src/template/index.js";
import { TEMPLATES_DIR } from "../helpers/analysis-oracle.js";
import { sharedData } from "../helpers/shared-data.js";
import { fromTrigger } from "../helpers/grammar-input.js";
import { matchGbnf } from "../../src/grammar/gbnf-match.js";
import { SCENARIOS, TOOLS, USER, generatedPart, messageDifferences } from "../helpers/chat-roundtrip.js";
import { PYTHONIC_TEMPLATES, UNREADABLE_VALUES, pythonicCase } from "../helpers/pythonic-templates.js";
import { CALL_IDS, streamInChunks } from "../helpers/chunked-stream.js";

const toolScenarios = SCENARIOS.filter((s) => s.message.tool_calls);
const readable = PYTHONIC_TEMPLATES.filter((e) => e.roundTrips).map((e) => pythonicCase(e)!);
const cases = readable.flatMap((t) =>
  toolScenarios
    .filter((s) => !s.parallel || t.template.caps.supportsParallelToolCalls)
    .map((s) => ({ label: `${t.name} | ${s.name}`, t, s })),
);

function paramsFor(t: (typeof readable)[number], toolChoice: "auto" | "required" = "auto"): ChatParams {
  return generateChatParams(t.analysis, t.template, { messages: [USER], tools: TOOLS, toolChoice });
}

function outputOf(t: (typeof readable)[number], s: (typeof toolScenarios)[number], params: ChatParams): string {
  const g = generatedPart(t, s, params);
  if ("error" in g) throw new Error(g.error);
  return g.output;
}

describe("analysis: every template that renders pythonic calls is PYTHONIC", () => {
  it.each(PYTHONIC_TEMPLATES.map((e) => ({ label: e.file, e })))("$label", ({ e }) => {
    const t = pythonicCase(e);
    if (t === null) return;
    const f = t.analysis.tools.format;
    expect(f.mode).toBe("PYTHONIC");
    expect({
      sectionStart: f.sectionStart,
      sectionEnd: f.sectionEnd,
      perCallStart: f.perCallStart,
      perCallEnd: f.perCallEnd,
      toolsArrayWrapped: f.toolsArrayWrapped,
    }).toEqual({
      sectionStart: e.sectionStart,
      sectionEnd: e.sectionEnd,
      perCallStart: e.perCallStart,
      perCallEnd: e.perCallEnd,
      toolsArrayWrapped: e.toolsArrayWrapped,
    });
    // Python syntax is not a token: only the wrappers are preserved.
    for (const token of t.analysis.preservedTokens) expect(["(", ")", "=", ",", ", "]).not.toContain(token);
  });
});

describe("analysis: no other reference template is PYTHONIC", () => {
  it("llama.cpp's templates and templates-dev", () => {
    const found: string[] = [];
    for (const dir of [TEMPLATES_DIR, sharedData("templates-dev")]) {
      if (dir === null) continue;
      for (const file of readdirSync(dir).filter((f) => f.endsWith(".jinja"))) {
        const source = readFileSync(join(dir, file), "utf8");
        let mode: string;
        try {
          mode = analyzeChatTemplate(source, { template: new ChatTemplate(source, { compat: "auto" }) }).tools.format
            .mode;
        } catch {
          continue; // templates the analysis cannot read are covered elsewhere
        }
        if (mode === "PYTHONIC") found.push(file);
      }
    }
    expect(found.sort()).toEqual(
      PYTHONIC_TEMPLATES.filter((e) => e.dir !== "fixtures")
        .map((e) => e.file)
        .sort(),
    );
  });

  it("every template left out of the round trip says why", () => {
    for (const e of PYTHONIC_TEMPLATES) expect(e.roundTrips, e.file).toBe(!(e.file in UNREADABLE_VALUES));
  });
});

describe("round trip through pythonic templates", () => {
  it("covers parallel calls on every template", () => {
    for (const t of readable) expect(t.template.caps.supportsParallelToolCalls, t.name).toBe(true);
  });

  it.each(cases)("$label", ({ t, s }) => {
    const params = paramsFor(t);
    expect(params.parser.format).toBe("generic");
    const output = outputOf(t, s, params);
    expect(messageDifferences(s.message, parseChatOutput(params, output), output), output).toEqual([]);
  });
});

/** The template writes strings without escaping their quotes: the grammar makes the model escape them. */
const UNESCAPED_QUOTES = new Set(["LFM2.5-8B-A1B.jinja"]);

describe("the grammar accepts what the parser reads back", () => {
  const grammarCases = cases.flatMap((c) =>
    (["auto", "required"] as const).map((toolChoice) => ({ ...c, label: `${c.label} | ${toolChoice}`, toolChoice })),
  );
  it.each(grammarCases)("$label", ({ t, s, toolChoice }) => {
    const params = paramsFor(t, toolChoice);
    const output = outputOf(t, s, params);
    expect(params.grammar).not.toBeNull();
    expect(params.grammarLazy).toBe(toolChoice === "auto");
    const text = params.grammarLazy ? fromTrigger(output, params.grammarTriggers) : output;
    expect(text, `no trigger of ${JSON.stringify(params.grammarTriggers)} in ${JSON.stringify(output)}`).not.toBeNull();
    const r = matchGbnf(params.grammar!, text!);
    // The tricky string has a bare quote in it (it's): such a template's text needs the parser's leniency.
    const unescaped = UNESCAPED_QUOTES.has(t.name) && s.name === "unicode, quotes, newlines";
    expect(r.ok, `consumed ${r.consumed} of ${JSON.stringify(text)}`).toBe(!unescaped);
  });

  const tool = TOOLS[0]!;
  const both = readable.flatMap((t) =>
    (["auto", "required"] as const).map((toolChoice) => ({ label: `${t.name} | ${toolChoice}`, t, toolChoice })),
  );
  it.each(both)(
    "$label: the grammar rejects an undeclared keyword argument and a missing required one",
    ({ t, toolChoice }) => {
      const params = paramsFor(t, toolChoice);
      const output = outputOf(t, toolScenarios[0]!, params);
      const one = params.grammarLazy ? fromTrigger(output, params.grammarTriggers)! : output;
      expect(matchGbnf(params.grammar!, one).ok, one).toBe(true);
      const undeclared = one.replace(/city=/, "country='France', city=");
      expect(undeclared).not.toBe(one);
      expect(matchGbnf(params.grammar!, undeclared).ok, undeclared).toBe(false);
      const missing = one.replace(/city=(["'])Paris\1/, "days=3");
      expect(missing).not.toBe(one);
      expect(matchGbnf(params.grammar!, missing).ok, missing).toBe(false);
      expect(tool.function.name).toBe("get_weather");
    },
  );

  it.each(both)("$label: values follow the schema's types, in Python literal syntax", ({ t, toolChoice }) => {
    const params = paramsFor(t, toolChoice);
    const every = toolScenarios.find((s) => s.name === "arguments of every type")!;
    const output = outputOf(t, every, params);
    const text = params.grammarLazy ? fromTrigger(output, params.grammarTriggers)! : output;
    expect(matchGbnf(params.grammar!, text).ok, text).toBe(true);
    // A string where the schema says boolean, a number where it says string.
    const wrongFlag = text.replace(/flag=True/, "flag='yes'");
    const wrongText = text.replace(/text=(["'])plain\1/, "text=3");
    for (const wrong of [wrongFlag, wrongText]) {
      expect(wrong).not.toBe(text);
      expect(matchGbnf(params.grammar!, wrong).ok, wrong).toBe(false);
    }
    // Python spellings: True / None.
    expect(text).toMatch(/flag=True/);
  });

  it.each(readable.map((t) => ({ label: t.name, t })))(
    "$label: tool_choice auto triggers on the wrapper or the call start",
    ({ t }) => {
      const params = paramsFor(t);
      const word = t.analysis.tools.format.sectionStart.trim() || t.analysis.tools.format.perCallStart.trim();
      if (word !== "") expect(params.grammarTriggers).toEqual([{ type: "word", value: word }]);
      else {
        expect(params.grammarTriggers).toHaveLength(1);
        expect(params.grammarTriggers[0]!.type).toBe("pattern");
        expect(fromTrigger("[get_weather(city='Paris')]", params.grammarTriggers)).toBe("[get_weather(city='Paris')]");
        expect(fromTrigger("[link](https://example.com)", params.grammarTriggers)).toBeNull();
      }
    },
  );
});

describe("chunked streaming gives the whole-output message", () => {
  it.each(cases)("$label", ({ t, s }) => {
    const params = paramsFor(t);
    const output = outputOf(t, s, params);
    const whole = parseChatOutput(params, output, CALL_IDS);
    for (const [seed, maxChunk] of [
      [1, 1],
      [2, 3],
      [3, 8],
    ] as const) {
      const { deltas, parser } = streamInChunks(params, output, seed * 7919 + output.length, maxChunk);
      expect(parser.message(), `seed ${seed}`).toEqual(whole);
      expect(accumulateDeltas(deltas), `seed ${seed}`).toEqual(whole);
    }
  });
});

describe("ToolACE: the template cannot render values, but the model's own calls read back", () => {
  const e = PYTHONIC_TEMPLATES.find((x) => x.file === "vllm--toolace.jinja")!;
  const t = pythonicCase(e);
  it.skipIf(t === null)("bare calls in a list, lazy grammar triggered by the call start", () => {
    const params = generateChatParams(t!.analysis, t!.template, { messages: [USER], tools: TOOLS });
    const output = '[get_weather(city="Paris", days=3), record(text="a \\"b\\"", flag=False, items=["x", None])]';
    const msg = parseChatOutput(params, output);
    expect(msg.tool_calls?.map((c) => [c.function.name, JSON.parse(c.function.arguments) as unknown])).toEqual([
      ["get_weather", { city: "Paris", days: 3 }],
      ["record", { text: 'a "b"', flag: false, items: ["x", null] }],
    ]);
    expect(params.grammarLazy).toBe(true);
    expect(matchGbnf(params.grammar!, fromTrigger(output, params.grammarTriggers)!).ok).toBe(true);
  });
});

describe("a list of calls written without the markers the template puts around it", () => {
  const marked = readable.filter((t) => t.analysis.tools.format.sectionStart.trim() !== "");
  it("covers every template whose list sits in markers", () => {
    expect(marked.map((t) => t.name).sort()).toEqual([
      "LFM2.5-8B-A1B.jinja",
      "functools.jinja",
      "python-start.jinja",
      "tool-call-start.jinja",
    ]);
  });

  it.each(marked.map((t) => ({ label: t.name, t })))("$label", ({ t }) => {
    const params = paramsFor(t);
    const calls = (output: string) =>
      parseChatOutput(params, output).tool_calls?.map((c) => [c.function.name, JSON.parse(c.function.arguments)]);
    const msg = parseChatOutput(params, "Sure. [get_weather(city='Paris', days=3)] Done.");
    expect(msg.content).toBe("Sure.  Done.");
    expect(calls("Sure. [get_weather(city='Paris', days=3)] Done.")).toEqual([
      ["get_weather", { city: "Paris", days: 3 }],
    ]);
    // A list in prose whose first item calls no declared tool stays content.
    const prose = "Try [print(x=1), get_weather(city='Paris')].";
    expect(parseChatOutput(params, prose)).toMatchObject({ content: prose });
    expect(calls(prose)).toBeUndefined();
  });
});

describe("a list of calls whose section closer the model left out", () => {
  const closed = readable.filter((t) => t.analysis.tools.format.sectionEnd.trim() !== "");
  it("covers every template whose list has a closing marker", () => {
    expect(closed.map((t) => t.name).sort()).toEqual([
      "LFM2.5-8B-A1B.jinja",
      "python-start.jinja",
      "tool-call-start.jinja",
    ]);
  });

  it.each(closed.map((t) => ({ label: t.name, t })))("$label", ({ t }) => {
    const params = paramsFor(t);
    const open = t.analysis.tools.format.sectionStart;
    for (const [tail, content] of [
      ["", null],
      [" Done.", "Done."],
    ] as const) {
      const output = `${open}[get_weather(city='Paris', days=3)]${tail}`;
      const msg = parseChatOutput(params, output, CALL_IDS);
      expect(msg.content, output).toBe(content);
      expect(msg.tool_calls?.map((c) => [c.function.name, JSON.parse(c.function.arguments)])).toEqual([
        ["get_weather", { city: "Paris", days: 3 }],
      ]);
      const { parser } = streamInChunks(params, output, 17, 3);
      expect(parser.message()).toEqual(msg);
    }
    // A call the output cuts before its list closes is not one.
    expect(parseChatOutput(params, `${open}[get_weather(city='Paris')`).tool_calls).toBeUndefined();
  });
});
