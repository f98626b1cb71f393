// Matcher behaviour beyond masks: lazy activation (trigger token, word, pattern, end of
// reasoning), end of generation, raw-byte input, and rollback — traced step by step over a real
// vocabulary with toolwright-grammar-tool's `trace` mode.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { GBNF_FIXTURES, type TraceResult, runGrammarTool, vocabPath } from "../helpers/grammar-tool.js";

const CALL_GRAMMAR = 'root ::= "{" [a-z]+ "}"\n';
const dir = mkdtempSync(join(tmpdir(), "tw-gbnf-trace-"));
const grammarFile = join(dir, "call.gbnf");
writeFileSync(grammarFile, CALL_GRAMMAR);

async function trace(text: string, extra: string[] = [], file = grammarFile): Promise<TraceResult> {
  const { result } = await runGrammarTool<TraceResult>([
    "trace",
    "--vocab",
    vocabPath("llama-bpe"),
    "--text",
    text,
    ...extra,
    file,
  ]);
  expect(result.ok, result.error).toBe(true);
  return result;
}

/** Index of the first step whose text so far contains `marker`. */
function stepReaching(result: TraceResult, marker: string): number {
  let text = "";
  return result.steps.findIndex((s) => (text += s.piece).includes(marker));
}

describe("grammar matcher", () => {
  it("constrains from the first token when not lazy, and allows end of generation only when complete", async () => {
    const r = await trace("{abc}");
    expect(r.steps.every((s) => s.active && s.allowed && s.accepted)).toBe(true);
    expect(r.steps[0]!.n_allowed).toBeLessThan(100);
    expect(r.steps.slice(0, -1).every((s) => !s.accepting)).toBe(true);
    expect(r.final).toEqual({ accepting: true, eog_allowed: true, n_accepted: r.steps.length });
  });

  it("refuses a token the grammar cannot take and keeps its state", async () => {
    const r = await trace("{ab1}");
    const bad = r.steps.findIndex((s) => !s.accepted);
    expect(bad).toBeGreaterThan(0);
    expect(r.steps[bad]!.allowed).toBe(false);
    expect(r.final.n_accepted).toBe(r.steps.filter((s) => s.accepted).length);
  });

  it("waits for a trigger word, then feeds the text from the trigger on", async () => {
    const text = "Sure, here it is: {weather}";
    const r = await trace(text, ["--trigger-word", "{"]);
    const trigger = stepReaching(r, "{");
    expect(trigger).toBeGreaterThan(0);
    for (const s of r.steps.slice(0, trigger)) {
      expect(s).toMatchObject({ active: false, accepting: true, n_allowed: r.n_vocab });
    }
    expect(r.steps[trigger]!.active).toBe(true);
    expect(r.steps.slice(trigger + 1).every((s) => s.allowed && s.n_allowed < r.n_vocab)).toBe(true);
    expect(r.final.accepting).toBe(true);
  });

  it("activates on a trigger pattern from its first capture group", async () => {
    const r = await trace("calling now {abc}", ["--trigger-pattern", "[\\s\\S]*?(\\{)[\\s\\S]*"]);
    const trigger = stepReaching(r, "{");
    expect(r.steps[trigger]!.active).toBe(true);
    expect(r.steps[trigger - 1]!.active).toBe(false);
    expect(r.final.accepting).toBe(true);
  });

  it("activates at the end of reasoning and feeds only what follows it", async () => {
    const r = await trace("<think>I should call {x} maybe</think>{ok}", ["--reasoning-end", "</think>"]);
    const end = stepReaching(r, "</think>");
    expect(end).toBeGreaterThan(0);
    // A "{x}" inside the reasoning does not start the grammar.
    expect(r.steps.slice(0, end).every((s) => !s.active)).toBe(true);
    expect(r.steps[end]!.active).toBe(true);
    expect(r.steps.slice(end + 1).every((s) => s.allowed && s.accepted)).toBe(true);
    expect(r.final.accepting).toBe(true);
  });

  it("activates on a trigger token and feeds the token itself", async () => {
    const file = join(dir, "spaced.gbnf");
    writeFileSync(file, 'root ::= " "? "{" [a-z]+ "}"\n');
    const run = async (extra: string[]) =>
      (
        await runGrammarTool<TraceResult>([
          "trace",
          "--vocab",
          vocabPath("llama-bpe"),
          "--text",
          "ok {abc}",
          ...extra,
          file,
        ])
      ).result;
    // Whatever token carries the "{" in this vocabulary becomes the trigger.
    const probe = await run([]);
    const brace = probe.steps.find((s) => s.piece.includes("{"))!;
    const r = await run(["--trigger-token", String(brace.token)]);
    const trigger = r.steps.findIndex((s) => s.token === brace.token);
    expect(trigger).toBeGreaterThan(0);
    expect(r.steps.slice(0, trigger).every((s) => !s.active && s.n_allowed === r.n_vocab)).toBe(true);
    expect(r.steps[trigger]).toMatchObject({ active: true, accepted: true });
    expect(r.steps.slice(trigger + 1).every((s) => s.allowed && s.accepted)).toBe(true);
    expect(r.final.accepting).toBe(true);
  });

  // A lazy grammar waits through whatever the model writes before its trigger. The chat layer's triggers are
  // "anywhere" patterns (`^[\s\S]*?(TRIGGER)[\s\S]*`, optionally after a guard such as the reasoning end):
  // matched as written with std::regex over the whole output, 64k characters overflowed the stack (a crash)
  // and each token cost time linear in the text so far (found by npm run fuzz).
  it.each([
    { name: "trigger word", pattern: "^[\\s\\S]*?(<tool_call>)[\\s\\S]*", prefix: "", first: "<tool_call>" },
    {
      name: "trigger words, no anchor",
      pattern: "[\\s\\S]*?(<tool_call>|\\[TOOL)[\\s\\S]*",
      prefix: "",
      first: "<tool_call>",
    },
    { name: "regex trigger", pattern: "^[\\s\\S]*?(<tool_call>\\s*\\{)[\\s\\S]*", prefix: "", first: "<tool_call>{" },
    {
      name: "guarded by the reasoning end",
      pattern: "^[\\s\\S]*?</think>[\\s\\S]*?(<tool_call>)[\\s\\S]*",
      prefix: "<tool_call> inside reasoning </think>",
      first: "<tool_call>",
    },
    {
      // The chat layer escapes "/" (src/session/grammar.ts): the guard is still one literal.
      name: "guard escaped as the chat layer writes it",
      pattern: "^[\\s\\S]*?<\\/think>[\\s\\S]*?(<tool_call>)[\\s\\S]*",
      prefix: "<tool_call> inside reasoning </think>",
      first: "<tool_call>",
    },
  ])("a $name after 100,000 characters of text activates the grammar there", async ({ pattern, prefix, first }) => {
    const file = join(dir, "after-long-text.gbnf");
    writeFileSync(file, 'root ::= "<tool_call>" "{"? [a-z]+\n');
    const text = `${prefix}${"hello world ".repeat(8400)}${first}abc`;
    const args = ["trace", "--vocab", vocabPath("llama-bpe"), "--bytes", "--lazy", "--trigger-pattern", pattern];
    const r = (await runGrammarTool<TraceResult>([...args, "--text", text, file])).result;
    // The grammar turns active at the token that completes the trigger, not before.
    const active = r.steps.findIndex((s) => s.active);
    const before = r.steps
      .slice(0, active)
      .map((s) => s.piece)
      .join("");
    const triggerAt = text.lastIndexOf(first);
    expect(active).toBeGreaterThan(8000);
    expect(before.length).toBeLessThan(triggerAt + first.length);
    expect(before.length + r.steps[active]!.piece.length).toBeGreaterThan(triggerAt);
    expect(r.steps.every((s) => s.accepted)).toBe(true);
    expect(r.final.accepting).toBe(true);
  });

  it("accepts raw bytes, including characters split across calls", async () => {
    const r = await trace("{abc}", ["--bytes"]);
    expect(r.steps.every((s) => s.accepted)).toBe(true);
    expect(r.final.accepting).toBe(true);
  });

  // SentencePiece byte-fallback tokens deliver a character missing from the vocabulary one byte
  // at a time: between its bytes only continuation bytes may follow, and the grammar cannot end.
  describe("partial UTF-8 (llama-spm byte tokens)", () => {
    const spmTrace = async (gbnf: string, text: string): Promise<TraceResult> => {
      const file = join(dir, `utf8-${gbnf.length}.gbnf`);
      writeFileSync(file, gbnf);
      return (await runGrammarTool<TraceResult>(["trace", "--vocab", vocabPath("llama-spm"), "--text", text, file]))
        .result;
    };
    const isByte = (s: { piece: string }) => s.piece.length === 1 && s.piece.charCodeAt(0) >= 0x80;

    it("between the bytes of a character only continuation bytes are allowed", async () => {
      const r = await spmTrace('root ::= " {" [^}]+ "}"\n', "{日本😀}");
      const bytes = r.steps.filter(isByte);
      expect(bytes.map((s) => s.piece.charCodeAt(0))).toEqual([0xf0, 0x9f, 0x98, 0x80]);
      expect(r.steps.every((s) => s.allowed && s.accepted)).toBe(true);
      // The steps after the lead byte: at most the 64 continuation-byte tokens, never the end.
      const lead = r.steps.indexOf(bytes[0]!);
      for (const s of r.steps.slice(lead + 1, lead + 4)) {
        expect(s.n_allowed).toBeGreaterThan(0);
        expect(s.n_allowed).toBeLessThanOrEqual(64);
        expect(s.accepting).toBe(false);
      }
      expect(r.steps[lead + 4]!.n_allowed).toBeGreaterThan(1000);
      expect(r.final).toEqual({ accepting: true, eog_allowed: true, n_accepted: r.steps.length });
    });

    it("a byte that cannot lead to a character of the class is masked, and completing it is refused", async () => {
      // ぁ-ゟ is E3 81 81 .. E3 82 9F: after E3 only 81 and 82 can follow.
      const r = await spmTrace('root ::= " {" [ぁ-ゟ]+ "}"\n', "{ぁ😀}");
      const firstByte = r.steps.findIndex(isByte);
      expect(r.steps[firstByte]!.piece.charCodeAt(0)).toBe(0xe3);
      expect(r.steps[firstByte + 1]!.n_allowed).toBe(2);
      const emoji = r.steps.findIndex((s) => s.piece.charCodeAt(0) === 0xf0);
      expect(r.steps[emoji]!.allowed).toBe(false);
      // As in llama.cpp, a partial character is only checked once complete: the last byte is refused.
      expect(r.steps.find((s) => s.piece.charCodeAt(0) === 0x80)!.accepted).toBe(false);
      expect(r.final).toMatchObject({ accepting: false, eog_allowed: false });
    });
  });

  // Only well-formed UTF-8 gets through: llama.cpp's decoder takes overlong forms, surrogates and
  // code points above U+10FFFF as one character each, so a string of at most 3 characters could
  // hold bytes that do not decode. Ours refuses such a sequence at its first wrong byte.
  describe("well-formed UTF-8 only (one byte per token)", () => {
    const file = join(dir, "utf8-strict.gbnf");
    writeFileSync(file, 'root ::= "{" [^}]{1,3} "}"\n');
    const CASES: { what: string; hex: string; refusedAt: number | null }[] = [
      { what: "a 4-byte character (U+1F600)", hex: "f09f9880", refusedAt: null },
      { what: "the last code point before the surrogates (U+D7FF)", hex: "ed9fbf", refusedAt: null },
      { what: "the last code point (U+10FFFF)", hex: "f48fbfbf", refusedAt: null },
      { what: "a 2-byte character (U+00A9)", hex: "c2a9", refusedAt: null },
      { what: "an overlong 4-byte NUL", hex: "f0808080", refusedAt: 1 },
      { what: "an overlong 3-byte form", hex: "e08080", refusedAt: 1 },
      { what: "a surrogate (U+D800)", hex: "eda080", refusedAt: 1 },
      { what: "a code point above U+10FFFF", hex: "f4908080", refusedAt: 1 },
      { what: "the overlong lead byte C0", hex: "c080", refusedAt: 0 },
      { what: "the overlong lead byte C1", hex: "c1bf", refusedAt: 0 },
      { what: "the lead byte F5", hex: "f5808080", refusedAt: 0 },
      { what: "a continuation byte with no lead", hex: "80", refusedAt: 0 },
      { what: "an ASCII byte inside a sequence", hex: "e341", refusedAt: 1 },
    ];
    it.each(CASES)("$what", async ({ hex, refusedAt }) => {
      const { result: r } = await runGrammarTool<TraceResult>([
        "trace",
        "--vocab",
        vocabPath("llama-spm"),
        "--hex",
        `7b${hex}7d`,
        file,
      ]);
      expect(r.ok, r.error).toBe(true);
      const seq = r.steps.slice(1, 1 + hex.length / 2);
      const firstRefused = seq.findIndex((s) => !s.allowed);
      expect(firstRefused === -1 ? null : firstRefused).toBe(refusedAt);
      for (const s of seq.slice(0, refusedAt ?? seq.length)) expect(s.accepted).toBe(true);
      if (refusedAt === null) expect(r.final).toMatchObject({ accepting: true, eog_allowed: true });
      // A refused byte is also refused when fed directly, and the state stays where it was.
      else expect(seq[refusedAt]!.accepted).toBe(false);
    });
  });

  it("rolls back accepted tokens, across the activation point too", async () => {
    const plain = await trace("{abc}", ["--rollback", "1"]);
    expect(plain.rollback).toEqual({ ok: true, n_accepted: plain.steps.length - 1, active: true, accepting: false });
    const lazy = await trace("go {abc}", ["--trigger-word", "{", "--rollback", "99"]);
    expect(lazy.rollback?.ok).toBe(false);
    const all = await trace("go {abc}", ["--trigger-word", "{", "--rollback", String(lazy.steps.length)]);
    expect(all.rollback).toEqual({ ok: true, n_accepted: 0, active: false, accepting: true });
  });
});

// A bounded string is a chain of one rule per character left, so each token in it met a new parser state.
// Within a token's reach the chain's depth does not matter (native/grammar/repetition_horizon.h), so its
// masks are those of the unbounded string and come from the cache in the same way.
describe("grammar masks in a long bounded repetition", () => {
  const text = `"${"the quick brown fox jumps over the lazy dog ".repeat(9)}"`;
  let files = 0;
  async function traceGrammar(gbnf: string, input = text): Promise<TraceResult> {
    const file = join(dir, `bounded-${files++}.gbnf`);
    writeFileSync(file, gbnf);
    return trace(input, [], file);
  }

  it("are the unbounded string's masks, and computed about as often", async () => {
    const bounded = await traceGrammar('root ::= "\\"" [a-z ]{0,1000} "\\""\n');
    const unbounded = await traceGrammar('root ::= "\\"" [a-z ]* "\\""\n');
    expect(bounded.steps.length).toBeGreaterThan(60);
    expect(bounded.steps.every((s) => s.allowed && s.accepted)).toBe(true);
    expect(bounded.steps.map((s) => s.n_allowed)).toEqual(unbounded.steps.map((s) => s.n_allowed));
    const fresh = (r: TraceResult) => r.steps.filter((s) => !s.cached).length;
    expect(fresh(unbounded)).toBeLessThan(8);
    expect(fresh(bounded)).toBeLessThanOrEqual(fresh(unbounded) + 3);
  });

  it("stand in the repeated item's loop, so masks build about the unbounded string's parser states", async () => {
    const built = (r: TraceResult) => r.steps.reduce((n, s) => n + s.new_states, 0);
    const bounded = await traceGrammar('root ::= "\\"" [a-z ]{0,1000} "\\""\n');
    const unbounded = await traceGrammar('root ::= "\\"" [a-z ]* "\\""\n');
    // Standing at the horizon's depth, each character of a token in the string would meet a new rule of the
    // chain: a state per code point of the longest token (143 here), and a state per character of tokens such
    // as `"the` in the mask before the string, which enter the chain within the walk.
    expect(built(unbounded)).toBeLessThan(20);
    expect(built(bounded)).toBeLessThanOrEqual(built(unbounded) + 3);
  });

  // A JSON string of `char{1,255}` (a schema's maxLength): the item is a rule (a character or an escape), so
  // the mask plans a chain of the states after 1, 2, ... characters, as deep as the longest token. Each of
  // those states stands in the item's loop too, so the chain loops after one character.
  it("plan a JSON string's characters as a loop, with about the unbounded string's parser states", async () => {
    const char = 'char ::= [^\\x00-\\x1F"\\\\] | "\\\\" (["/\\\\bfnrt] | "u" [0-9A-Fa-f]{4})\n';
    const within = `"${"the quick brown fox jumps over the lazy dog ".repeat(2)}"`;
    const bounded = await traceGrammar(`root ::= "\\"" char{1,255} "\\""\n${char}`, within);
    const unbounded = await traceGrammar(`root ::= "\\"" char+ "\\""\n${char}`, within);
    expect(bounded.steps.every((s) => s.allowed && s.accepted)).toBe(true);
    expect(bounded.steps.map((s) => s.n_allowed)).toEqual(unbounded.steps.map((s) => s.n_allowed));
    // The masks inside the string (after its quote): a chain of a state per character built 119 of them.
    const inside = (r: TraceResult, key: "new_states" | "nodes") => r.steps.slice(1).reduce((n, s) => n + s[key], 0);
    expect(inside(unbounded, "new_states")).toBeLessThan(12);
    expect(inside(bounded, "new_states")).toBeLessThanOrEqual(inside(unbounded, "new_states") + 4);
    // And the slice still covers the class: the walk steps over the children it does not (15,000 nodes when
    // the stand-in was taken for the real successor of the class's first character).
    expect(inside(bounded, "nodes")).toBeGreaterThan(0);
    expect(inside(bounded, "nodes")).toBeLessThan(2 * inside(unbounded, "nodes"));
  });

  it("meet the bound: no more characters once the repetition is full", async () => {
    const full = await traceGrammar(`root ::= "\\"" [a-z ]{0,${text.length - 2}} "\\""\n`);
    expect(full.steps.every((s) => s.allowed && s.accepted)).toBe(true);
    const short = await traceGrammar(`root ::= "\\"" [a-z ]{0,${text.length - 3}} "\\""\n`);
    // The last token is ` "`: its space is one character too many.
    expect(short.steps.slice(0, -1).every((s) => s.allowed && s.accepted)).toBe(true);
    expect(short.steps.at(-1)).toMatchObject({ piece: ' "', allowed: false, accepted: false });
  });
});

// An object counting the required properties seen is a rule per count (test/fixtures/gbnf/counted-keys.gbnf):
// after each comma the parser state is new, but its next key masks alike, and its stacks are cut below the
// rule they call next (opt or req), so one position serves every count.
describe("grammar positions of an object's next key", () => {
  it("are one cut position whatever the count of properties before it", async () => {
    const fixture = join(GBNF_FIXTURES, "counted-keys");
    const r = await trace(readFileSync(`${fixture}.txt`, "utf8"), [], `${fixture}.gbnf`);
    expect(r.steps.every((s) => s.allowed && s.accepted)).toBe(true);
    // The steps right after `{"id": 1,` and `"name": "n",`: one and two required properties seen.
    let text = "";
    const afterComma = r.steps.filter((s) => {
      const at = text.endsWith(",");
      text += s.piece;
      return at;
    });
    const [afterId, afterName] = afterComma;
    expect(afterComma.length).toBeGreaterThanOrEqual(4);
    expect(afterId!.state).not.toBe(afterName!.state);
    expect(afterId!.cut).not.toBeNull();
    expect(afterId!.cut).toBe(afterName!.cut);
  });
});
