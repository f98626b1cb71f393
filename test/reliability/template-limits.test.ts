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

  // Issue 31 item 2: each ends with the error named, the work bounded by the step budget (the
  // message names it) and the child's peak memory far under 256 MB.
  const budgeted: [string, string, "TemplateRuntimeError" | "TemplateSyntaxError", RegExp][] = [
    [
      "1e10 nested iterations, then text",
      "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}x",
      "TemplateRuntimeError",
      /more than 10000000 steps/,
    ],
    [
      "three nested loops printing k",
      "{% for i in range(100000) %}{% for j in range(100000) %}{% for k in range(100000) %}{{ k }}" +
        "{% endfor %}{% endfor %}{% endfor %}",
      "TemplateRuntimeError",
      /more than 10000000 steps/,
    ],
    [
      "a list built in every iteration",
      "{% for i in range(100000) %}{% set x = range(100000)|list %}{% endfor %}",
      "TemplateRuntimeError",
      /more than 10000000 steps/,
    ],
    [
      "a fresh rope compared in every iteration",
      "{% set ns = namespace(x='a' * 1000000) %}{% for i in range(100000) %}{% if (ns.x ~ 'b') == ns.x %}" +
        "{% endif %}{% endfor %}",
      "TemplateRuntimeError",
      /more than 10000000 steps/,
    ],
    [
      "repr of a list nested 80 deep with shared items",
      "{% set ns = namespace(x=[1]) %}{% for i in range(80) %}{% set ns.x = [ns.x, ns.x] %}{% endfor %}{{ ns.x }}",
      "TemplateRuntimeError",
      /more than 10000000 steps/,
    ],
    [
      "tojson of a list nested 80 deep with shared items",
      "{% set ns = namespace(x=[1]) %}{% for i in range(80) %}{% set ns.x = [ns.x, ns.x] %}{% endfor %}" +
        "{{ ns.x|tojson }}",
      "TemplateRuntimeError",
      /more than 10000000 steps/,
    ],
    ["a join of 1e9 characters", "{{ range(100000)|join('x' * 10000) }}", "TemplateRuntimeError", /budget/],
  ];
  for (const [name, source, errorName, message] of budgeted) {
    it(`${name}: a ${errorName} within the budget`, async () => {
      const r = await render(source);
      expect(r.kind, r.stderr).toBe("threw");
      expect(r.error?.name).toBe(errorName);
      expect(r.error?.message).toMatch(message);
      expect(r.maxRssMiB).toBeLessThan(256);
    });
  }

  // Built in the child: 100,000-deep sources are too long for its command line.
  const deep: [string, string, RegExp][] = [
    ["a filter chain 100,000 deep", `"{{ 'x'" + "|trim".repeat(100000) + " }}"`, /nests 100002 levels deep/],
    ["a + chain 100,000 deep", `"{{ 1" + "+1".repeat(100000) + " }}"`, /nests 100002 levels deep/],
    ["brackets 100,000 deep", `"{{ " + "(".repeat(100000) + "1" + ")".repeat(100000) + " }}"`, /nests 100000 levels/],
    ["not 100,000 times", `"{{ " + "not ".repeat(100000) + "1 }}"`, /nests 100000 levels deep/],
    ["ifs 100,000 deep", `"{% if 1 %}".repeat(100000) + "{% endif %}".repeat(100000)`, /nests 100000 levels/],
  ];
  for (const [name, sourceExpr, message] of deep) {
    it(`${name}: a TemplateSyntaxError naming the depth, no stack overflow`, async () => {
      const r = await isolated(
        `const { ChatTemplate } = await sub("template/index.js"); new ChatTemplate(${sourceExpr}); return "compiled";`,
      );
      expect(r.kind, r.stderr).toBe("threw");
      expect(r.error?.name).toBe("TemplateSyntaxError");
      expect(r.error?.message).toMatch(message);
    });
  }

  it("ranges within the sandbox's bound still render", async () => {
    const r = await render("{{ range(100000)|length }} {{ range(10, 0, -3)|list }} {{ range(0)|length }}");
    expect(r).toMatchObject({ kind: "returned", value: "100000 [10, 7, 4, 1] 0" });
  });
});
