// Hostile grammars handed to generation, on both engines: 100,000 nested groups, 100,000 chained
// rules, a 1 MB trigger pattern, `{3,1}` repetitions, nullable left recursion, 200,000
// alternatives, a 100,000-item class. Before the grammar budget these segfaulted, looped forever
// on the main thread or took minutes; each must now end in a clear error naming the rule,
// position or bound (or work). Each case runs in a child process (test/helpers/isolated.ts).
import { beforeAll, describe, expect, it } from "vitest";
import { isolated } from "../helpers/isolated.js";
import { ensureTestModel } from "../helpers/test-models.js";

let modelPath: string;
beforeAll(async () => {
  modelPath = await ensureTestModel({ vocab: "llama-bpe" });
}, 300_000);

/** Generates a few tokens under `grammar` (an expression in the child); returns the text. */
const generate = (grammar: string) =>
  isolated(
    `const model = await lib.loadModel(${JSON.stringify(modelPath)});
     const context = await model.createContext({ contextSize: 256, threads: 1 });
     const grammar = ${grammar};
     let text = "";
     try {
       for await (const chunk of context.generate({ prompt: "Answer:", maxTokens: 8, grammar, sampling: {
         seed: 1 } })) text += chunk.text;
     } finally { model.dispose(); }
     return text;`,
    { timeoutMs: 90_000 },
  );

const nested = (n: number) => `"root ::= " + "(".repeat(${n}) + '"a"' + ")".repeat(${n})`;
const chained = (n: number) =>
  `Array.from({ length: ${n} }, (_, i) => "r" + i + " ::= " + (i + 1 < ${n} ? "r" + (i + 1) : ` +
  `'"a"')).join("\\n").replace(/^r0 /, "root ")`;

describe.each(["llama", "toolwright"])("engine %s", (engine) => {
  it("100,000 nested groups: an error naming the nesting bound and position", async () => {
    const r = await generate(`{ engine: ${JSON.stringify(engine)}, gbnf: ${nested(100_000)} }`);
    expect(r.kind, r.stderr).toBe("threw");
    expect(r.error?.message).toMatch(/nested more than 500.*line 1, column|line 1, column.*nested more than 500/s);
  });

  it("100,000 chained rules: works or an error naming the chain", async () => {
    const r = await generate(`{ engine: ${JSON.stringify(engine)}, gbnf: ${chained(100_000)} }`);
    expect(["returned", "threw"], r.stderr).toContain(r.kind);
    if (r.kind === "threw") expect(r.error?.message).toMatch(/chain of 100000 rules/);
    else expect(r.value).toBe("a");
  });

  it("a 1 MB lazy trigger pattern: an error naming the pattern and the bound", async () => {
    const r = await generate(
      `{ engine: ${JSON.stringify(engine)}, gbnf: 'root ::= "a"', lazy: { patterns: ["x".repeat(1 << 20)] } }`,
    );
    expect(r.kind, r.stderr).toBe("threw");
    expect(r.error?.message).toMatch(/trigger pattern 0 is 1048576 bytes/);
  });

  it.each([
    ["ws{3,1}", `'root ::= ws\\nws ::= " "{3,1}'`, /line 2/],
    ["nullable left recursion", `'root ::= a "x"\\na ::= b a "y" | "z"\\nb ::= "q"?'`, /recursion/i],
  ])("%s: an error with line and column, no endless loop", async (_name, gbnf, message) => {
    const r = await generate(`{ engine: ${JSON.stringify(engine)}, gbnf: ${gbnf} }`);
    expect(r.kind, r.stderr).toBe("threw");
    expect(r.error?.message).toMatch(message);
  });

  it("200,000 alternatives: works or an error naming the bound", async () => {
    const r = await generate(
      `{ engine: ${JSON.stringify(engine)}, gbnf: "root ::= " + Array.from({ length: 200000 }, (_, i) => '"w' ` +
        `+ i + '"').join(" | ") }`,
    );
    expect(["returned", "threw"], r.stderr).toContain(r.kind);
    if (r.kind === "threw") expect(r.error?.message).toMatch(/200000 alternatives/);
  });

  it("a 100,000-item class: works or an error naming the rule and the bound", async () => {
    const r = await generate(
      `{ engine: ${JSON.stringify(engine)}, gbnf: "root ::= [" + Array.from({ length: 100000 }, (_, i) => ` +
        `String.fromCodePoint(0x4e00 + i * 2)).join("") + "]" }`,
    );
    expect(["returned", "threw"], r.stderr).toContain(r.kind);
    if (r.kind === "threw") expect(r.error?.message).toMatch(/character class in rule 'root' has more than 4096/);
  });

  it("a schema pattern of 100,000 alternatives: works or an error naming the bound", async () => {
    const r = await generate(
      `{ engine: ${JSON.stringify(engine)}, gbnf: (await sub("grammar/index.js")).jsonSchemaToGbnf({ type: ` +
        `"string", pattern: "^(" + Array.from({ length: 100000 }, (_, i) => "w" + ` +
        `i).join("|") + ")$" }) }`,
    );
    expect(["returned", "threw"], r.stderr).toContain(r.kind);
    // The schema converter's budget refuses it first (SchemaError naming the pointer and the bound).
    if (r.kind === "threw")
      expect(r.error?.message).toMatch(/keyword pattern: the pattern expands to more than 20000 regex items/);
  });

  it("the token-refs fixture generates", async () => {
    const r = await generate(
      `{ engine: ${JSON.stringify(engine)}, gbnf: (await import("node:fs")).readFileSync(` +
        `${JSON.stringify(new URL("../fixtures/gbnf/token-refs.gbnf", import.meta.url).pathname)}, "utf8") }`,
    );
    expect(r.kind, `${r.error?.message} ${r.stderr}`).toBe("returned");
  });
});
