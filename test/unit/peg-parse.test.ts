import { describe, expect, test } from "vitest";
import {
  PegArena,
  PegLeftRecursionError,
  PegStreamParser,
  findPegNodes,
  parsePeg,
  pegText,
} from "../../src/peg/index.js";
import type { PegParseResult } from "../../src/peg/index.js";

/** content until <tool_call>, then zero or more tool calls with a name and JSON arguments. */
function toolGrammar() {
  const p = new PegArena();
  const call = p.rule(
    "tool-call",
    p.tag(
      "tool_call",
      p.seq(
        p.literal("<tool_call>"),
        p.space(),
        p.literal('{"name": "'),
        p.capture("tool_name", p.chars("a-zA-Z0-9_", 1)),
        p.literal('", "arguments": '),
        p.capture("tool_args", p.json()),
        p.literal("}"),
        p.space(),
        p.literal("</tool_call>"),
      ),
    ),
    { trigger: true },
  );
  const root = p.seq(p.capture("content", p.until("<tool_call>")), p.zeroOrMore(p.seq(call, p.space())), p.end());
  return { p, root };
}

function summary(r: PegParseResult): string[] {
  const out: string[] = [];
  const walk = (nodes: PegParseResult["nodes"], depth: number) => {
    for (const n of nodes) {
      out.push(`${"  ".repeat(depth)}${n.name}${n.incomplete ? "*" : ""}=${JSON.stringify(pegText(r, n))}`);
      walk(n.children, depth + 1);
    }
  };
  walk(r.nodes, 0);
  return out;
}

describe("PEG parse on complete input", () => {
  const { p, root } = toolGrammar();
  test.each([
    ["plain text", "Hello there", "success", ['content="Hello there"']],
    [
      "text and a call",
      'Sure.<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>',
      "success",
      [
        'content="Sure."',
        'tool_call="<tool_call>{\\"name\\": \\"get_weather\\", \\"arguments\\": {\\"city\\": ' +
          '\\"Paris\\"}}</tool_call>"',
        '  tool_name="get_weather"',
        '  tool_args="{\\"city\\": \\"Paris\\"}"',
      ],
    ],
    ["broken arguments", '<tool_call>{"name": "f", "arguments": {"a": }}</tool_call>', "fail", []],
    ["trailing garbage after a call", '<tool_call>{"name": "f", "arguments": {}}</tool_call> x', "fail", []],
  ])("%s", (_, input, status, tree) => {
    const r = parsePeg(p, root, input);
    expect(r.status).toBe(status);
    if (status === "success") expect(summary(r)).toEqual(tree);
  });

  test("fail reports how far it got", () => {
    const r = parsePeg(p, root, '<tool_call>{"name": "f", "arguments": {"a": }}</tool_call>');
    expect(r.failAt).toBe('<tool_call>{"name": "f", "arguments": {"a": '.length);
  });
});

describe("PEG parse on partial input", () => {
  const { p, root } = toolGrammar();
  test.each([
    ["text so far", "Hello", ['content*="Hello"']],
    ["a delimiter being typed is not content", "Hello <tool", ['content*="Hello "']],
    [
      "inside the call",
      'Hi<tool_call>{"name": "get_w',
      ['content="Hi"', 'tool_call*="<tool_call>{\\"name\\": \\"get_w"', '  tool_name*="get_w"'],
    ],
    [
      "arguments half written",
      'Hi<tool_call>{"name": "f", "arguments": {"city": "Par',
      [
        'content="Hi"',
        'tool_call*="<tool_call>{\\"name\\": \\"f\\", \\"arguments\\": {\\"city\\": \\"Par"',
        '  tool_name="f"',
        '  tool_args*="{\\"city\\": \\"Par"',
      ],
    ],
  ])("%s", (_, input, tree) => {
    const r = parsePeg(p, root, input, { partial: true });
    expect(r.status).toBe("need-more");
    expect(summary(r)).toEqual(tree);
  });

  test("a number at the end is not complete yet", () => {
    const q = new PegArena();
    const root = q.seq(q.capture("n", q.json()), q.end());
    const r = parsePeg(q, root, "3", { partial: true });
    expect(r.status).toBe("need-more");
    expect(r.nodes[0]!.incomplete).toBe(true);
    expect(parsePeg(q, root, "3").status).toBe("success");
  });

  test("an impossible prefix fails at once", () => {
    expect(parsePeg(p, root, '<tool_call>{"nome"', { partial: true }).status).toBe("fail");
  });

  test("ordered choice does not move past an alternative that still needs input", () => {
    const q = new PegArena();
    const root = q.choice(q.tag("long", q.literal("abc")), q.tag("short", q.literal("ab")));
    // "ab" could still become "abc": the parser must not commit to "short".
    const partial = parsePeg(q, root, "ab", { partial: true });
    expect(partial.status).toBe("need-more");
    expect(partial.nodes.map((n) => n.name)).toEqual(["long"]);
    expect(parsePeg(q, root, "ab").nodes.map((n) => n.name)).toEqual(["short"]);
  });

  test("atomic hides a partial match", () => {
    const q = new PegArena();
    const root = q.atomic(q.capture("x", q.literal("hello")));
    const r = parsePeg(q, root, "he", { partial: true });
    expect(r.status).toBe("need-more");
    expect(r.nodes).toEqual([]);
  });

  test("lookaheads", () => {
    const q = new PegArena();
    const word = q.capture("w", q.oneOrMore(q.seq(q.not(q.literal(" ")), q.any())));
    const root = q.seq(q.and(q.chars("a-z", 1, 1)), word, q.end());
    expect(parsePeg(q, root, "abc").status).toBe("success");
    expect(parsePeg(q, root, "Abc").status).toBe("fail");
    expect(parsePeg(q, root, "ab c").status).toBe("fail");
  });

  test("left recursion is reported, not a stack overflow", () => {
    const q = new PegArena();
    const e = q.rule("e", () => q.choice(q.seq(q.ref("e"), q.literal("+")), q.literal("1")));
    expect(() => parsePeg(q, e, "1+")).toThrow(PegLeftRecursionError);
  });
});

describe("each combinator on complete and partial input", () => {
  const q = new PegArena();
  // A nested list through a recursive rule: [a,[b,c]].
  const list = q.rule("list", () =>
    q.tag(
      "list",
      q.seq(
        q.literal("["),
        q.optional(q.seq(q.ref("item"), q.zeroOrMore(q.seq(q.literal(","), q.ref("item"))))),
        q.literal("]"),
      ),
    ),
  );
  q.rule("item", () => q.choice(q.ref("list"), q.capture("atom", q.chars("a-z", 1))));
  const roots = {
    repeat: q.seq(q.capture("x", q.repeat(q.literal("ab"), 2, 3)), q.end()),
    chars: q.seq(q.capture("d", q.chars("0-9", 2, 4)), q.end()),
    negated: q.seq(q.capture("w", q.chars("^ ", 1)), q.literal(" "), q.capture("r", q.rest())),
    until: q.seq(q.capture("t", q.until("</a>", "</b>")), q.choice(q.literal("</a>"), q.literal("</b>")), q.end()),
    optional: q.seq(q.literal("x"), q.optional(q.capture("o", q.literal("yz"))), q.literal("y"), q.end()),
    list: q.seq(list, q.end()),
    schema: q.seq(q.capture("j", q.schema(q.json(), { type: "object" })), q.end()),
  };
  test.each([
    ["repeat", "abab", "success", ['x="abab"']],
    ["repeat", "ababab", "success", ['x="ababab"']],
    ["repeat", "ab", "fail", []],
    ["repeat", "abababab", "fail", []],
    ["chars", "12", "success", ['d="12"']],
    ["chars", "12345", "fail", []],
    ["chars", "1", "fail", []],
    ["negated", "hello big world", "success", ['w="hello"', 'r="big world"']],
    ["until", "one</b>", "success", ['t="one"']],
    ["until", "a</c>b</a>", "success", ['t="a</c>b"']],
    ["optional", "xyzy", "success", ['o="yz"']],
    ["optional", "xy", "success", []],
    [
      "list",
      "[a,[b,c],[]]",
      "success",
      ['list="[a,[b,c],[]]"', '  atom="a"', '  list="[b,c]"', '    atom="b"', '    atom="c"', '  list="[]"'],
    ],
    ["list", "[a,]", "fail", []],
    ["schema", '{"a": [1, {}]}', "success", ['j="{\\"a\\": [1, {}]}"']],
    ["schema", '{"a": [1, }', "fail", []],
  ] as const)("%s: %j → %s", (root, input, status, tree) => {
    const r = parsePeg(q, roots[root], input);
    expect(r.status).toBe(status);
    if (status === "success") expect(summary(r)).toEqual(tree);
  });

  test.each([
    // Each prefix is "need-more" exactly when the complete text can still come.
    ["repeat", "aba", "need-more"],
    ["repeat", "abababa", "fail"],
    ["chars", "123", "need-more"],
    ["until", "one</", "need-more"],
    ["list", "[a,[b", "need-more"],
    ["list", "[a,]", "fail"],
    ["schema", '{"a": [1, {"', "need-more"],
    ["optional", "xy", "need-more"],
  ] as const)("partial %s: %j → %s", (root, input, status) => {
    expect(parsePeg(q, roots[root], input, { partial: true }).status).toBe(status);
  });

  test("a partial prefix agrees with the complete parse of every text it can become", () => {
    for (const text of ["[a,[b,c],[]]", "[[[a]]]", "[a,b,c]"]) {
      const done = summary(parsePeg(q, roots.list, text));
      for (let i = 1; i < text.length; i++) {
        const r = parsePeg(q, roots.list, text.slice(0, i), { partial: true });
        expect(r.status).toBe("need-more");
        // The atoms recognised so far are the complete parse's first atoms (none taken back).
        const atoms = summary(r)
          .filter((l) => l.includes("atom=") && !l.includes("*"))
          .map((l) => l.trim());
        const all = done.filter((l) => l.includes("atom=")).map((l) => l.trim());
        expect(all.slice(0, atoms.length)).toEqual(atoms);
      }
    }
  });
});

describe("PEG streaming", () => {
  const { p, root } = toolGrammar();
  const full =
    'Let me check.<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "days": [1, ' +
    '2.5e3]}}</tool_call>\n<tool_call>{"name": "now", "arguments": {}}</tool_call>';

  test("feeding chunk by chunk ends where a one-shot parse ends", () => {
    for (const size of [1, 3, 7]) {
      const s = new PegStreamParser(p, root);
      for (let i = 0; i < full.length; i += size) {
        const r = s.feed(full.slice(i, i + size));
        expect(r.status).toBe("need-more");
      }
      const end = s.finish();
      expect(end.status).toBe("success");
      expect(summary(end)).toEqual(summary(parsePeg(p, root, full)));
    }
  });

  test("every intermediate tree agrees with a fresh partial parse", () => {
    const s = new PegStreamParser(p, root);
    for (let i = 0; i < full.length; i += 5) {
      const r = s.feed(full.slice(i, i + 5));
      expect(summary(r)).toEqual(summary(parsePeg(p, root, full.slice(0, i + 5), { partial: true })));
    }
  });

  test("work over a stream grows linearly with its length", () => {
    const work = (n: number): number => {
      const s = new PegStreamParser(p, root);
      const text =
        "word ".repeat(n / 5) +
        '<tool_call>{"name": "f", "arguments": {"xs": [' +
        "1, ".repeat(n / 3) +
        "2]}}</tool_call>";
      for (let i = 0; i < text.length; i += 2) s.feed(text.slice(i, i + 2));
      expect(s.finish().status).toBe("success");
      return s.work / text.length;
    };
    const small = work(3000);
    const large = work(30000);
    // Quadratic work would make the per-character cost grow tenfold.
    expect(large).toBeLessThan(small * 1.5);
  });

  test("text stops before a longer delimiter still arriving that holds a shorter one found in it", () => {
    const q = new PegArena();
    const top = q.seq(q.capture("t", q.until("<|sep|>call<|role|>", "call")), q.rest());
    const text = (r: PegParseResult): string[] => findPegNodes(r.nodes, "t").map((n) => r.source.slice(n.start, n.end));
    const partial = parsePeg(q, top, "hi <|sep|>call<", { partial: true });
    expect([partial.status, text(partial)]).toEqual(["need-more", ["hi "]]);
    expect(text(parsePeg(q, top, "hi <|sep|>call<|role|>"))).toEqual(["hi "]);
    // Whole, the shorter delimiter found inside a longer one that never came ends the text.
    expect(text(parsePeg(q, top, "hi <|sep|>call<x"))).toEqual(["hi <|sep|>"]);
  });

  test("text that stops at many delimiters and goes on scans each character a bounded number of times", () => {
    // Chat content that may hold a JSON call: text up to an opener or a `{`, a `{` that opens no call, and on.
    const q = new PegArena();
    const piece = q.until("<call>", "{");
    const text = q.seq(piece, q.zeroOrMore(q.seq(q.not(q.literal('{"name"')), q.literal("{"), piece)));
    const top = q.seq(q.capture("content", text), q.optional(q.seq(q.literal("<call>"), q.rest())), q.end());
    const work = (n: number): number => {
      const s = new PegStreamParser(q, top);
      const input = "a {b} c ".repeat(n);
      s.feed(input);
      expect(s.finish().status).toBe("success");
      return s.work / input.length;
    };
    const small = work(100);
    const large = work(10000);
    // Looking for the absent opener from each `{` to the end would make this about 100 times larger.
    expect(large).toBeLessThan(small * 1.5);
  });

  test("work stays linear with thousands of sibling nodes (calls in a repetition)", () => {
    // Completed repetitions are shared between snapshots, not copied into each one.
    const work = (calls: number): number => {
      const s = new PegStreamParser(p, root);
      const text = "Hi." + '<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>\n'.repeat(calls);
      for (let i = 0; i < text.length; i += 4) s.feed(text.slice(i, i + 4));
      const end = s.finish();
      expect(findPegNodes(end.nodes, "tool_call")).toHaveLength(calls);
      return s.work / text.length;
    };
    const small = work(100);
    const large = work(3000);
    // Copying the list of finished calls on every chunk would make this about 30 times larger.
    expect(large).toBeLessThan(small * 1.5);
  });

  test("a result keeps its tree and text after later feeds (snapshots are stable)", () => {
    const s = new PegStreamParser(p, root);
    const held: [PegParseResult, string[], string][] = [];
    for (let i = 0; i < full.length; i += 9) {
      const r = s.feed(full.slice(i, i + 9));
      held.push([r, summary(r), full.slice(0, i + 9)]);
    }
    s.finish();
    for (const [r, tree, text] of held) {
      expect(summary(r)).toEqual(tree);
      expect(r.input).toBe(text);
      expect(r.nodeList.length).toBe(r.nodes.length);
    }
  });

  test("finds nodes by name", () => {
    const r = parsePeg(p, root, full);
    expect(findPegNodes(r.nodes, "tool_name").map((n) => pegText(r, n))).toEqual(["get_weather", "now"]);
  });
});
