// The class slices of the mask engine (native/grammar/slice*.cc) have three constructions: by
// exclusion (edge bitsets of the prefix tree), by one forward scan, and the reference descent
// child by child. toolwright-grammar-tool's `slices` mode builds a table of classes (JSON string
// bodies, \S, identifiers, hex, a class and a narrower first character, ...) below the root and
// a sample of nodes by all three; every slice must be the same. It also compiles a table of small
// grammars: each builds, with the grammar, the root slice of every class it repeats (and a broad
// class it does not repeat, or a narrow one, builds none); compiled again, it builds nothing.
import { describe, expect, it } from "vitest";
import { runGrammarTool, vocabPath } from "../helpers/grammar-tool.js";

interface SlicesResult {
  mode: "slices";
  vocab_tokens: number;
  classes: number;
  nodes: number;
  checks: number;
  failures: { class: string; node: number; why: string }[];
  prebuild: { grammar: string; built: number; again: number; expected: number }[];
}

const VOCABS = [
  { vocab: "llama-bpe", tokens: 128256 },
  { vocab: "qwen2", tokens: 151936 },
  { vocab: "llama-spm", tokens: 32000 },
];

describe("grammar engine: class slice constructions agree", () => {
  it.each(VOCABS)("$vocab", { timeout: 120_000 }, async ({ vocab, tokens }) => {
    const { code, result, stderr } = await runGrammarTool<SlicesResult>(["slices", "--vocab", vocabPath(vocab)]);
    expect(result.failures, stderr).toEqual([]);
    expect(result.vocab_tokens).toBe(tokens);
    expect(result.classes).toBeGreaterThanOrEqual(16);
    // The root and a sample of inner nodes, for every class.
    expect(result.nodes).toBeGreaterThan(10);
    expect(result.checks).toBe(result.classes * result.nodes);
    expect(result.prebuild.length).toBeGreaterThanOrEqual(8);
    for (const p of result.prebuild) {
      expect(p.built, p.grammar).toBe(p.expected);
      expect(p.again, p.grammar).toBe(0);
    }
    // Both kinds of case are in the table: grammars that build slices and grammars that do not.
    expect(result.prebuild.some((p) => p.expected > 0) && result.prebuild.some((p) => p.expected === 0)).toBe(true);
    expect(code).toBe(0);
  });
});
