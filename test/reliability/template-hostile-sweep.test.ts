// A seeded sweep of hostile templates: random compositions of huge ranges, nested loops, doubling,
// repetition, deep recursion and filters over big values. Every one renders or ends in a
// TemplateError-family error (TemplateRuntimeError, TemplateSyntaxError, TemplateError); none may
// crash the process, run out of heap or hang. All run in one child process.
import { describe, expect, it } from "vitest";
import { isolated } from "../helpers/isolated.js";
import { lcgRandom } from "../helpers/seeded-random.js";

const rng = lcgRandom;

const BIG = ["10**18", "2**40", "100000", "100001", "170000000", "-10**18", "10**400"];
const PIECES: ((n: () => string) => string)[] = [
  (n) => `{{ range(${n()})|length }}`,
  (n) => `{{ range(0, ${n()}, 3)|list|length }}`,
  (n) => `{% for i in range(${n()}) %}{% for j in range(${n()}) %}{% endfor %}{% endfor %}`,
  (n) => `{{ ('ab' * ${n()})|length }}`,
  (n) => `{{ ([1] * ${n()})|length }}`,
  () => "{% set ns = namespace(x=[1]) %}{% for i in range(70) %}{% set ns.x = ns.x + ns.x %}{% endfor %}",
  () => "{% set ns = namespace(x='ab') %}{% for i in range(70) %}{% set ns.x = ns.x ~ ns.x %}{% endfor %}",
  () => "{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}",
  (n) => `{{ 'x'|center(${n()})|length }}`,
  (n) => `{{ range(${n()})|join(',')|length }}`,
  () => "{{ messages|length }}",
];

describe("hostile templates (seeded)", () => {
  it("120 random compositions render or raise a TemplateError-family error", async () => {
    const next = rng(1234);
    const sources: string[] = [];
    for (let k = 0; k < 120; k++) {
      const n = () => BIG[Math.floor(next() * BIG.length)]!;
      let src = "";
      const parts = 1 + Math.floor(next() * 3);
      for (let i = 0; i < parts; i++) src += PIECES[Math.floor(next() * PIECES.length)]!(n);
      sources.push(src);
    }
    const r = await isolated(
      `const { ChatTemplate } = await sub("template/index.js");
       const out = [];
       for (const src of ${JSON.stringify(sources)}) {
         try { new ChatTemplate(src).render({ messages: [] }); out.push("ok"); }
         catch (e) { out.push(["TemplateRuntimeError", "TemplateSyntaxError",
           "TemplateError"].includes(e?.name) ? "error" : "WRONG " + e?.name + ": " + e?.message + " in " + src); }
       }
       return out;`,
      { timeoutMs: 600_000, maxOldSpaceMiB: 1536 },
    );
    expect(r.kind, r.stderr).toBe("returned");
    const outcomes = r.value as string[];
    expect(outcomes.filter((o) => o.startsWith("WRONG"))).toEqual([]);
    expect(outcomes.length).toBe(120);
  }, 650_000);
});
