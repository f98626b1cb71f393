/**
 * How chat requests hand lazy grammars to the runtime: word/pattern triggers become whole-output
 * patterns whose first capture group starts the grammar; with reasoning forced open, a trigger
 * only counts after the reasoning end. Checked with JS regexes (ECMAScript, like std::regex's
 * default grammar that the runtime uses).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadModel, type Model } from "../../src/index.js";
import { chatGrammar } from "../../src/session/grammar.js";
import type { ChatParams } from "../../src/chat/index.js";
import { ensureTestModel } from "../helpers/test-models.js";

let model: Model;
beforeAll(async () => {
  model = await loadModel(await ensureTestModel({ vocab: "llama-spm" }), { vocabOnly: true });
});
afterAll(() => model?.dispose());

const params = (over: Partial<ChatParams>): ChatParams =>
  ({
    grammar: 'root ::= "x"',
    grammarLazy: true,
    grammarTriggers: [],
    thinkingForcedOpen: false,
    reasoningEnd: null,
    ...over,
  }) as ChatParams;

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
    expect(chatGrammar(params({ grammar: null }), tok, undefined)).toBeUndefined();
    expect(chatGrammar(params({ grammarLazy: false }), tok, "toolwright")).toEqual({
      gbnf: 'root ::= "x"',
      engine: "toolwright",
    });
  });

  it.each([
    ["word", { type: "word" as const, value: "<tool_call>" }, 'Hi <tool_call>{"a"', 3],
    ["word with regex characters", { type: "word" as const, value: "[TOOL_CALLS]" }, "ok [TOOL_CALLS][", 3],
    ["pattern without group", { type: "pattern" as const, value: "<\\|tool[a-z]*\\|>" }, "xx<|toolcall|>{", 2],
    ["pattern with its own group", { type: "pattern" as const, value: '\\n+(\\{"name")' }, 'text\n\n{"name": 1', 6],
  ])("%s trigger", (_name, trigger, output, at) => {
    const g = chatGrammar(params({ grammarTriggers: [trigger] }), tok, undefined)!;
    expect(g.lazy!.patterns).toHaveLength(1);
    expect(start(g.lazy!.patterns![0]!, output)).toBe(at);
    expect(start(g.lazy!.patterns![0]!, "no trigger here")).toBeNull();
  });

  it("with reasoning forced open, a trigger inside the reasoning does not count", () => {
    const g = chatGrammar(
      params({
        thinkingForcedOpen: true,
        reasoningEnd: "</think>",
        grammarTriggers: [{ type: "word", value: "<tool_call>" }],
      }),
      tok,
      undefined,
    )!;
    const pattern = g.lazy!.patterns![0]!;
    expect(start(pattern, "thinking <tool_call> still thinking")).toBeNull();
    expect(start(pattern, "a <tool_call> b</think>\n<tool_call>{")).toBe("a <tool_call> b</think>\n".length);
  });

  it("the deferred grammar's own reasoning-end trigger is not guarded", () => {
    const g = chatGrammar(
      params({
        thinkingForcedOpen: true,
        reasoningEnd: "</think>",
        grammarTriggers: [{ type: "word", value: "</think>" }],
      }),
      tok,
      undefined,
    )!;
    expect(start(g.lazy!.patterns![0]!, "reason</think>\n{")).toBe(6);
  });

  it("a token trigger is a lazy token when the vocabulary has it whole, else a word", () => {
    const g = chatGrammar(
      params({
        grammarTriggers: [
          { type: "token", value: "</s>" },
          { type: "token", value: "<|python_tag|>" },
        ],
      }),
      tok,
      undefined,
    )!;
    expect(g.lazy!.tokens).toEqual([model.specialTokens.eos]);
    expect(start(g.lazy!.patterns![0]!, "a<|python_tag|>x")).toBe(1);
  });
});
