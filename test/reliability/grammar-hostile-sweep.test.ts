// A seeded sweep of hostile grammars through generation on both engines: deep nesting, long
// chains, inverted or huge repetition bounds, left recursion, wide alternations and classes,
// undefined rules, oversized trigger patterns. Each generates or throws an error with a message;
// none crashes or hangs the process. All run in one child process.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { isolated } from "../helpers/isolated.js";
import { ensureTestModel } from "../helpers/test-models.js";
import { lcgRandom } from "../helpers/seeded-random.js";

const rng = lcgRandom;

type Case = { gbnf: string; patterns?: string[] };
const pick = <T>(next: () => number, xs: T[]): T => xs[Math.floor(next() * xs.length)]!;

function hostileGrammar(next: () => number): Case {
  const n = pick(next, [3, 50, 600, 5000, 100_000]);
  switch (Math.floor(next() * 8)) {
    case 0:
      return { gbnf: `root ::= ${"(".repeat(n)}"a"${")".repeat(n)}` };
    case 1:
      return {
        gbnf: Array.from(
          { length: n },
          (_, i) => `${i === 0 ? "root" : `r${i}`} ::= ${i + 1 < n ? `r${i + 1}` : '"a"'}`,
        ).join("\n"),
      };
    case 2: {
      const [a, b] = [pick(next, [0, 1, 3, 2000, 5000]), pick(next, [0, 1, 2, 3, 2001])];
      return { gbnf: `root ::= "x" ws\nws ::= " "{${a},${b}}` };
    }
    case 3:
      return {
        gbnf: pick(next, [
          'root ::= root "a" | "b"',
          'root ::= a "x"\na ::= b a "y" | "z"\nb ::= "q"?',
          'root ::= a\na ::= b\nb ::= a "c" | "d"',
        ]),
      };
    case 4:
      return { gbnf: `root ::= ${Array.from({ length: Math.min(n, 60_000) }, (_, i) => `"w${i}"`).join(" | ")}` };
    case 5:
      return {
        gbnf:
          `root ::= ` +
          `[${Array.from({ length: Math.min(n, 20_000) }, (_, i) => String.fromCodePoint(0x4e00 + i * 2)).join("")}]+`,
      };
    case 6:
      return {
        gbnf: pick(next, [
          "root ::= undefined-rule",
          "root ::= ",
          'root ::= "a" (',
          "root ::= [a-",
          'root ::= "\\x"',
          "root ::= <[999999999]>",
        ]),
      };
    default:
      return { gbnf: 'root ::= "a"+', patterns: [pick(next, ["a", "(".repeat(n), "x".repeat(n), "[", "a{99999}"])] };
  }
}

let modelPath: string;
beforeAll(async () => {
  modelPath = await ensureTestModel({ vocab: "llama-bpe" });
}, 300_000);

describe("hostile grammars (seeded)", () => {
  it("40 random grammars on both engines generate or throw, never crash or hang", async () => {
    const next = rng(42);
    const cases = Array.from({ length: 40 }, () => hostileGrammar(next));
    // Too big for a command line: the child reads them from a file.
    const file = join(mkdtempSync(join(tmpdir(), "toolwright-grammars-")), "cases.json");
    writeFileSync(file, JSON.stringify(cases));
    const r = await isolated(
      `const model = await lib.loadModel(${JSON.stringify(modelPath)});
       const context = await model.createContext({ contextSize: 256, threads: 1 });
       const out = [];
       for (const c of JSON.parse((await import("node:fs")).readFileSync(${JSON.stringify(file)},
         "utf8"))) for (const engine of ["llama", "toolwright"]) {
         const grammar = { engine, gbnf: c.gbnf, ...(c.patterns ? { lazy: { patterns: c.patterns } } : {}) };
         try { for await (const _ of context.generate({ prompt: "Answer:", maxTokens: 4, grammar, sampling: {
           seed: 1 } })) {} out.push("ok"); }
         catch (e) {
           const named = typeof e?.message === "string" && e.message.length > 10 && !/internal/i.test(e.message);
           out.push(named ? "error" : "BAD " + e?.name + ": " + String(e?.message).slice(0, 200));
         }
       }
       model.dispose();
       return out;`,
      { timeoutMs: 500_000 },
    );
    expect(r.kind, r.stderr).toBe("returned");
    expect((r.value as string[]).filter((o) => o.startsWith("BAD"))).toEqual([]);
  }, 550_000);
});
