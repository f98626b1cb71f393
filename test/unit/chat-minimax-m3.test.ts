// MiniMax M3 writes object and array arguments as nested elements; the parser reads them back
// by the schema where it types them and by their shape where it does not, whole and streamed.
import { describe, expect, it } from "vitest";
import {
  ChatStreamParser,
  accumulateDeltas,
  generateChatParams,
  parseChatOutput,
  type ChatParams,
} from "../../src/chat/index.js";
import { matchGbnf } from "../../src/grammar/gbnf-match.js";
import type { AssistantMessage, ToolDefinition } from "../../src/types.js";
import { TOOLS, USER, generatedPart, toolTemplates } from "../helpers/chat-roundtrip.js";

const minimax = toolTemplates(undefined, (name) => name === "MiniMax-M3.jinja")[0]!;
const NS = "]<]minimax[>[";
const ids = { generateCallId: (i: number) => `id${i}` };

function streamed(params: ChatParams, output: string): AssistantMessage {
  const s = new ChatStreamParser(params, ids);
  const deltas = [...output].flatMap((c) => s.feed(c));
  deltas.push(...s.finish());
  return accumulateDeltas(deltas);
}

const TYPED: ToolDefinition = {
  type: "function",
  function: {
    name: "plan",
    parameters: {
      type: "object",
      properties: {
        stop: { type: "object", properties: { city: { type: "string" }, nights: { type: "integer" } } },
        days: { type: "array", items: { type: "integer" } },
        tags: { type: "array", items: { type: "string" } },
      },
    },
  },
};

describe("MiniMax M3 nested-element arguments", () => {
  it("untyped objects and arrays rendered by the template come back (no null members)", () => {
    const args = { text: "plain", count: 3.5, flag: true, meta: { k: [1, 2], s: "two words" }, items: ["x", { y: 1 }] };
    const message: AssistantMessage = {
      role: "assistant",
      content: "",
      tool_calls: [{ id: "c1", type: "function", function: { name: "record", arguments: JSON.stringify(args) } }],
    };
    const params = generateChatParams(minimax.analysis, minimax.template, { messages: [USER], tools: TOOLS });
    const g = generatedPart(minimax, { name: "nested", message }, params);
    if ("error" in g) throw new Error(g.error);
    expect(g.output).toContain(`${NS}<item>`);
    for (const msg of [parseChatOutput(params, g.output, ids), streamed(params, g.output)]) {
      expect(msg.tool_calls?.map((c) => [c.function.name, JSON.parse(c.function.arguments)])).toEqual([
        ["record", args],
      ]);
    }
    const trigger = `${NS}<tool_call>`;
    expect(matchGbnf(params.grammar!, g.output.slice(g.output.indexOf(trigger))).ok).toBe(true);
  });

  it("schema-typed members, arrays of numbers and of strings", () => {
    const params = generateChatParams(minimax.analysis, minimax.template, {
      messages: [USER],
      tools: [TYPED],
      toolChoice: "required",
    });
    const el = (k: string, v: string) => `${NS}<${k}>${v}${NS}</${k}>`;
    const body =
      el("stop", el("city", "Nice") + el("nights", "2")) +
      el("days", el("item", "1") + el("item", "3")) +
      el("tags", el("item", "7") + el("item", "a b"));
    const output = `</mm:think>${NS}<tool_call>\n${NS}<invoke name="plan">${body}${NS}</invoke>\n${NS}</tool_call>`;
    const want = { stop: { city: "Nice", nights: 2 }, days: [1, 3], tags: ["7", "a b"] };
    for (const msg of [parseChatOutput(params, output, ids), streamed(params, output)]) {
      expect(JSON.parse(msg.tool_calls![0]!.function.arguments)).toEqual(want);
    }
    expect(matchGbnf(params.grammar!, output).ok).toBe(true);
  });

  it("a member element written again in an untyped object is a list of its values, none lost", () => {
    const params = generateChatParams(minimax.analysis, minimax.template, { messages: [USER], tools: TOOLS });
    const el = (k: string, v: string) => `${NS}<${k}>${v}${NS}</${k}>`;
    const meta = el("meta", el("tag", "a") + el("n", "1") + el("tag", el("k", "b") + el("k", "c")) + el("tag", "d"));
    const output = `</mm:think>${NS}<tool_call>\n${NS}<invoke name="record">${meta}${NS}</invoke>\n${NS}</tool_call>`;
    const want = { meta: { tag: ["a", { k: ["b", "c"] }, "d"], n: 1 } };
    for (const msg of [parseChatOutput(params, output, ids), streamed(params, output)]) {
      expect(JSON.parse(msg.tool_calls![0]!.function.arguments)).toEqual(want);
    }
  });

  it("a list of objects whose one item is written without its <item> wrapper is that item", () => {
    const order: ToolDefinition = {
      type: "function",
      function: {
        name: "order",
        parameters: {
          type: "object",
          properties: {
            lines: {
              type: "array",
              items: { type: "object", properties: { sku: { type: "string" }, qty: { type: "integer" } } },
            },
          },
        },
      },
    };
    const params = generateChatParams(minimax.analysis, minimax.template, { messages: [USER], tools: [order] });
    const el = (k: string, v: string) => `${NS}<${k}>${v}${NS}</${k}>`;
    const call = (body: string) =>
      `</mm:think>${NS}<tool_call>\n${NS}<invoke name="order">${body}${NS}</invoke>\n${NS}</tool_call>`;
    const rows: [string, unknown][] = [
      [el("lines", el("sku", "a-1") + el("qty", "2")), { lines: [{ sku: "a-1", qty: 2 }] }],
      // Items under another element name are still items (the first element is no member of an item).
      [el("lines", el("line", el("sku", "b")) + el("line", el("qty", "3"))), { lines: [{ sku: "b" }, { qty: 3 }] }],
    ];
    for (const [body, want] of rows) {
      for (const msg of [parseChatOutput(params, call(body), ids), streamed(params, call(body))]) {
        expect(JSON.parse(msg.tool_calls![0]!.function.arguments)).toEqual(want);
      }
    }
  });

  it("a call cut off inside nested elements is no call; while it streams it shows valid JSON so far", () => {
    const params = generateChatParams(minimax.analysis, minimax.template, { messages: [USER], tools: [TYPED] });
    const head = `</mm:think>${NS}<tool_call>\n${NS}<invoke name="plan">`;
    const output = `${head}${NS}<days>${NS}<item>1${NS}</item>${NS}<item>2`;
    const finished = streamed(params, output);
    expect(finished.tool_calls).toBeUndefined();
    expect(finished.content).toContain('<invoke name="plan">');
    const parser = new ChatStreamParser(params);
    parser.feed(output);
    const partial = parser.message().tool_calls![0]!.function.arguments;
    // The partial view's arguments are a prefix of valid JSON (open brackets closed at the end).
    expect(partial.startsWith('{"days":[1')).toBe(true);
  });
});

// The template cannot write null (see NULL_NOT_EXPRESSIBLE in helpers/chat-roundtrip.ts): null
// members are left out and a null array item is an empty <item>. The parser must read whatever
// that gives, whole and streamed, and the grammar must accept it.
describe("MiniMax M3: what the template renders for null, read back", () => {
  const call = (name: string, args: unknown): AssistantMessage => ({
    role: "assistant",
    content: "",
    tool_calls: [{ id: "c1", type: "function", function: { name, arguments: JSON.stringify(args) } }],
  });

  it('untyped arguments: null members are absent, a null item reads as "" (what "" renders as too)', () => {
    const params = generateChatParams(minimax.analysis, minimax.template, { messages: [USER], tools: TOOLS });
    const g = generatedPart(
      minimax,
      {
        name: "nulls",
        message: call("record", { text: "a", count: null, meta: { k: [1, null], z: null }, items: [null, "x"] }),
      },
      params,
    );
    if ("error" in g) throw new Error(g.error);
    expect(g.output).not.toContain("<count>");
    expect(g.output).not.toContain("<z>");
    expect(g.output).toContain(`${NS}<item>${NS}</item>`);
    const want = { text: "a", meta: { k: [1, ""] }, items: ["", "x"] };
    for (const msg of [parseChatOutput(params, g.output, ids), streamed(params, g.output)]) {
      expect(msg.content).toBeNull();
      expect(msg.tool_calls!.map((c) => JSON.parse(c.function.arguments))).toEqual([want]);
    }
    expect(matchGbnf(params.grammar!, g.output.slice(g.output.indexOf(`${NS}<tool_call>`))).ok).toBe(true);
  });

  const NULLABLE: ToolDefinition = {
    type: "function",
    function: {
      name: "log",
      parameters: {
        type: "object",
        properties: {
          days: { type: "array", items: { type: "integer" } },
          flags: { type: "array", items: { type: "boolean" } },
          tags: { type: "array", items: { type: "string" } },
          opts: { type: "object" },
          stop: { type: "object", properties: { city: { type: "string" } } },
        },
      },
    },
  };
  const el = (k: string, v: string) => `${NS}<${k}>${v}${NS}</${k}>`;
  const items = (...vs: string[]) => vs.map((v) => el("item", v)).join("");

  it.each([
    [
      'null items of typed arrays: null for numbers and booleans, "" for strings',
      el("days", items("1", "", "2")) + el("flags", items("", "true")) + el("tags", items("", "a")),
      { days: [1, null, 2], flags: [null, true], tags: ["", "a"] },
    ],
    [
      "empty typed arrays and objects (all members null or none)",
      el("days", "") + el("opts", "") + el("stop", ""),
      { days: [], opts: {}, stop: {} },
    ],
  ])("%s", (_, body, want) => {
    const params = generateChatParams(minimax.analysis, minimax.template, { messages: [USER], tools: [NULLABLE] });
    const output = `</mm:think>${NS}<tool_call>\n${NS}<invoke name="log">${body}${NS}</invoke>\n${NS}</tool_call>`;
    // The template renders these the same way (null members omitted, null items empty).
    for (const msg of [parseChatOutput(params, output, ids), streamed(params, output)]) {
      expect(msg.content).toBeNull();
      expect(JSON.parse(msg.tool_calls![0]!.function.arguments)).toEqual(want);
    }
    expect(matchGbnf(params.grammar!, output.slice(output.indexOf(`${NS}<tool_call>`))).ok).toBe(true);
  });
});
