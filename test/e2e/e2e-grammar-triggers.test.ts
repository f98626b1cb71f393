/**
 * How chat requests hand lazy grammars to the runtime: word/pattern triggers become whole-output
 * patterns whose first capture group starts the grammar; with reasoning forced open, a trigger
 * only counts after the reasoning end. Checked with JS regexes (ECMAScript, like std::regex's
 * default grammar that the runtime uses).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadModel, type Model } from "../../src/index.js";
import type { ChatGrammarTrigger, GrammarPlan } from "../../src/chat/index.js";
import { afterReasoningClosed, chatGrammar } from "../../src/session/grammar.js";
import { ensureTestModel } from "../helpers/test-models.js";

let model: Model;
beforeAll(async () => {
  model = await loadModel(await ensureTestModel({ vocab: "llama-spm" }), { vocabOnly: true });
});
afterAll(() => model?.dispose());

const GBNF = 'root ::= "x"';
/** A lazy plan (tool_choice auto) with these triggers, guarded by `guard` when given. */
const lazy = (triggers: ChatGrammarTrigger[], guard: string | null = null): GrammarPlan => ({
  kind: "lazy",
  gbnf: GBNF,
  triggers,
  guard,
});

/** Where the runtime would start the grammar: the first capture group of a full match. */
function start(pattern: string, output: string): number | null {
  const m = new RegExp(pattern, "d").exec(output);
  if (!m || m[0].length !== output.length) return null;
  return m.indices![1]?.[0] ?? 0;
}

/** The model's tokenizer for trigger texts, as the session passes it. */
const tok = (text: string) => model.tokenize(text, { addSpecial: false, parseSpecial: true });

describe("chatGrammar", () => {
  it("returns no grammar when the request has none, and a strict one as is", () => {
    expect(chatGrammar({ kind: "none" }, tok, undefined)).toBeUndefined();
    const strict: GrammarPlan = { kind: "strict", gbnf: GBNF, constrains: "tool-calls", afterReasoning: null };
    expect(chatGrammar(strict, tok, "toolwright")).toEqual({ gbnf: GBNF, engine: "toolwright" });
  });

  it.each([
    ["word", { type: "word" as const, value: "<tool_call>" }, 'Hi <tool_call>{"a"', 3],
    ["word with regex characters", { type: "word" as const, value: "[TOOL_CALLS]" }, "ok [TOOL_CALLS][", 3],
    ["pattern without group", { type: "pattern" as const, value: "<\\|tool[a-z]*\\|>" }, "xx<|toolcall|>{", 2],
    ["pattern with its own group", { type: "pattern" as const, value: '\\n+(\\{"name")' }, 'text\n\n{"name": 1', 6],
  ])("%s trigger", (_name, trigger, output, at) => {
    const g = chatGrammar(lazy([trigger]), tok, undefined)!;
    expect(g.lazy!.patterns).toHaveLength(1);
    expect(start(g.lazy!.patterns![0]!, output)).toBe(at);
    expect(start(g.lazy!.patterns![0]!, "no trigger here")).toBeNull();
  });

  it("with reasoning forced open, a trigger inside the reasoning does not count", () => {
    const g = chatGrammar(lazy([{ type: "word", value: "<tool_call>" }], "</think>"), tok, undefined)!;
    const pattern = g.lazy!.patterns![0]!;
    expect(start(pattern, "thinking <tool_call> still thinking")).toBeNull();
    expect(start(pattern, "a <tool_call> b</think>\n<tool_call>{")).toBe("a <tool_call> b</think>\n".length);
  });

  it("the deferred grammar's own reasoning-end trigger is not guarded", () => {
    const deferred: GrammarPlan = {
      kind: "after-reasoning",
      gbnf: GBNF,
      triggers: [{ type: "word", value: "</think>" }],
      reasoningEnd: "</think>",
    };
    const g = chatGrammar(deferred, tok, undefined)!;
    expect(start(g.lazy!.patterns![0]!, "reason</think>\n{")).toBe(6);
  });

  it("a token trigger is a lazy token when the vocabulary has it whole, else a word", () => {
    const triggers: ChatGrammarTrigger[] = [
      { type: "token", value: "</s>" },
      { type: "token", value: "<|python_tag|>" },
    ];
    const g = chatGrammar(lazy(triggers), tok, undefined)!;
    expect(g.lazy!.tokens).toEqual([model.specialTokens.eos]);
    expect(start(g.lazy!.patterns![0]!, "a<|python_tag|>x")).toBe(1);
  });
});

describe("afterReasoningClosed: how generation goes on once the reasoning budget closes reasoning", () => {
  const end = "</think>";
  const cases: { plan: GrammarPlan; marker: string; grammar: ReturnType<typeof chatGrammar> }[] = [
    { plan: { kind: "none" }, marker: `${end}\n`, grammar: undefined },
    // The deferred grammar starts with the end marker: the model writes it under the grammar.
    {
      plan: { kind: "after-reasoning", gbnf: GBNF, triggers: [{ type: "word", value: end }], reasoningEnd: end },
      marker: "",
      grammar: { gbnf: GBNF },
    },
    {
      plan: { kind: "strict", gbnf: GBNF, constrains: "tool-calls", afterReasoning: 'root ::= "y"' },
      marker: `${end}\n`,
      grammar: { gbnf: 'root ::= "y"' },
    },
    {
      plan: { kind: "strict", gbnf: GBNF, constrains: "response-format", afterReasoning: null },
      marker: `${end}\n`,
      grammar: { gbnf: GBNF },
    },
    // Past the reasoning, a lazy grammar's triggers are no longer guarded by its end.
    {
      plan: lazy([{ type: "word", value: "<tool_call>" }], end),
      marker: `${end}\n`,
      grammar: { gbnf: GBNF, lazy: { patterns: ["^[\\s\\S]*?(<tool_call>)[\\s\\S]*"] } },
    },
  ];
  it.each(cases)("$plan.kind", ({ plan, marker, grammar }) => {
    expect(afterReasoningClosed(plan, end, tok, undefined)).toEqual({ marker, grammar });
  });
});
