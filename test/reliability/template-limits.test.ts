// Hostile templates: a huge range(), nested loops of 1e10 iterations, a list or string doubled in
// a loop. Each must end in a TemplateRuntimeError naming the bound, never a V8 "invalid size" or
// an out-of-heap crash, and never run forever. range() matches Python Jinja2's sandbox
// (OverflowError above MAX_RANGE = 100000); the other bounds are toolwright's render budget
// (src/template/limits.ts). Run in child processes: before the fix these crash or hang.
import { describe, expect, it } from "vitest";
import { isolated } from "../helpers/isolated.js";

const render = (source: string) =>
  isolated(
    `const { ChatTemplate } = await sub("template/index.js"); return new ` +
      `ChatTemplate(${JSON.stringify(source)}).render({ messages: [] });`,
    {
      timeoutMs: 120_000,
      maxOldSpaceMiB: 1536,
    },
  );

describe("template render budget", () => {
  const cases: [string, string, RegExp][] = [
    ["range(10**18)|length", "{{ range(10**18)|length }}", /OverflowError|MAX_RANGE/],
    ["range(2*10**8)", "{% for i in range(200000000) %}{% endfor %}", /MAX_RANGE/],
    ["range of a negative huge step", "{{ range(10**18, 0, -1)|length }}", /MAX_RANGE/],
    [
      "1e10 nested iterations",
      "{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}",
      /steps/,
    ],
    [
      "list doubling",
      "{% set ns = namespace(x=[1]) %}{% for i in range(80) %}{% set ns.x = ns.x + ns.x %}{% endfor %}{{ " +
        "ns.x|length }}",
      /budget/,
    ],
    [
      "string doubling",
      "{% set ns = namespace(x='ab') %}{% for i in range(80) %}{% set ns.x = ns.x ~ ns.x %}{% endfor %}{{ " +
        "ns.x|length }}",
      /budget/,
    ],
    ["string repetition", "{{ ('x' * 10**12)|length }}", /budget/],
    ["list repetition", "{{ ([1, 2] * 10**10)|length }}", /budget/],
    ["output blow-up", "{% set s = 'x' * 30000000 %}{% for i in range(100000) %}{{ s }}{% endfor %}", /budget/],
  ];
  for (const [name, source, message] of cases) {
    it(`${name}: a TemplateRuntimeError, no crash or hang`, async () => {
      const r = await render(source);
      expect(r.kind, r.stderr).toBe("threw");
      expect(r.error?.name).toBe("TemplateRuntimeError");
      expect(r.error?.message).toMatch(message);
    });
  }

  it("ranges within the sandbox's bound still render", async () => {
    const r = await render("{{ range(100000)|length }} {{ range(10, 0, -3)|list }} {{ range(0)|length }}");
    expect(r).toMatchObject({ kind: "returned", value: "100000 [10, 7, 4, 1] 0" });
  });
});
