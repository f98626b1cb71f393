// How `toolwright chat` writes a streamed answer: tool-call arguments appear as their deltas
// arrive (not when the call is complete), calls are closed before other output, and a call the
// stream never showed is still printed at the end.
import { describe, expect, it } from "vitest";
import { AnswerView } from "../../src/cli/chat-output.js";
import type { ChatDelta } from "../../src/chat/types.js";
import type { AssistantMessage } from "../../src/types.js";

function view() {
  let out = "";
  const v = new AnswerView({ write: (t: string) => (out += t) }, (t) => `<dim>${t}</dim>`);
  return { v, text: () => out };
}

const call = (index: number, name: string | undefined, args: string): ChatDelta => ({
  tool_calls: [
    {
      index,
      ...(name !== undefined ? { id: `c${index}`, type: "function" as const } : {}),
      function: { ...(name !== undefined ? { name } : {}), arguments: args },
    },
  ],
});

const message = (calls: [string, string][]): AssistantMessage => ({
  role: "assistant",
  content: null,
  tool_calls: calls.map(([name, args], i) => ({ id: `c${i}`, type: "function", function: { name, arguments: args } })),
});

describe("AnswerView", () => {
  it("writes each argument fragment as it arrives", () => {
    const { v, text } = view();
    const seen: string[] = [];
    for (const d of [
      call(0, "get_weather", ""),
      call(0, undefined, '{"ci'),
      call(0, undefined, 'ty": "Pa'),
      call(0, undefined, 'ris"}'),
    ]) {
      v.delta(d);
      seen.push(text());
    }
    expect(seen).toEqual([
      "→ get_weather(",
      '→ get_weather({"ci',
      '→ get_weather({"city": "Pa',
      '→ get_weather({"city": "Paris"}',
    ]);
    v.end(message([["get_weather", '{"city": "Paris"}']]));
    expect(text()).toBe('→ get_weather({"city": "Paris"})\n');
  });

  it.each([
    [
      "content, then two calls",
      [{ content: "Checking." }, call(0, "a", "{}"), call(1, "b", '{"x":'), call(1, undefined, "1}")],
      [
        ["a", "{}"],
        ["b", '{"x":1}'],
      ],
      'Checking.\n→ a({})\n→ b({"x":1})\n',
    ],
    ["reasoning, then content", [{ reasoning_content: "hmm" }, { content: "Hi" }], [], "<dim>hmm</dim>\nHi\n"],
    [
      "reasoning, then a call",
      [{ reasoning_content: "hmm\n" }, call(0, "a", "{}")],
      [["a", "{}"]],
      "<dim>hmm\n</dim>→ a({})\n",
    ],
    ["a call the stream never showed", [{ content: "x" }], [["late", '{"k":2}']], 'x\n→ late({"k":2})\n'],
    ["nothing", [], [], ""],
  ] as [string, ChatDelta[], [string, string][], string][])("%s", (_name, deltas, calls, expected) => {
    const { v, text } = view();
    for (const d of deltas) v.delta(d);
    v.end(calls.length > 0 ? message(calls) : { role: "assistant", content: "" });
    expect(text()).toBe(expected);
  });
});
