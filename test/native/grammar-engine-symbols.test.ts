// The parser's symbol table and rule table on the cases where numbering matters: rules defined
// twice, used before they are defined, names that share long prefixes or differ in one
// character, and grammars of thousands of rules. (Synthesized names, "root_1", cannot collide
// with written ones: '_' is not a name character.) Masks must match llama.cpp's at every step (its parser
// numbers symbols the same way), and errors keep their line, column and rule.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  type CheckEntry,
  type DiffResult,
  expectGrammarErrors,
  GBNF_FIXTURES,
  type GrammarErrorCase,
  runGrammarTool,
  vocabPath,
} from "../helpers/grammar-tool.js";

interface GrammarCase {
  name: string;
  gbnf: string;
  text?: string; // a valid text the walk follows first
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

const VALID: GrammarCase[] = [
  {
    name: "duplicate definition, the last one wins",
    gbnf: 'root ::= item item\nitem ::= "a"\nitem ::= "b" | "c"\n',
    text: "bc",
  },
  { name: "forward references", gbnf: 'root ::= a b\nb ::= c "y"\nc ::= "x"\na ::= "w" c\n', text: "wxxy" },
  {
    name: "names differing in one character",
    gbnf:
      'root ::= item-1 item-10 item-1-0 ("x" | item-0)\nitem-1 ::= "a"\nitem-10 ::= "b"\nitem-1-0 ::= ' +
      '"c"\nitem-0 ::= "d"\n',
    text: "abcd",
  },
  {
    name: "names sharing a long prefix",
    gbnf: `root ::= ${range(300)
      .map((i) => `config-fields-item-0-properties-value-s1-${i}`)
      .join(" | ")}\n${range(300)
      .map((i) => `config-fields-item-0-properties-value-s1-${i} ::= "${i}" ("," [a-c])*\n`)
      .join("")}`,
    text: "123,a,b",
  },
  {
    name: "redefined rule used before and after",
    gbnf: 'root ::= r (r "-")? r\nr ::= "k"\nr ::= "m" | "n"\n',
    text: "mn-m",
  },
  {
    name: "20,000 chained rules",
    gbnf: `root ::= r0\n${range(20000)
      .map((i) => `r${i} ::= "x" r${i + 1} | "y"\n`)
      .join("")}r20000 ::= "z"\n`,
    text: "xxxxxy",
  },
  {
    name: "5,000 rules defined after their use, in reverse",
    gbnf: `root ::= ${range(50)
      .map((i) => `w${i * 100}`)
      .join(" ")}\n${range(5000)
      .reverse()
      .map((i) => `w${i} ::= [a-e] | "${i % 10}"\n`)
      .join("")}`,
    text: "abcde".repeat(10),
  },
  {
    name: "1,000 synthesized rules from one repetition",
    gbnf: 'root ::= ("a" [b-c]?){0,1000} "."\n',
    text: "abacaab.",
  },
];

function writeGrammars(cases: GrammarCase[]): string {
  const dir = mkdtempSync(join(tmpdir(), "tw-gbnf-symbols-"));
  cases.forEach((c, i) => {
    const base = join(dir, `${String(i).padStart(2, "0")}-${c.name.replace(/[^a-z0-9]+/gi, "-")}`);
    writeFileSync(`${base}.gbnf`, c.gbnf);
    if (c.text !== undefined) writeFileSync(`${base}.txt`, c.text);
  });
  return dir;
}

const ERRORS: GrammarErrorCase[] = [
  {
    name: "a reference only the overwritten definition made",
    gbnf: 'root ::= a\na ::= missing\na ::= "ok"\n',
    message: /^undefined rule 'missing'$/,
    rule: "a",
    line: 2,
    column: 7,
  },
  {
    name: "'_' in a name (kept for synthesized ones)",
    gbnf: 'root ::= root_2 ("x" | "y")\nroot_2 ::= "q"\n',
    message: /^expected end of line at '_2 \("x" \| "y"\)'$/,
    rule: "root",
    line: 1,
    column: 14,
  },
  {
    name: "undefined rule deep in 20,000 rules",
    gbnf: `root ::= r0\n${range(20000)
      .map((i) => `r${i} ::= "x" ${i === 12345 ? "gone" : `r${i + 1}`} | "y"\n`)
      .join("")}r20000 ::= "z"\n`,
    message: /^undefined rule 'gone'$/,
    rule: "r12345",
    line: 12347,
    column: 16,
  },
  {
    name: "left recursion through 3,000 rules",
    gbnf: `root ::= r0\n${range(3000)
      .map((i) => `r${i} ::= r${(i + 1) % 3000} "x" | "y"\n`)
      .join("")}`,
    message: /^left recursion: r0 -> r1 -> r2 -> .* -> r2999 -> r0$/,
    rule: "r0",
    line: 0,
    column: 0,
  },
  {
    name: "a syntax error after 20,000 rules",
    gbnf: `${range(20000)
      .map((i) => `r${i} ::= "x" r${i + 1}?\n`)
      .join("")}r20000 ::= "z" )\n`,
    message: /^expected end of line at '\)'$/,
    rule: "r20000",
    line: 20001,
    column: 16,
  },
];

const TIMEOUT_MS = 300_000;

describe("grammar engine symbol and rule tables", () => {
  it("masks match llama.cpp's on duplicate, forward, look-alike and thousands of rules", {
    timeout: TIMEOUT_MS,
  }, async () => {
    const dir = writeGrammars(VALID);
    const args = ["diff", "--vocab", vocabPath("llama-bpe"), "--walks", "2", "--steps", "24", "--seed", "3", dir];
    const { code, result, stderr } = await runGrammarTool<DiffResult>(args, TIMEOUT_MS);
    expect(result.divergences, stderr).toEqual([]);
    expect(result.validity_mismatches, stderr).toEqual([]);
    expect(result.grammars).toBe(VALID.length);
    expect(result.invalid_both).toBe(0);
    expect(result.steps).toBeGreaterThan(VALID.length * 10);
    expect(code).toBe(0);
  });

  it("keeps message, rule, line and column of errors", async () => {
    await expectGrammarErrors(ERRORS);
  });

  // The root named by the caller may be a synthesized rule, as in llama.cpp ("<rule>_<id>", ids
  // counted over all names): spelled out on lookup, since the table does not store those names.
  it.each([
    { root: "root", ok: true },
    { root: "root_1", ok: true },
    { root: "x_3", ok: true },
    { root: "root_2", ok: false },
    { root: "root_01", ok: false },
    { root: "x_2", ok: false },
    { root: "root_", ok: false },
    { root: "root_1x", ok: false },
  ])("root $root names a rule: $ok", async ({ root, ok }) => {
    const dir = mkdtempSync(join(tmpdir(), "tw-gbnf-roots-"));
    const file = join(dir, "synth.gbnf");
    writeFileSync(file, 'root ::= ("a" | "b") "c" x\nx ::= "d"*\n');
    const { result } = await runGrammarTool<CheckEntry[]>(["check", "--root", root, file]);
    expect(result[0]?.ok).toBe(ok);
    if (!ok) expect(result[0]?.error?.message).toBe(`grammar has no rule named '${root}'`);
  });

  it("compile mode times every grammar that compiles and counts the rest", async () => {
    const dir = writeGrammars([...VALID, { name: "undefined", gbnf: "root ::= nowhere\n" }]);
    const { code, result } = await runGrammarTool<{
      mode: string;
      cases: number;
      failed: number;
      runs: number;
      compile_us: { n: number; p50: number; max: number };
      compile_cpu_us: { n: number };
      slowest: { grammar: string; bytes: number }[];
    }>(["compile", "--vocab", vocabPath("llama-bpe"), "--runs", "2", dir, join(GBNF_FIXTURES, "invalid")]);
    expect(code).toBe(0);
    expect(result.mode).toBe("compile");
    expect(result.runs).toBe(2);
    expect(result.cases).toBe(VALID.length);
    expect(result.failed).toBeGreaterThanOrEqual(1 + 10); // ours plus the invalid fixtures
    expect(result.compile_us.n).toBe(VALID.length);
    expect(result.compile_cpu_us.n).toBe(VALID.length);
    expect(result.compile_us.max).toBeGreaterThanOrEqual(result.compile_us.p50);
    // The largest grammar is among the slowest listed, with its size.
    const largest = result.slowest.find((s) => s.grammar.includes("20-000-chained-rules"));
    expect(largest?.bytes).toBe(VALID[5]!.gbnf.length);
  });
});
