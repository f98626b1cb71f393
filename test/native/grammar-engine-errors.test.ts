// Compile errors of our GBNF engine: each names what is wrong, where (line, column) and in which
// rule; the same grammars are rejected by llama.cpp too (see grammar-engine-diff.test.ts).
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  type CheckEntry,
  expectGrammarErrors,
  GBNF_FIXTURES,
  type GrammarErrorCase,
  LLAMA_GRAMMARS,
  runGrammarTool,
  vocabPath,
} from "../helpers/grammar-tool.js";

const ERRORS: GrammarErrorCase[] = [
  {
    name: "undefined rule",
    gbnf: 'root ::= "a" item\nitem ::= "b" missing\n',
    message: /undefined rule 'missing'/,
    rule: "item",
    line: 2,
    column: 14,
  },
  {
    name: "direct left recursion",
    gbnf: 'root ::= expr\nexpr ::= expr "+" [0-9] | [0-9]\n',
    message: /left recursion: expr -> expr/,
    rule: "expr",
    line: 0,
    column: 0,
  },
  {
    name: "left recursion through rules",
    gbnf: 'root ::= a\na ::= b "x"\nb ::= a "y" | "z"\n',
    message: /left recursion: a -> b -> a|left recursion: b -> a -> b/,
    rule: "a",
    line: 0,
    column: 0,
  },
  {
    name: "left recursion through an empty-able rule",
    gbnf: 'root ::= a\na ::= opt a "x" | "y"\nopt ::= "z"?\n',
    message: /left recursion: a -> a/,
    rule: "a",
    line: 0,
    column: 0,
  },
  { name: "missing root", gbnf: 'start ::= "a"\n', message: /no rule named 'root'/, rule: "root", line: 0, column: 0 },
  {
    name: "unknown escape",
    gbnf: 'root ::= "ok"\nnext ::= "a\\q"\n',
    message: /unknown escape/,
    rule: "next",
    line: 2,
    column: 12,
  },
  {
    name: "unterminated literal",
    gbnf: 'root ::= "abc\n',
    message: /unterminated string literal/,
    rule: "root",
    line: 1,
    column: 10,
  },
  {
    name: "unterminated class",
    gbnf: "root ::= [a-z\n",
    message: /unterminated character class/,
    rule: "root",
    line: 1,
    column: 10,
  },
  {
    name: "repetition without item",
    gbnf: 'root ::= "x"\nr ::= + "a"\n',
    message: /repetition operator without a preceding item/,
    rule: "r",
    line: 2,
    column: 7,
  },
  {
    name: "repetition over the limit",
    gbnf: 'root ::= "a"{2001}\n',
    message: /repetition minimum 2001 exceeds 2000/,
    rule: "root",
    line: 1,
    column: 13,
  },
  {
    name: "repetition max below min",
    gbnf: 'root ::= "a"{3,2}\n',
    message: /maximum 2 is below its minimum 3/,
    rule: "root",
    line: 1,
    column: 13,
  },
  { name: "missing ::=", gbnf: 'root = "a"\n', message: /expected '::='/, rule: "root", line: 1, column: 6 },
  { name: "unclosed group", gbnf: 'root ::= ("a" | "b"\n', message: /expected '\)'/, rule: "root", line: 2, column: 1 },
  {
    name: "short hex escape",
    gbnf: 'root ::= "\\x4"\n',
    message: /expected 2 hex digits/,
    rule: "root",
    line: 1,
    column: 13,
  },
  {
    name: "token text without vocabulary",
    gbnf: "root ::= <think>\n",
    message: /needs a vocabulary/,
    rule: "root",
    line: 1,
    column: 10,
  },
  { name: "empty grammar", gbnf: "# nothing here\n", message: /no rules/, rule: "", line: 0, column: 0 },
];

function writeGrammars(cases: { name: string; gbnf: string }[]): string[] {
  const dir = mkdtempSync(join(tmpdir(), "tw-gbnf-"));
  return cases.map((c, i) => {
    const file = join(dir, `${String(i).padStart(2, "0")}-${c.name.replace(/[^a-z0-9]+/gi, "-")}.gbnf`);
    writeFileSync(file, c.gbnf);
    return file;
  });
}

describe("grammar engine compile errors", () => {
  it("reports message, rule, line and column for each bad grammar", async () => {
    await expectGrammarErrors(ERRORS);
  });

  it("compiles every valid fixture and llama.cpp example grammar", async () => {
    const { result } = await runGrammarTool<CheckEntry[]>([
      "check",
      "--vocab",
      vocabPath("llama-bpe"),
      GBNF_FIXTURES,
      LLAMA_GRAMMARS,
    ]);
    expect(result.length).toBeGreaterThanOrEqual(20);
    expect(result.filter((r) => !r.ok)).toEqual([]);
  });

  it("resolves <text> token references with the vocabulary, and rejects text that is not one token", async () => {
    const [one, several] = writeGrammars([
      { name: "one", gbnf: "root ::= <|eot_id|> | !<|begin_of_text|>\n" },
      { name: "several", gbnf: "root ::= <not a single token>\n" },
    ]);
    const { result } = await runGrammarTool<CheckEntry[]>(["check", "--vocab", vocabPath("llama-bpe"), one!, several!]);
    expect(result[0]?.ok).toBe(true);
    expect(result[1]?.ok).toBe(false);
    expect(result[1]?.error?.message).toMatch(/'<not a single token>' is not exactly one token/);
  });
});
